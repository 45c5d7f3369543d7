package main

import (
	"context"
	"testing"
	"time"

	"launchwatch/internal/client"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// A line posted to one web process reaches a live client of another: both
// LISTEN on the shared database.
func TestLiveAcrossWebProcesses(t *testing.T) {
	t.Parallel()
	db := webtest.Start(t, web.Config{}) // only for its database
	a := "http://" + freeAddr(t)
	b := "http://" + freeAddr(t)
	wa := startWebProcess(t, a[len("http://"):], db.DBURL)
	wb := startWebProcess(t, b[len("http://"):], db.DBURL)
	defer wa.stop(t)
	defer wb.stop(t)

	cb, err := client.New(b, webtest.AdminToken)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	live, err := cb.Follow(ctx, "shared", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	if m, err := live.Next(); err != nil || m.Type != "absent" {
		t.Fatalf("first message %+v, %v; want absent", m, err)
	}
	post(t, a, "shared", "posted to A\n")
	for {
		m, err := live.Next()
		if err != nil {
			t.Fatalf("no line from A on B's websocket: %v", err)
		}
		if m.Type == "lines" {
			if len(m.Lines) != 1 || m.Lines[0].Text != "posted to A" {
				t.Errorf("lines = %+v", m.Lines)
			}
			return
		}
	}
}
