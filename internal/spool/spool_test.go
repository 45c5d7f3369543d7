package spool

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"launchwatch/internal/client"
	"launchwatch/internal/shipper"
	"launchwatch/internal/store/storetest"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func numbered(from, to int64, what string) []client.Line {
	var out []client.Line
	for i := from; i <= to; i++ {
		out = append(out, client.Line{Seq: i, Text: fmt.Sprintf("%s %d", what, i), TS: time.Unix(1700000000+i, 0).UTC()})
	}
	return out
}

func collect(warnings *[]string) func(string) {
	return func(s string) { *warnings = append(*warnings, s) }
}

func TestWriteKeepsTheSpoolBounded(t *testing.T) {
	t.Parallel()

	t.Run("OldestLaunchDroppedFirstWithAWarning", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		var warnings []string
		lines := numbered(1, 200, strings.Repeat("x", 100)) // about 20 KB each entry
		size := int64(len(client.EncodeLines(lines)))
		limit := 2*size + size/2 + 3*4096 // room for two entries, not three
		for _, key := range []string{"first", "second", "third"} {
			if _, err := Write(dir, limit, Entry{Server: "http://s", Launch: key}, lines, collect(&warnings)); err != nil {
				t.Fatal(err)
			}
		}
		entries, err := List(dir)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, e := range entries {
			keys = append(keys, e.Launch)
		}
		if strings.Join(keys, ",") != "second,third" {
			t.Errorf("spool holds %q, want the two newest", keys)
		}
		if len(warnings) != 1 || !strings.Contains(warnings[0], "dropped the oldest spooled launch first") {
			t.Errorf("warnings = %q, want one naming the dropped launch", warnings)
		}
	})

	t.Run("AnEntryLargerThanTheBoundKeepsItsNewestLines", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		var warnings []string
		lines := numbered(1, 1000, "line")
		limit := int64(len(client.EncodeLines(lines[900:])))
		e, err := Write(dir, limit, Entry{Server: "http://s", Launch: "big"}, lines, collect(&warnings))
		if err != nil {
			t.Fatal(err)
		}
		if e.Lines != 100 || e.LastSeq != 1000 || len(warnings) != 1 || !strings.Contains(warnings[0], "900 oldest lines") {
			t.Errorf("entry %+v, warnings %q: want the newest 100 lines and a warning", e, warnings)
		}
	})
}

