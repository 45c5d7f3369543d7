package web_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The real shippers these tests drive are installed by make test's
// prerequisites (make test-deps: scripts/ensure-test-clients.sh), never by
// go test: a test that lacks one fails and says how to install it.
var (
	clientsOnce sync.Once
	clientsErr  error
	clientsDir  = filepath.Join("..", "..", "testdata", "clients")
)

func needClients(t *testing.T) {
	t.Helper()
	clientsOnce.Do(func() { clientsErr = findClients() })
	if clientsErr != nil {
		t.Fatalf("%v: run `make test-deps` (scripts/ensure-test-clients.sh) first; `make test` does", clientsErr)
	}
}

// findClients says which of the shippers is missing, if any.
func findClients() error {
	if _, err := os.Stat("/usr/sbin/syslog-ng"); err != nil {
		return fmt.Errorf("syslog-ng is not installed (/usr/sbin/syslog-ng)")
	}
	if mods, _ := filepath.Glob("/usr/lib/syslog-ng/*/libhttp.so"); len(mods) == 0 {
		return fmt.Errorf("syslog-ng's HTTP destination is not installed (syslog-ng-mod-http)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("node is not on PATH")
	}
	// The installer leaves a copy of the lock file it installed from.
	want, err := os.ReadFile(filepath.Join(clientsDir, "package-lock.json"))
	if err != nil {
		return err
	}
	if got, err := os.ReadFile(filepath.Join(clientsDir, "node_modules", ".package-lock.json.ci")); err != nil || !bytes.Equal(got, want) {
		return fmt.Errorf("the npm shipper clients in %s are not installed from its package-lock.json", clientsDir)
	}
	return nil
}

// lossyProxy forwards requests to target, but the client sees the answer
// to the first lose requests as 503: the batch was stored, the answer was
// lost, and the shipper must retry.
func lossyProxy(t *testing.T, target string, lose int32) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	var seen atomic.Int32
	// SetURL also names the target in the Host header, as a proxy in
	// front of Launchwatch without --public-url must (the server answers
	// its own host only).
	p := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }}
	p.ModifyResponse = func(r *http.Response) error {
		if seen.Add(1) <= lose && r.StatusCode < 300 {
			r.StatusCode, r.Status = http.StatusServiceUnavailable, "503 Service Unavailable"
			r.Header.Set("Retry-After", "0")
		}
		return nil
	}
	srv := newHTTPServer(t, p)
	return srv
}

