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

// A file truncated and written again while no shipper ran, whose new
// content starts with the same first 4 KiB (a server's banner and
// configuration dump are the same at every start) and is longer than the
// old: the bytes before the old acknowledged offset differ, so it is new
// content, shipped from its start under the next seqs, not taken as the
// old one appended to (which would never ship its first part).
func TestTruncatedWhileStoppedWithTheSameHead(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	c, err := client.New(srv.URL, srv.Token)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log, state := filepath.Join(dir, "server.log"), filepath.Join(dir, "state")
	var banner strings.Builder
	for i := 1; banner.Len() < 6<<10; i++ {
		fmt.Fprintf(&banner, "INFO server_args=ServerArgs(model_path=acme/demo-7b, tp_size=8, option_%d=True)\n", i)
	}
	bannerLines := strings.Count(banner.String(), "\n")
	var want []string
	write := func(run string, n int) {
		t.Helper()
		var b strings.Builder
		b.WriteString(banner.String())
		want = append(want, strings.Split(strings.TrimSuffix(banner.String(), "\n"), "\n")...)
		for i := 1; i <= n; i++ {
			l := fmt.Sprintf("INFO %s: loading shard %d", run, i)
			want = append(want, l)
			b.WriteString(l + "\n")
		}
		// O_TRUNC: the same inode, as a server that reopens its log does.
		if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ship := func() {
		t.Helper()
		if _, err := Follow(context.Background(), c, FollowConfig{Path: log, StatePath: state, Once: true,
			Sender: SenderConfig{Launch: "trunc", MaxLines: 100}}); err != nil {
			t.Fatal(err)
		}
	}
	write("first start", 300)
	ship()
	first, err := LoadState(state)
	if err != nil || first.TailLen != 4096 || first.Tail == "" {
		t.Fatalf("state after the first run: %+v, %v; want a fingerprint of the 4 KiB before the offset", first, err)
	}
	write("second start", 600) // same first 6 KiB, longer than the first
	ship()
	lines, err := srv.Store.LinesBetween(context.Background(), launchID(t, srv), 0, 10000, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines stored, want %d (both contents whole)", len(lines), len(want))
	}
	for i, l := range lines {
		if l.Seq != int64(i+1) || l.Text != want[i] {
			t.Fatalf("line %d: seq %d %q, want %q", i+1, l.Seq, l.Text, want[i])
		}
	}
	st, err := LoadState(state)
	if want := int64(bannerLines + 300); err != nil || st.Base != want || st.Seq != want+int64(bannerLines+600) {
		t.Errorf("state = %+v, %v; want the second content numbered after %d", st, err, want)
	}

	// Appended while no shipper ran: the same content, resumed where it
	// was acknowledged, nothing sent twice.
	f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "INFO second start: ready")
	f.Close()
	want = append(want, "INFO second start: ready")
	res, err := Follow(context.Background(), c, FollowConfig{Path: log, StatePath: state, Once: true, Sender: SenderConfig{Launch: "trunc"}})
	if err != nil || res.Sent != 1 {
		t.Fatalf("after an append: sent %d, %v; want the one new line", res.Sent, err)
	}
	if n := storedCount(t, srv, "trunc"); n != int64(len(want)) {
		t.Errorf("%d lines stored, want %d", n, len(want))
	}
}
