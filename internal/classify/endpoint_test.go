package classify

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Lines written for this test from the servers' own format strings (uvicorn,
// aiohttp, Flask/werkzeug, Go's net/http wrappers, Spring Boot, Gradio,
// ComfyUI, KoboldCpp, actix/axum servers); values invented.
func TestAnnouncedEndpoint(t *testing.T) {
	t.Parallel()
	announce := []struct{ line, want string }{
		{"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)", "http://0.0.0.0:8000"},
		{"2026-03-01 10:00:00 | INFO | myserve.http | Uvicorn running on http://127.0.0.1:9123 (Press CTRL+C to quit)", "http://127.0.0.1:9123"},
		{"======== Running on http://0.0.0.0:8080 ========", "http://0.0.0.0:8080"},
		{" * Running on http://127.0.0.1:5000", "http://127.0.0.1:5000"},
		{"server listen http://[::]:11434", "http://[::]:11434"},
		{"Please connect to custom endpoint at http://localhost:5001", "http://localhost:5001"},
		{"To see the GUI go to: http://127.0.0.1:8188", "http://127.0.0.1:8188"},
		{"Serving on 10.1.2.3:9000", "http://10.1.2.3:9000"},
		{"listening on :8080", "http://0.0.0.0:8080"},
		{"Tomcat started on port(s): 8080 (http) with context path ''", "http://0.0.0.0:8080"},
		{"Server is listening on port 7777", "http://0.0.0.0:7777"},
		{"║   http://0.0.0.0:3000   ║", "http://0.0.0.0:3000"},
		{"**  API: http://127.0.0.1:8765  **", "http://127.0.0.1:8765"},
		{"Starting Acme inference at endpoint: http://0.0.0.0:9997", "http://0.0.0.0:9997"},
		{"gRPC server listening on 0.0.0.0:50051", "http://0.0.0.0:50051"},
		{"Running gRPC ModelServer at 0.0.0.0:8500 ...", "http://0.0.0.0:8500"},
		{"Exporting HTTP/REST API at localhost:8501 ...", "http://localhost:8501"},
		{"Server started, listening on 50051", "http://0.0.0.0:50051"},
		{"rpc server listening at 7070.", "http://0.0.0.0:7070"},
		{"HTTP server is up on port 8080", "http://0.0.0.0:8080"},
		{"Server is ready to accept requests on 0.0.0.0:50051", "http://0.0.0.0:50051"},
		{"Ready to serve at http://0.0.0.0:8080/", "http://0.0.0.0:8080"},
		{"Goin' Fast @ http://0.0.0.0:8000", "http://0.0.0.0:8000"},
		{"Running InferWeb.Endpoint with Bandit 1.5.0 at 0.0.0.0:4000 (http)", "http://0.0.0.0:4000"},
		{`INFO:     127.0.0.1:51234 - "GET /health HTTP/1.1" 200 OK`, ""},
		{`10.0.0.7 - - [01/Mar/2026 10:00:01] "GET /v1/models HTTP/1.1" 200 -`, ""},
		{`level=info msg=request method=GET path=/readyz status=200 took=1ms`, ""},
		{`[GIN] 2026/03/01 - 10:00:02 | 200 |     31.2µs |  127.0.0.1 | GET      "/health"`, ""},
		{`10.0.0.5 - - [01/Mar/2026:10:00:11 +0000] "GET / HTTP/1.0" 200 7 "-" "kube-probe/1.29"`, ""},
		{"Server ready", ""},
		{"Model server is ready to serve requests", ""},
		{"All models loaded, server ready.", ""},
		{"Worker with pid 118 ready for serving traffic", ""},
		{"Acme Inference Gateway is ready", ""},
		{"model proxy is now ready to accept connections", ""},
		{"Ready to accept requests", ""},
		{`127.0.0.1 - - [01/Mar/2026 10:00:05] "HEAD /v2 HTTP/1.1" 204 -`, ""},
	}
	for _, c := range announce {
		a := announcedEndpoint(c.line)
		if !a.ok || a.endpoint != c.want {
			t.Errorf("announcedEndpoint(%q) = %+v, want endpoint %q", c.line, a, c.want)
		}
	}
	not := []string{
		"View the dashboard at http://127.0.0.1:8265",
		"Metrics server listening on http://0.0.0.0:9090",
		"Failed to connect to http://10.0.0.2:8000: connection refused",
		"Connecting to existing cluster at address: 10.0.0.1:6379...",
		"Connecting to server at 10.0.0.1:9000",
		"The server will listen on http://0.0.0.0:8000 once the model is loaded",
		"usage: serve --host 0.0.0.0 --port 8000",
		"Downloading https://files.example.org:8443/model.bin",
		"init_process_group: tcp://10.0.0.1:29500",
		"File \"/srv/app/server.py\", line 88, in listen",
		"INFO 03-01 10:00:00 server.py:123] listening for requests soon",
		`INFO:     127.0.0.1:51234 - "GET /health HTTP/1.1" 503 Service Unavailable`,
		`INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
		"=====================================",
		"the port 8000 is already in use",
		`10.0.0.5 - - [01/Mar/2026:10:00:11 +0000] "GET / HTTP/1.0" 503 7 "-" "kube-probe/1.29"`,
		`HTTP Request: GET https://hub.example.org/api/models/acme "HTTP/1.1 200 OK"`,
		"listening on 2 sockets",
		"Tokenizer ready",
		"Ray cluster ready",
		"Engine is ready",
		"Server not ready yet, retrying",
		"Ready to accept connections",
		"the server is ready when the model loads, please wait for the readiness probe",
		"Worker 3 listening on 10 queues",
		"Not ready to accept requests on 0.0.0.0:8000 yet",
		"Endpoint with id 42 registered at 10.0.0.9:7000 failed health check",
	}
	for _, line := range not {
		if a := announcedEndpoint(line); a.ok {
			t.Errorf("announcedEndpoint(%q) = %+v, want no announcement", line, a)
		}
	}
	// An address before its bind: on the launch, no readiness.
	if a := announcedEndpoint("Starting vLLM API server 0 on http://0.0.0.0:8000"); a.ok || a.endpoint != "http://0.0.0.0:8000" {
		t.Errorf("vLLM's pre-bind line: %+v, want only its address", a)
	}
}

