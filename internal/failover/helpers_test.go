package failover

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"launchwatch/internal/store/storetest"
	"launchwatch/internal/web/webtest"
)

// webBin and cliBin are cmd/web and cmd/launchwatch, built once.
var webBin, cliBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lwfailover-bin-")
	if err != nil {
		panic(err)
	}
	webBin, cliBin = filepath.Join(dir, "web"), filepath.Join(dir, "launchwatch")
	for bin, pkg := range map[string]string{webBin: "../../cmd/web", cliBin: "../../cmd/launchwatch"} {
		if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building %s: %v\n%s", pkg, err, out)
			os.Exit(1)
		}
	}
	defer os.RemoveAll(dir)
	storetest.Main(m)
}

// token is the web node's admin token (--bootstrap-token); the shippers
// and the test use it.
const token = webtest.AdminToken

// syncBuffer is a process's output, read while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// start runs a process whose output is kept, killed when the test ends,
// its output logged when the test failed.
func start(t *testing.T, env []string, name string, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill() //nolint:errcheck
			cmd.Wait()         //nolint:errcheck
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(name), out)
		}
	})
	return cmd, out
}

// env is this process's environment without Launchwatch's and libpq's
// variables, plus extra.
func env(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LAUNCHWATCH_") && !strings.HasPrefix(kv, "DATABASE_") && !strings.HasPrefix(kv, "PG") {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startWeb runs cmd/web on dbURL and waits until it answers.
func startWeb(t *testing.T, dbURL string) (string, *syncBuffer) {
	t.Helper()
	addr := freeAddr(t)
	_, out := start(t, env(), webBin, "--addr", addr, "--database-url", dbURL, "--bootstrap-token", token,
		"--log-level", "warn", "--settle-after", "500ms",
		"--webhook-allow-private") // the test's webhook receiver listens on 127.0.0.1
	u := "http://" + addr
	eventually(t, time.Minute, "cmd/web to answer", func() bool {
		res, err := http.Get(u + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	return u, out
}

// eventually polls cond until it holds, failing after within.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition
	}
}

// statusProxy forwards the shippers' requests to the web node and counts
// its answers by status, so that every answer any shipper got is judged.
type statusProxy struct {
	url string
	mu  sync.Mutex
	// statuses counts answers by status; others keeps a few 5xx answers
	// other than 503, for the failure message.
	statuses map[int]int
	others   []string
	// unavailable is when a request of a launch's path was last answered 503.
	unavailable map[string]time.Time
}

func newStatusProxy(t *testing.T, target string) *statusProxy {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p := &statusProxy{statuses: map[int]int{}, unavailable: map[string]time.Time{}}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }}
	rp.ModifyResponse = func(r *http.Response) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.statuses[r.StatusCode]++
		if r.StatusCode == http.StatusServiceUnavailable {
			if key, ok := strings.CutPrefix(r.Request.URL.Path, "/api/v1/launches/"); ok {
				key, _, _ = strings.Cut(key, "/")
				p.unavailable[key] = time.Now()
			}
		}
		if r.StatusCode >= 500 && r.StatusCode != http.StatusServiceUnavailable && len(p.others) < 20 {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 500))
			r.Body = io.NopCloser(bytes.NewReader(body))
			p.others = append(p.others, fmt.Sprintf("%s %s: %d %s", r.Request.Method, r.Request.URL.Path, r.StatusCode, body))
		}
		return nil
	}
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		// The web node itself did not answer: that is no 503 of its own.
		p.mu.Lock()
		p.statuses[http.StatusBadGateway]++
		p.others = append(p.others, fmt.Sprintf("%s %s: web node unreachable: %v", r.Method, r.URL.Path, err))
		p.mu.Unlock()
		w.WriteHeader(http.StatusBadGateway)
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// unavailableSince reports whether a request of launch key was answered
// 503 after t.
func (p *statusProxy) unavailableSince(key string, t time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unavailable[key].After(t)
}