func newHTTPServer(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// waitLines polls the launch until it has want lines or the time is up,
// and returns its lines.
func (b *testBundle) waitLines(key string, want int, within time.Duration) []lineView {
	b.t.Helper()
	deadline := time.Now().Add(within)
	for {
		if b.exists(key) {
			if lines := b.lines(key); len(lines) >= want || time.Now().After(deadline) {
				return lines
			}
		} else if time.Now().After(deadline) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkArrived checks that the launch holds exactly the want lines, once
// each, in order, numbered 1..n.
func checkArrived(t *testing.T, lines []lineView, want []string) {
	t.Helper()
	got := texts(lines)
	if !slices.Equal(got, want) {
		t.Fatalf("the launch has %d lines, want %d in order\n got: %q\nwant: %q", len(got), len(want), got, want)
	}
	for i, l := range lines {
		if l.Seq != int64(i+1) {
			t.Fatalf("line %q has seq %d, want %d", l.Text, l.Seq, i+1)
		}
	}
}

// metricValue scrapes /metrics for the value of one series, 0 if absent.
func (b *testBundle) metricValue(series string) float64 {
	b.t.Helper()
	r := b.do("GET", "/metrics", "", nil)
	for _, line := range strings.Split(string(r.body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			var f float64
			if _, err := fmt.Sscan(v, &f); err != nil {
				b.t.Fatalf("metric %s: %v", line, err)
			}
			return f
		}
	}
	return 0
}

// runNode runs a script of testdata/clients with node and fails the test
// when it fails.
func runNode(t *testing.T, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = clientsDir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if len(out) > 0 {
		t.Logf("node %s:\n%s", args[0], out)
	}
	if err != nil {
		t.Fatalf("node %s: %v", args[0], err)
	}
}

// TestPinoLokiClient: pino with the pino-loki transport pushes Loki JSON.
func TestPinoLokiClient(t *testing.T) {
	t.Parallel()
	needClients(t)
	b := setup(t)
	const n = 40
	env := []string{"LOKI_URL=" + b.url, "LOKI_TOKEN=" + b.srv.NewToken(t, "ingest"), "LAUNCH=pino-launch"}
	// Two runs of the client, so two pushes carry the launch, the second
	// appended after the first.
	runNode(t, env, "pino-loki.js", "0", fmt.Sprint(n/2))
	runNode(t, env, "pino-loki.js", fmt.Sprint(n/2), fmt.Sprint(n))
	lines := b.waitLines("pino-launch", n, 10*time.Second)
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf(`"msg":"pino line %d"`, i)
	}
	if len(lines) != n {
		t.Fatalf("the launch has %d lines, want %d: %q", len(lines), n, texts(lines))
	}
	for i, l := range lines {
		// The line is pino's JSON record (without hostname, which became a label).
		if !strings.Contains(l.Text, want[i]) || l.Seq != int64(i+1) {
			t.Fatalf("line %d is seq %d %q, want seq %d with %s", i, l.Seq, l.Text, i+1, want[i])
		}
	}
	l := b.launch("pino-launch")
	host, _ := os.Hostname()
	if l.Server != "vllm" || l.Host != host || l.Counts.Lines != n {
		t.Errorf("launch server %q host %q lines %d, want vllm, %q and %d", l.Server, l.Host, l.Counts.Lines, host, n)
	}
}

// TestOTelLogsClient: the OpenTelemetry JS logs SDK exports OTLP/HTTP JSON.
// The answer to its first export is lost (503), so it retries the batch;
// every record is still stored once.
func TestOTelLogsClient(t *testing.T) {
	t.Parallel()
	needClients(t)
	b := setup(t)
	proxy := lossyProxy(t, b.url, 1)
	const n = 150 // three export batches of at most 64
	runNode(t, []string{"OTLP_URL=" + proxy + "/v1/logs", "OTLP_TOKEN=" + b.srv.NewToken(t, "ingest"), "LAUNCH=otel-launch"}, "otel-logs.js", fmt.Sprint(n))
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprintf("otel line %d", i)
	}
	lines := b.waitLines("otel-launch", n, 10*time.Second)
	checkArrived(t, lines, want)
	if d := b.metricValue(`launchwatch_ingest_duplicate_lines_total{protocol="otlp"}`); d < 1 {
		t.Errorf("the exporter did not retry the export whose answer was lost (%v duplicates)", d)
	}
	l := b.launch("otel-launch")
	if l.Host != "gpu-otel" || l.Name != "otel-it" {
		t.Errorf("launch host %q name %q, want gpu-otel and otel-it", l.Host, l.Name)
	}
	r := b.do("GET", "/api/v1/launches/otel-launch/lines?after=9&limit=1", "", nil)
	if !bytes.Contains(r.body, []byte(`"level":"WARN"`)) {
		t.Errorf("line 10 does not keep its WARN severity: %s", r.body)
	}
}

// TestSyslogNGClient: Debian's syslog-ng tails a log file into the native
// NDJSON endpoint, without seq, with its own timestamp. Lines written
// before and while it runs arrive once and in order, also when the answer
// to its first batch is lost and it sends the batch again.
func TestSyslogNGClient(t *testing.T) {
	t.Parallel()
	needClients(t)
	b := setup(t)
	proxy := lossyProxy(t, b.url, 1)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "server.log")

	var want []string
	write := func(from, to int) {
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		for i := from; i < to; i++ {
			// Quotes, backslashes, tabs and non-ASCII must survive format-json.
			line := fmt.Sprintf("[2026-11-29 12:00:%02d TP%d] line %d \"quoted\" back\\slash\ttab µs ✓", i%60, i%8, i)
			want = append(want, line)
			fmt.Fprintln(f, line)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write(0, 120)

	conf := fmt.Sprintf(`@version: 3.38
options { time-reopen(1); frac-digits(6); stats_freq(0); };
source s_tail { file(%q follow-freq(0.1) flags(no-parse)); };
destination d_http {
  http(url(%q)
       method("POST")
       headers("Content-Type: application/x-ndjson" "Authorization: Bearer %s")
       body('$(format-json --scope none line=${MESSAGE} ts=${ISODATE})')
       delimiter("\n") batch-lines(50) batch-timeout(200) timeout(10)
       response-action(400 => drop));
};
log { source(s_tail); destination(d_http); flags(flow-control); };
`, logFile, proxy+"/api/v1/launches/sng-launch/lines?server=sglang&host=gpu-sng", b.srv.NewToken(t, "ingest"))
	confFile := filepath.Join(dir, "syslog-ng.conf")
	if err := os.WriteFile(confFile, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command("/usr/sbin/syslog-ng", "--foreground", "--stderr", "--no-caps",
		"--cfgfile="+confFile, "--persist-file="+filepath.Join(dir, "sng.persist"),
		"--pidfile="+filepath.Join(dir, "sng.pid"), "--control="+filepath.Join(dir, "sng.ctl"))
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() //nolint:errcheck // the exit status of a stopped daemon says nothing
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cmd.Process.Signal(os.Interrupt) //nolint:errcheck // it may have exited
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill() //nolint:errcheck // last resort
			<-exited
		}
		t.Logf("syslog-ng output:\n%s", stderr.String())
	}
	t.Cleanup(stop)
	wait := func(n int) []lineView {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			select {
			case <-exited:
				t.Fatal("syslog-ng exited early")
			default:
			}
			var lines []lineView
			if b.exists("sng-launch") {
				lines = b.lines("sng-launch")
			}
			if len(lines) >= n {
				return lines
			}
			if time.Now().After(deadline) {
				t.Fatalf("after 20 s the launch has %d of %d lines", len(lines), n)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	wait(120)
	write(120, 200) // appended while syslog-ng follows the file
	lines := wait(200)
	stop()
	checkArrived(t, lines, want)
	if got := b.lines("sng-launch"); len(got) != len(want) {
		t.Errorf("after syslog-ng stopped the launch has %d lines, want %d", len(got), len(want))
	}
	if d := b.metricValue(`launchwatch_ingest_duplicate_lines_total{protocol="native"}`); d < 1 {
		t.Errorf("syslog-ng did not resend the batch whose answer was lost (%v duplicates)", d)
	}
	l := b.launch("sng-launch")
	if l.Server != "sglang" || l.Host != "gpu-sng" {
		t.Errorf("launch server %q host %q, want sglang and gpu-sng", l.Server, l.Host)
	}
}