// TestAnnouncedAfterReady holds the shortcut a ready, bound launch takes to
// what announcedEndpoint says of the same lines: the same address where
// one is announced, none where a health request was answered or the
// endpoints are full.
func TestAnnouncedAfterReady(t *testing.T) {
	t.Parallel()
	lines := []string{
		"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)",
		"Please connect to custom endpoint at http://localhost:5001",
		"║   http://0.0.0.0:3000   ║",
		"Server is listening on port 7777",
		`INFO:     127.0.0.1:51234 - "GET /health HTTP/1.1" 200 OK`,
		`[GIN] 2026/03/01 - 10:00:02 | 200 |     31.2µs |  127.0.0.1 | GET      "/health"`,
		// an access line that also says "listening": a health answer
		`server listening: 10.0.0.9:40312 - "GET /health HTTP/1.1" 200 OK`,
		"Failed to connect to http://10.0.0.2:8000: connection refused",
		"View the dashboard at http://127.0.0.1:8265",
	}
	for _, line := range lines {
		a := announcedEndpoint(line)
		want := a.endpoint
		if a.health {
			want = ""
		}
		if got := announcedAfterReady(line, false); got.endpoint != want {
			t.Errorf("announcedAfterReady(%q) = %+v, want endpoint %q (announcedEndpoint: %+v)", line, got, want, a)
		}
		if got := announcedAfterReady(line, true); got.ok {
			t.Errorf("announcedAfterReady(%q, full) = %+v, want nothing", line, got)
		}
	}
}

// feedAll feeds lines (numbered from 1) in batches of size n.
func feedAll(s *State, lines []string, n int) {
	for i := 0; i < len(lines); i += n {
		var b []Line
		for j := i; j < min(i+n, len(lines)); j++ {
			b = append(b, Line{Seq: int64(j + 1), Text: lines[j]})
		}
		s.Feed(b)
	}
}