func (p *statusProxy) summary() (counts string, bad []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var codes []int
	for c := range p.statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d×%d", c, p.statuses[c]))
		if c >= 500 && c != http.StatusServiceUnavailable {
			bad = append(bad, fmt.Sprintf("%d answers %d", p.statuses[c], c))
		}
	}
	return strings.Join(parts, " "), append(bad, p.others...)
}

// hookReceiver is a webhook target that records every delivery.
type hookReceiver struct {
	url string
	mu  sync.Mutex
	got []hook
}

type hook struct {
	launch, event, delivery string
	at                      time.Time
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body struct {
			Launch string `json:"launch"`
			Event  string `json:"event"`
		}
		raw, _ := io.ReadAll(req.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("webhook body: %v: %s", err, raw)
		}
		r.mu.Lock()
		r.got = append(r.got, hook{launch: body.Launch, event: req.Header.Get("X-Launchwatch-Event"),
			delivery: req.Header.Get("X-Launchwatch-Delivery"), at: time.Now()})
		r.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL
	return r
}

func (r *hookReceiver) deliveries() []hook {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hook(nil), r.got...)
}

// of is the deliveries of event for launch.
func (r *hookReceiver) of(launch, event string) []hook {
	var out []hook
	for _, h := range r.deliveries() {
		if h.launch == launch && h.event == event {
			out = append(out, h)
		}
	}
	return out
}

// api calls the web node as its admin and decodes the JSON answer into v
// (when not nil); it returns the status.
func api(t *testing.T, method, url string, body string, v any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if v != nil && res.StatusCode/100 == 2 {
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("%s %s: %v: %s", method, url, err, data)
		}
	}
	return res.StatusCode
}

// runs is what the server holds of a launch (GET /seqs), as JSON, or ""
// when it does not answer 200.
func runs(t *testing.T, web, launch string) string {
	t.Helper()
	var page struct {
		Runs json.RawMessage `json:"runs"`
	}
	if api(t, "GET", web+"/api/v1/launches/"+launch+"/seqs", "", &page) != 200 {
		return ""
	}
	return string(page.Runs)
}

// lastSeq is the launch's last stored seq on the web node (0 when it does
// not answer).
func lastSeq(t *testing.T, web, launch string) int64 {
	t.Helper()
	var l struct {
		LastSeq int64 `json:"last_seq"`
	}
	if api(t, "GET", web+"/api/v1/launches/"+launch+"?wait=0", "", &l) != 200 {
		return 0
	}
	return l.LastSeq
}

// storedTexts is every stored line of a launch, in seq order; it fails
// unless the seqs are 1..n.
func storedTexts(t *testing.T, web, launch string) []string {
	t.Helper()
	var all []string
	for after := int64(0); ; {
		var page struct {
			Lines []struct {
				Seq  int64  `json:"seq"`
				Text string `json:"text"`
			} `json:"lines"`
			NextAfter *int64 `json:"next_after"`
		}
		if st := api(t, "GET", fmt.Sprintf("%s/api/v1/launches/%s/lines?limit=10000&after=%d", web, launch, after), "", &page); st != 200 {
			t.Fatalf("lines of %s: %d", launch, st)
		}
		for _, l := range page.Lines {
			if int64(len(all)+1) != l.Seq {
				t.Fatalf("%s: stored seqs are not 1..n: seq %d at position %d", launch, l.Seq, len(all)+1)
			}
			all = append(all, l.Text)
		}
		if page.NextAfter == nil {
			return all
		}
		after = *page.NextAfter
	}
}

// equalLines requires got to be want, line for line.
func equalLines(t *testing.T, launch string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d lines stored, want %d", launch, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Errorf("%s: line %d = %q, want %q", launch, i+1, got[i], want[i])
			return
		}
	}
}

// interrupt sends SIGINT to cmd and waits for its exit code.
func interrupt(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	cmd.Process.Signal(syscall.SIGINT) //nolint:errcheck
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }() //nolint:errcheck // the exit code is read below
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s did not stop after SIGINT", cmd.Path)
	}
	return cmd.ProcessState.ExitCode()
}
