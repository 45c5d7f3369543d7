package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
	"launchwatch/internal/web"
)

func TestLinesAPI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var body strings.Builder
	for i := 1; i <= 25; i++ {
		fmt.Fprintf(&body, "l%d\n", i)
	}
	b.postText("/api/v1/launches/paged/lines", body.String())

	t.Run("Pages", func(t *testing.T) {
		r := b.do("GET", "/api/v1/launches/paged/lines?after=5&limit=10", "", nil)
		var p linesPage
		decodeOK(t, r, &p)
		if len(p.Lines) != 10 || p.Lines[0].Seq != 6 || p.Lines[9].Seq != 15 || p.NextAfter == nil || *p.NextAfter != 15 {
			t.Errorf("page = %d lines from %d, next_after %v", len(p.Lines), p.Lines[0].Seq, p.NextAfter)
		}
		r = b.do("GET", "/api/v1/launches/paged/lines?after=15&limit=10", "", nil)
		p = linesPage{}
		decodeOK(t, r, &p)
		if len(p.Lines) != 10 || p.NextAfter != nil {
			t.Errorf("last page = %d lines, next_after %v; want 10 and none", len(p.Lines), p.NextAfter)
		}
	})

	t.Run("AllLinesByDefault", func(t *testing.T) {
		if got := b.lines("paged"); len(got) != 25 || got[24].Text != "l25" {
			t.Errorf("%d lines", len(got))
		}
	})

	t.Run("BadParameters", func(t *testing.T) {
		for _, q := range []string{"limit=0", "limit=10001", "limit=x", "after=-1", "after=1.5"} {
			r := b.do("GET", "/api/v1/launches/paged/lines?"+q, "", nil)
			if r.status != http.StatusBadRequest || errorMessage(t, r) == "" {
				t.Errorf("%s: got %d %s, want 400", q, r.status, r.body)
			}
		}
	})

	t.Run("UnknownLaunchIs404", func(t *testing.T) {
		for _, path := range []string{"/api/v1/launches/nope", "/api/v1/launches/nope/lines"} {
			if r := b.do("GET", path, "", nil); r.status != http.StatusNotFound || errorMessage(t, r) != "not found" {
				t.Errorf("%s: got %d %s", path, r.status, r.body)
			}
		}
	})

	t.Run("UnknownRouteIs404JSON", func(t *testing.T) {
		if r := b.do("GET", "/api/v1/nothing", "", nil); r.status != http.StatusNotFound {
			t.Errorf("got %d", r.status)
		}
		if r := b.do("DELETE", "/api/v1/launches/paged/lines", "", nil); r.status != http.StatusMethodNotAllowed {
			t.Errorf("DELETE lines: got %d, want 405", r.status)
		}
	})
}

func TestHealth(t *testing.T) {
	t.Parallel()

	t.Run("DatabaseUp", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for _, path := range []string{"/healthz", "/readyz"} {
			if r := b.do("GET", path, "", nil); r.status != http.StatusOK {
				t.Errorf("%s: %d %s", path, r.status, r.body)
			}
		}
	})

	t.Run("DatabaseDownMeans503AndRetryAfter", func(t *testing.T) {
		t.Parallel()
		// A pool on a socket directory where no server listens.
		pool, err := pgxpool.New(context.Background(), "host="+t.TempDir()+" user=postgres dbname=x connect_timeout=2")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		st := store.New(pool)
		log := slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelError}))
		srv := httptest.NewServer(web.New(web.Config{}, st, pipeline.New(st, log), log))
		t.Cleanup(srv.Close)
		b := &testBundle{t: t, url: srv.URL, store: st}

		if r := b.do("GET", "/healthz", "", nil); r.status != http.StatusOK {
			t.Errorf("healthz: %d, want 200 (the process is alive)", r.status)
		}
		if r := b.do("GET", "/readyz", "", nil); r.status != http.StatusServiceUnavailable {
			t.Errorf("readyz: %d, want 503", r.status)
		}
		r := b.do("POST", "/api/v1/launches/x/lines", "text/plain", []byte("a\n"))
		if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
			t.Errorf("ingest with the database down: %d %s (Retry-After %q), want 503 with Retry-After",
				r.status, r.body, r.header.Get("Retry-After"))
		}
	})
}

func decodeOK(t *testing.T, r response, v any) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatal(err)
	}
}