// flaky forwards to target but answers 503 to every line batch after the
// first ok ones while failing is set.
func flaky(t *testing.T, target string, ok int64, failing *atomic.Bool) *httptest.Server {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }}
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/lines") && posts.Add(1) > ok && failing.Load() {
			http.Error(w, `{"error":"down"}`, http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func storedSeqs(t *testing.T, c *client.Client, key string) []client.StoredLine {
	t.Helper()
	lines, err := c.AllLines(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// Two runs of one launch spooled while the server never answered number
// their lines from 1; delivered, they go after what the server holds, in
// the order they ran, and a delivery cut short resumes with the same seqs:
// nothing lost, nothing doubled.
func TestDeliverPlacesRelativeEntriesAndResumes(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	direct, err := client.New(srv.URL, srv.Token)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := direct.PostLines(ctx, "relaunch", nil, client.EncodeLines(numbered(1, 5, "stored before"))); err != nil {
		t.Fatal(err)
	}
	var failing atomic.Bool
	failing.Store(true)
	front := flaky(t, srv.URL, 1, &failing) // the first batch lands, then the server is "down"
	c, err := client.New(front.URL, srv.Token)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code := 1
	for i, n := range []int64{2500, 300} {
		e := Entry{Server: c.BaseURL(), Launch: "relaunch", Relative: true, Exit: &Exit{Code: &code}}
		if i == 0 {
			e.Exit = nil
			e.Health = []Health{{OK: true, Detail: "HTTP 200"}}
		}
		if _, err := Write(dir, 0, e, numbered(1, n, fmt.Sprintf("run %d line", i+1)), func(s string) { t.Error(s) }); err != nil {
			t.Fatal(err)
		}
	}
	reports, err := Flush(ctx, c, dir, DeliverConfig{RetryFor: 300 * time.Millisecond})
	var gaveUp *shipper.GaveUpError
	if !errors.As(err, &gaveUp) || len(reports) != 1 || reports[0].Lines != 1000 || reports[0].Done {
		t.Fatalf("flush through a failing server: %+v, %v; want 1000 lines of the first entry, then giving up", reports, err)
	}
	entries, _ := List(dir)
	if len(entries) != 2 || !entries[0].Resolved || entries[0].Base != 5 || entries[0].LinesDone != 1000 {
		t.Fatalf("after the cut: %+v; want the first entry placed after seq 5 with its progress", entries[0])
	}
	if last, unresolved := ReservedThrough(dir, c.BaseURL(), "relaunch"); last != 2505 || !unresolved {
		t.Errorf("reserved through %d (unresolved %v), want 2505 and the second entry still unplaced", last, unresolved)
	}
	failing.Store(false)
	reports, err = Flush(ctx, c, dir, DeliverConfig{})
	if err != nil || len(reports) != 2 || reports[0].Lines != 1500 || reports[0].Health != 1 || reports[1].Lines != 300 || !reports[1].Exit {
		t.Fatalf("second flush: %+v, %v", reports, err)
	}
	if entries, _ := List(dir); len(entries) != 0 {
		t.Errorf("spool still holds %d entries", len(entries))
	}
	got := storedSeqs(t, direct, "relaunch")
	if len(got) != 5+2500+300 {
		t.Fatalf("stored %d lines, want %d", len(got), 5+2500+300)
	}
	for i, l := range got {
		want := fmt.Sprintf("stored before %d", i+1)
		switch {
		case i >= 2505:
			want = fmt.Sprintf("run 2 line %d", i-2504)
		case i >= 5:
			want = fmt.Sprintf("run 1 line %d", i-4)
		}
		if l.Seq != int64(i+1) || l.Text != want {
			t.Fatalf("line %d: seq %d %q, want %q", i+1, l.Seq, l.Text, want)
		}
	}
	l, err := direct.Launch(ctx, "relaunch")
	if err != nil || l.ExitCode == nil || *l.ExitCode != 1 {
		t.Errorf("launch %+v (%v): want exit code 1", l, err)
	}
}

// The server's database loses spooled lines it acknowledged before the
// delivery ends (here: rows deleted behind its back once the entry's last
// batch is stored): the entry is removed, and the exit reported, only once
// the server holds every line of it again.
func TestDeliverSendsAgainWhatTheServerLost(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	var lost atomic.Bool
	p := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }}
	p.ModifyResponse = func(r *http.Response) error {
		if r.Request.Method == http.MethodPost && strings.HasSuffix(r.Request.URL.Path, "/lines") && r.StatusCode == http.StatusOK &&
			!lost.Swap(true) {
			l, err := srv.Store.LaunchByKey(context.Background(), "forgetful")
			if err == nil {
				err = storetest.LoseLines(context.Background(), srv.Store.Pool(), l.ID, 100, 299)
			}
			if err != nil {
				t.Error(err)
			}
		}
		return nil
	}
	front := httptest.NewServer(p)
	t.Cleanup(front.Close)
	c, err := client.New(front.URL, srv.Token)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code := 0
	if _, err := Write(dir, 0, Entry{Server: c.BaseURL(), Launch: "forgetful", Exit: &Exit{Code: &code}}, numbered(1, 500, "spooled"),
		func(s string) { t.Error(s) }); err != nil {
		t.Fatal(err)
	}
	reports, err := Flush(context.Background(), c, dir, DeliverConfig{})
	if err != nil || len(reports) != 1 || !reports[0].Done || !reports[0].Exit || reports[0].Resent != 200 {
		t.Fatalf("flush: %+v, %v; want the entry done, its exit sent and 200 lines sent again", reports, err)
	}
	got := storedSeqs(t, c, "forgetful")
	if len(got) != 500 {
		t.Fatalf("stored %d lines, want 500", len(got))
	}
	for i, l := range got {
		if want := fmt.Sprintf("spooled %d", i+1); l.Seq != int64(i+1) || l.Text != want {
			t.Fatalf("line %d: seq %d %q, want %q", i+1, l.Seq, l.Text, want)
		}
	}
}
