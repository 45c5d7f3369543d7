// Package webtest starts a real Launchwatch server for tests: the web
// handlers on an httptest server, a fresh migrated database of its own, and
// a live hub fed by PostgreSQL LISTEN, as cmd/web wires them.
package webtest

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/ingest"
	"launchwatch/internal/live"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
	"launchwatch/internal/web"
)

// Server is a running test server.
type Server struct {
	URL     string // http://127.0.0.1:port
	DBURL   string // its database, for other processes to share
	Store   *store.Store
	Hub     *live.Hub
	Handler *httptest.Server
	Clock   clock.Clock // the server's clock: a *clock.Fake given WithClock, else the wall clock
}

// Option configures a test server.
type Option func(*options)

type options struct{ pipe []ingest.Option }

// WithClock runs the server (its ingest and its settler) on c, so a test
// moves time by hand instead of sleeping.
func WithClock(c clock.Clock) Option {
	return func(o *options) { o.pipe = append(o.pipe, ingest.WithClock(c)) }
}

// WithSettleAfter sets the server's settle bound (--settle-after).
func WithSettleAfter(d time.Duration) Option {
	return func(o *options) { o.pipe = append(o.pipe, ingest.WithSettleAfter(d)) }
}

// Start runs a server with cfg for the rest of the test, with a settler as
// cmd/web runs one. The package's TestMain must call storetest.Main.
func Start(t testing.TB, cfg web.Config, opts ...Option) *Server {
	t.Helper()
	pool, dbURL := storetest.NewDB(t)
	st := store.New(pool)
	log := slog.New(slog.NewTextHandler(logWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	hub := live.NewHub()
	ctx, cancel := context.WithCancel(context.Background())
	listening := make(chan struct{})
	go func() {
		defer close(listening)
		live.Listen(ctx, pool, store.NotifyChannel, hub, log)
	}()
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	clk := clock.Clock(clock.Real{})
	pipe := ingest.NewPipeline(st, log, append([]ingest.Option{ingest.WithClock(clk)}, o.pipe...)...)
	settling := make(chan struct{})
	go func() {
		defer close(settling)
		pipe.RunSettler(ctx)
	}()
	cfg.Hub = hub
	// Listen first, so the server knows its address and checks the Host
	// header as cmd/web does on a loopback address.
	srv := httptest.NewUnstartedServer(nil)
	if cfg.ListenAddr == "" {
		cfg.ListenAddr = srv.Listener.Addr().String()
	}
	srv.Config.Handler = web.New(cfg, st, pipe, log)
	srv.Start()
	t.Cleanup(func() {
		hub.Close()
		srv.Close()
		cancel()
		<-listening
		<-settling
	})
	return &Server{URL: srv.URL, DBURL: dbURL, Store: st, Hub: hub, Handler: srv, Clock: pipe.Clock()}
}

// logWriter sends the server's log to t.Log.
type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
