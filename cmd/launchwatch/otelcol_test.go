package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// otelcolBin is the OpenTelemetry Collector that make test-deps builds
// (scripts/ensure-otelcol.sh, from scripts/otelcol/builder.yaml); go test
// builds nothing, so a test without it fails and says how to get it.
func otelcolBin(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("bash", filepath.Join("..", "..", "scripts", "ensure-otelcol.sh"), "--path").Output()
	if err != nil {
		t.Fatalf("scripts/ensure-otelcol.sh --path: %v", err)
	}
	bin := strings.TrimSpace(string(out))
	if fi, err := os.Stat(bin); err != nil || fi.Mode()&0o111 == 0 {
		t.Fatalf("the OpenTelemetry Collector is not built (%s): run `make test-deps` (scripts/ensure-otelcol.sh) first; `make test` does", bin)
	}
	return bin
}

// otelcolConfig is the Collector configuration docs/shippers.md gives, as
// it gives it (so the page shows what is tested), pointed at one file,
// launch and endpoint: the filelog receiver reads the file from its start
// and keeps every line as written (no whitespace trimmed), numbers its
// lines (part of the duplicate key), and names the launch in a resource
// attribute; the otlphttp exporter authenticates with the bearertokenauth
// extension, retries without giving up, and sends one request at a time,
// so lines are numbered in the file's order.
func otelcolConfig(t *testing.T, file, launch, endpoint string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "shippers.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "The configuration the test runs")
	if ok {
		_, rest, ok = strings.Cut(rest, "```yaml\n")
	}
	conf, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/shippers.md has no Collector configuration after \"The configuration the test runs\"")
	}
	for _, r := range [][2]string{{"/var/log/sglang/run42.log", file}, {"sglang-7b-run42", launch}, {"http://launchwatch:8080", endpoint},
		{"launchwatch.server: sglang", "launchwatch.server: vllm"}} {
		if !strings.Contains(conf, r[0]) {
			t.Fatalf("the Collector configuration of docs/shippers.md has no %q:\n%s", r[0], conf)
		}
		conf = strings.ReplaceAll(conf, r[0], r[1])
	}
	return conf
}

// killingProxy forwards to target. Once armed, the first OTLP export the
// server answers 200 kills the server (SIGKILL) before the answer reaches
// the Collector, which sees a 502: the batch is stored, its answer lost,
// as when a server dies between its commit and its reply. Until the
// server is back every request fails with 502 and is counted.
type killingProxy struct {
	mu     sync.Mutex
	armed  *webProc // the server to kill at the next stored export
	killed chan struct{}
	failed int // requests that failed while the server was down
}

func (p *killingProxy) start(t *testing.T, target string) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	p.killed = make(chan struct{})
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(u) }}
	rp.ModifyResponse = func(r *http.Response) error {
		p.mu.Lock()
		w := p.armed
		if w == nil || r.Request.URL.Path != "/v1/logs" || r.StatusCode != http.StatusOK {
			p.mu.Unlock()
			return nil
		}
		p.armed = nil
		p.mu.Unlock()
		io.Copy(io.Discard, r.Body) //nolint:errcheck // the answer the Collector never gets
		w.cmd.Process.Kill()        //nolint:errcheck
		w.cmd.Wait()                //nolint:errcheck // killed
		close(p.killed)
		return fmt.Errorf("launchwatch killed after storing the export")
	}
	rp.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		p.mu.Lock()
		select {
		case <-p.killed:
			p.failed++
		default:
		}
		p.mu.Unlock()
		w.WriteHeader(http.StatusBadGateway)
	}
	return newProxyServer(t, rp)
}

func (p *killingProxy) arm(w *webProc) {
	p.mu.Lock()
	p.armed = w
	p.mu.Unlock()
}

func (p *killingProxy) failures() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed
}

func newProxyServer(t *testing.T, h http.Handler) string {
	t.Helper()
	addr := freeAddr(t)
	srv := &http.Server{Addr: addr, Handler: h}
	go srv.ListenAndServe() //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() })
	eventually(t, "the proxy to listen", func() bool {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
		}
		return err == nil
	})
	return "http://" + addr
}

