package shipper

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"launchwatch/internal/client"
	"launchwatch/internal/store/storetest"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// losingProxy forwards to target; once the server has acknowledged a batch
// through seq after, lose (called once) takes lines from its database
// behind its back. No request fails and the database's history stays the
// same: only a check of what the server holds can tell.
func losingProxy(t *testing.T, target string, after int64, lose func()) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	p := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }}
	p.ModifyResponse = func(r *http.Response) error {
		if r.Request.Method != http.MethodPost || r.StatusCode != http.StatusOK {
			return nil
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var ack client.Ack
		if json.Unmarshal(body, &ack) == nil && ack.LastSeq >= after {
			once.Do(lose)
		}
		return nil
	}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return srv.URL
}

func writeNumbered(t *testing.T, path string, n int) []string {
	t.Helper()
	var b strings.Builder
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("line %d of the log", i+1)
		b.WriteString(want[i] + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return want
}

func storedTexts(t *testing.T, srv *webtest.Server, key string) []string {
	t.Helper()
	l, err := srv.Store.LaunchByKey(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := srv.Store.LinesBetween(context.Background(), l.ID, 0, 1<<40, 100000)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(lines))
	for i, ln := range lines {
		if ln.Seq != int64(i+1) {
			t.Fatalf("stored seqs are not 1..n: seq %d at position %d", ln.Seq, i+1)
		}
		out[i] = ln.Text
	}
	return out
}

// The server acknowledged lines 1001-2000 and no longer holds them by the
// end (its database lost them), though no request failed and nothing
// names another history: Follow with Once checks what the server holds
// before it reports done, sends those lines again from the file, and
// only then returns.
func TestFollowOnceConfirmsTheServerHoldsEveryLine(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	proxy := losingProxy(t, srv.URL, 3000, func() {
		l, err := srv.Store.LaunchByKey(context.Background(), "lossy")
		if err == nil {
			err = storetest.LoseLines(context.Background(), srv.Store.Pool(), l.ID, 1001, 2000)
		}
		if err != nil {
			t.Error(err)
		}
	})
	c, err := client.New(proxy, srv.Token)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "x.log")
	want := writeNumbered(t, log, 5000)
	res, err := Follow(context.Background(), c, FollowConfig{Path: log, StatePath: filepath.Join(dir, "state"), Once: true,
		Sender: SenderConfig{Launch: "lossy", MaxLines: 500}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sent != 5000 || res.Resent != 1000 || res.LastSeq != 5000 {
		t.Errorf("result %+v: want 5000 sent, 1000 of them again, through 5000", res)
	}
	got := storedTexts(t, srv, "lossy")
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%d lines stored, want the file's %d", len(got), len(want))
	}

	// Lost again while no shipper runs, in two places: the next Follow
	// finds both holes at its start (not only a shorter launch) and sends
	// them from the file.
	l, err := srv.Store.LaunchByKey(context.Background(), "lossy")
	if err != nil {
		t.Fatal(err)
	}
	for _, lost := range [][2]int64{{10, 19}, {4990, 4999}} {
		if err := storetest.LoseLines(context.Background(), srv.Store.Pool(), l.ID, lost[0], lost[1]); err != nil {
			t.Fatal(err)
		}
	}
	res, err = Follow(context.Background(), c, FollowConfig{Path: log, StatePath: filepath.Join(dir, "state"), Once: true,
		Sender: SenderConfig{Launch: "lossy", MaxLines: 500}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sent != 20 || res.Stored != 20 {
		t.Errorf("second Follow: %+v, want the 20 lost lines sent and stored", res)
	}
	if got := storedTexts(t, srv, "lossy"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%d lines stored after the second Follow, want the file's %d", len(got), len(want))
	}
}

// A runaway line is cut in pieces of exactly maxLineBytes however it is
// read, so the seqs of the lines after it are the same on every read.
func TestCutterIsTheSameHoweverTheBytesCome(t *testing.T) {
	t.Parallel()
	data := []byte("a\r\nbb\n" + strings.Repeat("x", 2*maxLineBytes+10) + "\r\nc\n" + strings.Repeat("y", maxLineBytes) + "\nlast")
	cutAll := func(step int) []string {
		var c cutter
		var out []string
		emit := func(text []byte, end int64) { out = append(out, fmt.Sprintf("%d:%d", len(text), end)) }
		for i := 0; i < len(data); i += step {
			c.feed(data[i:min(i+step, len(data))], emit)
		}
		c.flush(emit)
		return out
	}
	want := cutAll(len(data))
	if len(want) != 8 {
		t.Fatalf("lines %v: want a, bb, three pieces of the x line, c, the y line whole, last", want)
	}
	for _, step := range []int{1 << 20, 256 << 10, 4096, 7} {
		if got := cutAll(step); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("read %d bytes at a time: %v, want %v", step, got, want)
		}
	}
}
