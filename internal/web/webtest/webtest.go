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
}

// Start runs a server with cfg for the rest of the test. The package's
// TestMain must call storetest.Main.
func Start(t testing.TB, cfg web.Config) *Server {
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
	cfg.Hub = hub
	srv := httptest.NewServer(web.New(cfg, st, ingest.NewPipeline(st, log), log))
	t.Cleanup(func() {
		hub.Close()
		srv.Close()
		cancel()
		<-listening
	})
	return &Server{URL: srv.URL, DBURL: dbURL, Store: st, Hub: hub, Handler: srv}
}

// logWriter sends the server's log to t.Log.
type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
