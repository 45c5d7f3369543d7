package shipper

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/client"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// Follow in this process (so -race sees the reader and the sender) through
// a truncation that writes the file again past its old size, then a
// rotation: every content arrives whole, each after the one before.
func TestFollowThroughTruncationAndRotation(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	c, err := client.New(srv.URL, srv.Token)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "x.log")
	var want []string
	write := func(what string, n int) {
		t.Helper()
		var b strings.Builder
		for i := 1; i <= n; i++ {
			l := fmt.Sprintf("%s line %d", what, i)
			want = append(want, l)
			b.WriteString(l + "\n")
		}
		// O_TRUNC and one write: the file is longer at once.
		if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	waitFor := func(n int64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for storedCount(t, srv, "trunc") < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d lines stored, want %d", storedCount(t, srv, "trunc"), n)
			}
			time.Sleep(10 * time.Millisecond) // polling the server, not ordering
		}
	}
	write("first", 500)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Follow(ctx, c, FollowConfig{Path: log, StatePath: filepath.Join(dir, "state"), Poll: 5 * time.Millisecond,
			Sender: SenderConfig{Launch: "trunc", MaxLines: 100, MaxDelay: time.Millisecond}})
		done <- err
	}()
	waitFor(500)
	write("second, a longer line than the first", 800)
	waitFor(1300)
	if err := os.Rename(log, log+".1"); err != nil {
		t.Fatal(err)
	}
	write("third", 50)
	waitFor(1350)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	lines, err := srv.Store.LinesBetween(context.Background(), launchID(t, srv), 0, 2000, 2000)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines stored, want %d", len(lines), len(want))
	}
	for i, l := range lines {
		if l.Seq != int64(i+1) || l.Text != want[i] {
			t.Fatalf("line %d: seq %d %q, want %q", i+1, l.Seq, l.Text, want[i])
		}
	}
	st, err := LoadState(filepath.Join(dir, "state"))
	if err != nil || st.Base != 1300 || st.Seq != 1350 {
		t.Errorf("state = %+v, %v; want the third content, numbered after 1300, acknowledged to 1350", st, err)
	}
}

func launchID(t *testing.T, srv *webtest.Server) int64 {
	t.Helper()
	l, err := srv.Store.LaunchByKey(context.Background(), "trunc")
	if err != nil {
		t.Fatal(err)
	}
	return l.ID
}