func TestAnnouncedReadiness(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		server string
		lines  []string
		ready  int64 // 0: not ready
	}{
		{"AfterLoadingIsReadyAtOnce", "", []string{
			"acme-serve 1.2 starting",
			"Loading model acme-7b from /models/acme-7b",
			"Loaded model in 12.3 s",
			"server listen http://0.0.0.0:8080",
		}, 4},
		{"BeforeLoadingWaitsAndLoadingCancels", "", []string{
			"acme-serve 1.2",
			"Started HTTP server on http://0.0.0.0:3000",
			"Loading model acme-7b from /models/acme-7b",
			"Model acme-7b loaded",
		}, 0},
		{"BeforeLoadingThenQuietLinesConfirm", "", []string{
			"acme-serve 1.2",
			"Started HTTP server on http://0.0.0.0:3000",
			"Press CTRL+C to quit",
			"a note",
			"another note",
		}, 2},
		{"BeforeLoadingThenRequestConfirms", "", []string{
			"acme-serve 1.2",
			"Started HTTP server on http://0.0.0.0:3000",
			`INFO:     127.0.0.1:40000 - "GET /health HTTP/1.1" 200 OK`,
		}, 2},
		{"ErrorAfterAnnouncementCancels", "", []string{
			"acme-serve 1.2",
			"Started HTTP server on http://0.0.0.0:3000",
			"2026-03-01 10:00:01 ERROR Model file /models/x.bin not found",
			"a note",
			"another note",
			"one more",
		}, 0},
		{"HealthAnsweredIsReady", "", []string{
			"acme-serve 1.2",
			`10.0.0.9 - - [01/Mar/2026 10:00:01] "GET /healthz HTTP/1.1" 200 -`,
		}, 2},
		{"BareStartedAfterLoadingIsReady", "", []string{
			"2031-03-04 10:00:00 [INFO] Loading block 1 of acme-70b",
			"2031-03-04 10:00:09 [INFO] Loaded block 1 of acme-70b",
			"2031-03-04 10:00:10 [INFO] Started",
		}, 3},
		{"BareStartedBeforeLoadingWaitsAndLoadingCancels", "", []string{
			"2031-03-04 10:00:00 [INFO] Started",
			"2031-03-04 10:00:01 [INFO] Loading block 1 of acme-70b",
		}, 0},
		{"EndpointBeforeLoadingThenServedIsReady", "", []string{
			"acme-frontend 0.3 starting",
			"HTTP service listening on 0.0.0.0:8000",
			"Loading model acme-7b from /models/acme-7b",
			"Model acme-7b loaded in 4.2 s",
			"worker registered model acme-7b with the frontend",
			`INFO:     10.0.0.5:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
		}, 6},
		{"ServedAfterAFatalErrorIsNotReady", "", []string{
			"acme-frontend 0.3 starting",
			"HTTP service listening on 0.0.0.0:8000",
			"Loading model acme-7b from /models/acme-7b",
			"CRITICAL worker died: CUDA out of memory",
			`INFO:     10.0.0.5:40000 - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
		}, 0},
		{"WarmupServedBeforeAFamilysOwnReadinessIsNotReady", "sglang", []string{
			"[2026-03-01 10:00:00] Load weight end. type=AcmeForCausalLM",
			"INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
			`INFO:     127.0.0.1:40000 - "POST /generate HTTP/1.1" 200 OK`,
		}, 0},
		{"FamilyRuleWins", "sglang", []string{
			"[2026-03-01 10:00:00] Load weight end. type=AcmeForCausalLM",
			"INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)",
			"a",
			"b",
			"c",
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for n := 1; n <= len(c.lines); n++ {
				s := New(c.server)
				feedAll(s, c.lines, n)
				var got int64
				if r := s.Summary().Ready; r != nil {
					got = r.Seq
				}
				if got != c.ready {
					t.Fatalf("batches of %d: ready at %d, want %d", n, got, c.ready)
				}
			}
		})
	}
}

func TestEndpointsOnSummary(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range maxEndpoints + 3 {
		lines = append(lines, fmt.Sprintf("INFO:     Uvicorn running on http://0.0.0.0:%d (Press CTRL+C to quit)", 8000+i))
	}
	lines = append(lines, "INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)")
	s := New("vllm")
	feedAll(s, lines, 3)
	eps := s.Summary().Endpoints
	if len(eps) != maxEndpoints || eps[0] != "http://0.0.0.0:8000" || eps[1] != "http://0.0.0.0:8001" {
		t.Fatalf("endpoints = %v, want the first %d, each once", eps, maxEndpoints)
	}
	if slices.ContainsFunc(eps, func(e string) bool { return !strings.HasPrefix(e, "http://0.0.0.0:80") }) {
		t.Fatalf("endpoints = %v", eps)
	}
	// A state saved and restored keeps them.
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Restore(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Summary().Endpoints, eps) {
		t.Fatalf("restored endpoints = %v, want %v", r.Summary().Endpoints, eps)
	}
}

// "proxy" inside the announcing program's own name is that program; as a
// word of its own it is someone else's address (dq- blind set).
func TestProxyInAProgramsNameStillAnnounces(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{
		"2031-02-03T04:05:06.000Z info  llm-proxy listening on http://0.0.0.0:8787": true,
		"auth_proxy: server listening on 0.0.0.0:9000":                              true,
		"HTTP proxy listening on http://0.0.0.0:8000":                               false,
		"Using proxy http://10.0.0.1:3128 for downloads, server listening later":    false,
	} {
		if a := announcedEndpoint(line); a.ok != want {
			t.Errorf("announcedEndpoint(%q).ok = %v, want %v", line, a.ok, want)
		}
	}
}