// The OpenTelemetry Collector most teams already run (contrib's filelog
// receiver, the otlphttp exporter, the bearertokenauth extension) tails a
// corpus file, unmodified: tqdm progress bars with carriage returns inside
// lines, CRLF endings, trailing blanks, lines repeated word for word, as a
// server writes it in three parts. Launchwatch (cmd/web, a process) is
// killed right after it stored an export and before the Collector got the
// answer, stays down while more of the file is written, and is started
// again: every line is stored once, in the file's order, numbered 1..n.
func TestOTelCollectorShipsACorpusFileThroughARestart(t *testing.T) {
	t.Parallel()
	bin := otelcolBin(t)
	const name = "vllm-kvcache-maxlen-startup-crash-01.log"
	data, err := os.ReadFile(filepath.Join(corpusDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	raw := strings.SplitAfter(string(data), "\n")
	if raw[len(raw)-1] == "" {
		raw = raw[:len(raw)-1]
	}
	// What `launchwatch ship` stores of each line: its text up to the
	// "\n", without one "\r" before it.
	want := make([]string, len(raw))
	for i, l := range raw {
		want[i] = strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r")
	}

	db := webtest.Start(t, web.Config{}) // its database, and a token in it
	token := db.NewToken(t, "ingest")
	addr := freeAddr(t)
	srvURL := "http://" + addr
	w := startWebProcess(t, addr, db.DBURL)
	var proxy killingProxy
	endpoint := proxy.start(t, srvURL)

	dir := t.TempDir()
	logFile := filepath.Join(dir, "server.log")
	write := func(lines []string) {
		t.Helper()
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	const launch = "otelcol-restart"
	stored := func() int64 {
		l, _ := getLaunch(t, srvURL, launch)
		return l.LastSeq
	}
	first, second := len(raw)/3, 2*len(raw)/3
	write(raw[:first])

	conf := filepath.Join(dir, "otelcol.yaml")
	if err := os.WriteFile(conf, []byte(otelcolConfig(t, logFile, launch, endpoint)), 0o644); err != nil {
		t.Fatal(err)
	}
	col := exec.Command(bin, "--config", conf)
	col.Env = append(os.Environ(), "LAUNCHWATCH_INGEST_TOKEN="+token)
	var colOut syncBuffer
	col.Stdout, col.Stderr = &colOut, &colOut
	if err := col.Start(); err != nil {
		t.Fatal(err)
	}
	colDone := make(chan error, 1)
	go func() { colDone <- col.Wait() }()
	t.Cleanup(func() {
		col.Process.Kill() //nolint:errcheck
		<-colDone
		if t.Failed() {
			t.Logf("otelcol output:\n%s", colOut.String())
		}
	})

	eventually(t, "the file's first part", func() bool { return stored() == int64(first) })
	proxy.arm(w)
	write(raw[first:second])
	select {
	case <-proxy.killed:
	case err := <-colDone:
		colDone <- err // for the cleanup
		t.Fatalf("the Collector exited: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no export of the file's second part reached Launchwatch")
	}
	eventually(t, "the Collector to retry while Launchwatch is down", func() bool { return proxy.failures() >= 2 })
	write(raw[second:])
	eventually(t, "the Collector to retry the rest while Launchwatch is down", func() bool { return proxy.failures() >= 4 })

	w = startWebProcess(t, addr, db.DBURL)
	defer w.stop(t)
	eventually(t, "every line after the restart", func() bool { return stored() >= int64(len(want)) })
	equalLines(t, storedTexts(t, srvURL, launch), want) // and seqs 1..n: nothing doubled
	if d := scrapeMetric(t, srvURL, `launchwatch_ingest_duplicate_lines_total{protocol="otlp"}`); d < 1 {
		t.Errorf("the Collector did not send again the export whose answer was lost (%v duplicates after the restart)", d)
	}
}

// scrapeMetric reads one series of a server's /metrics, 0 if absent.
func scrapeMetric(t *testing.T, srvURL, series string) float64 {
	t.Helper()
	res, err := http.Get(srvURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	for _, line := range bytes.Split(body, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte(series+" ")); ok {
			var f float64
			if _, err := fmt.Sscan(string(v), &f); err != nil {
				t.Fatalf("metric %s: %v", line, err)
			}
			return f
		}
	}
	return 0
}
