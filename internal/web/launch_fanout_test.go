package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// launchReads counts the statements that read launch key by its key: what
// every live client did on every change before feeds.
type launchReads struct {
	key string
	n   atomic.Int64
}

func (r *launchReads) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	if strings.Contains(d.SQL, "FROM launches l WHERE l.key = $1") && len(d.Args) == 1 && d.Args[0] == r.key {
		r.n.Add(1)
	}
	return ctx
}

func (r *launchReads) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// A hundred clients follow one launch on one node: each change is read
// once for all of them (not once each), and each gets the very same bytes,
// every line once and in order.
func TestLaunchLiveReadsEachChangeOnceForAllFollowers(t *testing.T) {
	t.Parallel()
	reads := &launchReads{key: "fanout"}
	srv := webtest.Start(t, web.Config{}, webtest.WithTracer(reads))
	b := &testBundle{t: t, url: srv.URL, store: srv.Store, srv: srv}
	b.postText("/api/v1/launches/fanout/lines?server=sglang", "first line\n")

	const followers, batches, perBatch = 100, 10, 20
	type follower struct {
		mu    sync.Mutex
		raw   [][]byte
		lines int
	}
	fs := make([]*follower, followers)
	var wg sync.WaitGroup
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/api/v1/launches/fanout/live?after=1"
	for i := range fs {
		ws, _, err := websocket.DefaultDialer.Dial(url, adminHeader(nil))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		f := &follower{}
		fs[i] = f
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				_, data, err := ws.ReadMessage()
				if err != nil {
					return
				}
				var m liveMsg
				if err := json.Unmarshal(data, &m); err != nil {
					t.Errorf("follower message %s: %v", data, err)
					return
				}
				f.mu.Lock()
				if m.Type == "lines" {
					f.raw = append(f.raw, data)
					f.lines += len(m.Lines)
				}
				f.mu.Unlock()
			}
		}()
	}
	countAll := func(want int) func() bool {
		return func() bool {
			for _, f := range fs {
				f.mu.Lock()
				n := f.lines
				f.mu.Unlock()
				if n != want {
					return false
				}
			}
			return true
		}
	}
	waitFor(t, 30*time.Second, "every client counted", func() bool { return srv.Hub.Subscribers() == followers })
	before := reads.n.Load()
	for k := range batches {
		var body strings.Builder
		for i := range perBatch {
			fmt.Fprintf(&body, "batch %d line %d\n", k, i)
		}
		b.postText("/api/v1/launches/fanout/lines", body.String())
		waitFor(t, 30*time.Second, fmt.Sprintf("batch %d at every follower", k), countAll((k+1)*perBatch))
	}
	// One read per change, and perhaps the feed's poll: not one per client.
	if n := reads.n.Load() - before; n > 2*batches {
		t.Errorf("%d reads of the launch for %d changes followed by %d clients, want about one a change", n, batches, followers)
	}
	for i, f := range fs {
		f.mu.Lock()
		if len(f.raw) != len(fs[0].raw) {
			t.Fatalf("follower %d got %d messages of lines, follower 0 %d", i, len(f.raw), len(fs[0].raw))
		}
		for j := range f.raw {
			if !bytes.Equal(f.raw[j], fs[0].raw[j]) {
				t.Fatalf("follower %d message %d differs from follower 0's", i, j)
			}
		}
		f.mu.Unlock()
	}
	var seqs []int64
	for _, data := range fs[0].raw {
		var m liveMsg
		json.Unmarshal(data, &m) //nolint:errcheck // read above
		for _, l := range m.Lines {
			seqs = append(seqs, l.Seq)
		}
	}
	for i, s := range seqs {
		if s != int64(i)+2 {
			t.Fatalf("lines %v: not 2..%d once each in order", seqs, batches*perBatch+1)
		}
	}
}
