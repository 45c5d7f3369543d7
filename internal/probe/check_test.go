package probe

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// server serves status codes by path (404 for the others) and counts the
// requests of each path.
type server struct {
	*httptest.Server
	mu    sync.Mutex
	codes map[string]int
	asked map[string]int
}

func newServer(t *testing.T, codes map[string]int) *server {
	t.Helper()
	s := &server{codes: codes, asked: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.asked[r.URL.Path]++
		code, ok := s.codes[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			code = http.StatusNotFound
		}
		if code/100 == 3 {
			w.Header().Set("Location", "/elsewhere")
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) set(path string, code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[path] = code
}

func (s *server) requests(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked[path]
}

func targetOf(t *testing.T, url string) Target {
	t.Helper()
	ap := netip.MustParseAddrPort(strings.TrimPrefix(url, "http://"))
	return Target{Scheme: "http", Host: ap.Addr().String(), Port: ap.Port(), Source: SourceProc}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("TheFirstPathThatAnswersDecides", func(t *testing.T) {
		t.Parallel()
		for _, tt := range []struct {
			name   string
			family string
			codes  map[string]int
			ok     bool
			detail string
		}{
			{"HealthPasses", "", map[string]int{"/health": 200, "/": 200}, true, "/health: HTTP 200"},
			{"OnlyTheRoot", "", map[string]int{"/": 200}, true, "/: HTTP 200"},
			{"ModelsAnswer", "", map[string]int{"/v1/models": 200}, true, "/v1/models: HTTP 200"},
			// A 503 on /health is the server saying it is not ready: the
			// 200 of its root page does not overrule it.
			{"NotReadyIsNotOverruledByTheRoot", "", map[string]int{"/health": 503, "/": 200}, false, "/health: HTTP 503"},
			{"MethodNotAllowedIsNoSuchPath", "", map[string]int{"/health": 405, "/": 204}, true, "/: HTTP 204"},
			{"ARedirectIsAnAnswer", "", map[string]int{"/": 307}, true, "/: HTTP 307"},
			{"TheFamilysPathFirst", "triton", map[string]int{"/v2/health/ready": 400, "/health": 200}, false, "/v2/health/ready: HTTP 400"},
			{"TritonReady", "triton", map[string]int{"/v2/health/ready": 200}, true, "/v2/health/ready: HTTP 200"},
			{"NoPathAtAll", "", map[string]int{}, false, "no health path (/health 404, /v1/models 404, / 404)"},
		} {
			s := newServer(t, tt.codes)
			r := NewChecker(time.Second).Check(ctx, targetOf(t, s.URL), Paths(tt.family))
			if r.OK != tt.ok || !strings.HasSuffix(r.Detail, tt.detail) || r.NotHTTP {
				t.Errorf("%s: Check = %+v, want ok %v and a detail ending %q", tt.name, r, tt.ok, tt.detail)
			}
		}
	})

	// Once a path answered, it is asked first: a ready /health is not
	// preceded by /v1/models and / every round, and a server that starts
	// answering / later (a UI) does not overrule its /health.
	t.Run("TheAnsweringPathIsRemembered", func(t *testing.T) {
		t.Parallel()
		s := newServer(t, map[string]int{"/v1/models": 503})
		c := NewChecker(time.Second)
		tg := targetOf(t, s.URL)
		if r := c.Check(ctx, tg, Paths("")); r.OK || !r.Answered {
			t.Fatalf("first check = %+v, want an answered failure", r)
		}
		s.set("/health", 503) // now both answer; /v1/models answered first
		s.set("/", 200)
		if r := c.Check(ctx, tg, Paths("")); r.OK || !strings.HasSuffix(r.Detail, "/v1/models: HTTP 503") {
			t.Errorf("second check = %+v, want /v1/models asked first", r)
		}
		s.set("/v1/models", 200)
		if r := c.Check(ctx, tg, Paths("")); !r.OK {
			t.Errorf("third check = %+v, want a pass", r)
		}
		if n := s.requests("/"); n != 0 {
			t.Errorf("/ asked %d times, want never (a path before it answered)", n)
		}
		c.Forget()
		if r := c.Check(ctx, tg, Paths("")); r.OK || !strings.HasSuffix(r.Detail, "/health: HTTP 503") {
			t.Errorf("after Forget = %+v, want the paths in order again", r)
		}
	})

	t.Run("NothingListens", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		r := NewChecker(time.Second).Check(ctx, targetOf(t, "http://"+addr), Paths(""))
		if r.OK || r.Answered || r.NotHTTP || !strings.Contains(r.Detail, "refused") {
			t.Errorf("Check = %+v, want a refused connection", r)
		}
	})

	// A port that speaks another protocol (a rendezvous store, ZMQ) hangs
	// up on an HTTP request or answers garbage: it is no HTTP port.
	t.Run("NotHTTP", func(t *testing.T) {
		t.Parallel()
		for name, reply := range map[string]string{"HangsUp": "", "Garbage": "\x00\x01\x02 not http at all\r\n\r\n"} {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			go func() {
				for {
					conn, err := l.Accept()
					if err != nil {
						return
					}
					buf := make([]byte, 1024)
					conn.Read(buf)            //nolint:errcheck
					conn.Write([]byte(reply)) //nolint:errcheck
					conn.Close()
				}
			}()
			c := NewChecker(time.Second)
			tg := targetOf(t, "http://"+l.Addr().String())
			if r := c.Check(ctx, tg, Paths("")); r.OK || !r.NotHTTP || !c.NotHTTP(tg) {
				t.Errorf("%s: Check = %+v, want not HTTP", name, r)
			}
		}
	})

	// A server that accepts and never answers costs one timeout, not one
	// per path.
	t.Run("ASilentSocketTimesOutOnce", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0") // the kernel accepts; nobody reads
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		start := time.Now()
		r := NewChecker(200*time.Millisecond).Check(ctx, targetOf(t, "http://"+l.Addr().String()), Paths(""))
		if took := time.Since(start); r.OK || r.NotHTTP || took > 5*time.Second {
			t.Errorf("Check = %+v after %s, want one timed-out failure", r, took)
		}
	})

	t.Run("ACanceledContextEndsAProbeAtOnce", func(t *testing.T) {
		t.Parallel()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		ctx, cancel := context.WithCancel(ctx)
		done := make(chan Result, 1)
		go func() { done <- NewChecker(time.Hour).Check(ctx, targetOf(t, "http://"+l.Addr().String()), Paths("")) }()
		cancel()
		select {
		case r := <-done:
			if r.OK {
				t.Errorf("Check = %+v", r)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a canceled probe did not return")
		}
	})
}
