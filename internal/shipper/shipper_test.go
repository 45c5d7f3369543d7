package shipper

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"launchwatch/internal/client"
	"launchwatch/internal/store/storetest"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// flakyProxy forwards to a real server but first answers failures: a
// shipper must retry through them without losing or doubling a line.
func flakyProxy(t *testing.T, target string, failures int, status int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }} // names the target in Host, as the server checks
	var posts atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/lines") {
			if n := posts.Add(1); n <= int64(failures) {
				w.Header().Set("Retry-After", "0")
				http.Error(w, `{"error":"try later"}`, status)
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &posts
}

func storedCount(t *testing.T, st *webtest.Server, key string) int64 {
	t.Helper()
	l, err := st.Store.LaunchByKey(context.Background(), key)
	if err != nil {
		return 0
	}
	return l.LineCount
}

func TestFollowOnceBatchesAndRetries(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests} {
		t.Run(fmt.Sprintf("Through%d", status), func(t *testing.T) {
			t.Parallel()
			srv := webtest.Start(t, web.Config{})
			proxy, posts := flakyProxy(t, srv.URL, 3, status)
			c, err := client.New(proxy.URL, webtest.AdminToken)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			log := filepath.Join(dir, "x.log")
			var body strings.Builder
			for i := 1; i <= 1050; i++ {
				fmt.Fprintf(&body, "line %d\n", i)
			}
			if err := os.WriteFile(log, []byte(body.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Follow(context.Background(), c, FollowConfig{Path: log, StatePath: filepath.Join(dir, "state"), Once: true,
				Sender: SenderConfig{Launch: "flaky", MaxLines: 100}})
			if err != nil {
				t.Fatal(err)
			}
			if n := storedCount(t, srv, "flaky"); n != 1050 || res.Sent != 1050 || res.Stored != 1050 {
				t.Errorf("%d lines stored, result %+v; want 1050 sent and stored", n, res)
			}
			if p := posts.Load(); p != 11+3 {
				t.Errorf("%d posts, want 11 batches of at most 100 lines plus 3 refused", p)
			}
			st, err := LoadState(filepath.Join(dir, "state"))
			if err != nil || st.Seq != 1050 || st.Offset != int64(body.Len()) || st.HeadLen != headMax || st.Server != c.BaseURL() {
				t.Errorf("state = %+v, %v; want seq 1050 at offset %d, a 4 KiB fingerprint and the server", st, err, body.Len())
			}
		})
	}
}

func TestSenderStopsOnARefusedBatch(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	c, err := client.New(srv.URL, srv.Token)
	if err != nil {
		t.Fatal(err)
	}
	q := NewQueue()
	q.Push(client.Line{Seq: 1, Text: "ok", TS: time.Now()})
	q.Close()
	// An invalid launch key is refused for good (400): no endless retry,
	// and the line stays queued.
	err = NewSender(c, q, SenderConfig{Launch: "bad key"}).Run(context.Background())
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || q.Len() != 1 {
		t.Errorf("err = %v, queued %d; want a 400 and the line kept", err, q.Len())
	}
}

func TestSenderHeartbeatsWhileIdle(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	c, err := client.New(srv.URL, srv.Token)
	if err != nil {
		t.Fatal(err)
	}
	q := NewQueue()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- NewSender(c, q, SenderConfig{Launch: "idle", Heartbeat: 50 * time.Millisecond}).Run(ctx)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l, err := srv.Store.LaunchByKey(context.Background(), "idle")
		if err == nil && l.LastHeartbeatAt != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no heartbeat reached the server")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
}

// A batch refused for good ends Follow with that error even while it
// follows the file: it must not keep reading and hang silently.
func TestFollowStopsOnARefusedBatch(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	c, err := client.New(srv.URL, srv.Token)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "x.log")
	if err := os.WriteFile(log, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = Follow(ctx, c, FollowConfig{Path: log, StatePath: filepath.Join(dir, "state"), Poll: 10 * time.Millisecond,
		Sender: SenderConfig{Launch: "bad key"}})
	var ae *client.APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ctx.Err() != nil {
		t.Errorf("Follow = %v (ctx %v); want the server's 400 before the deadline", err, ctx.Err())
	}
}

// Only a rotated copy of the file is resumed: the inode of a deleted file
// may have been given to an unrelated one beside it.
func TestFindRotated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	idOf := func(name string) (uint64, uint64) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fileID(fi)
	}
	path := filepath.Join(dir, "server.log")
	dev, ino := idOf("server.log.1")
	if f := findRotated(path, dev, ino); f == nil {
		t.Error("server.log.1 not found")
	} else {
		f.Close()
	}
	if dev, ino := idOf("other.log"); findRotated(path, dev, ino) != nil {
		t.Error("other.log taken for a rotated server.log")
	}
}
