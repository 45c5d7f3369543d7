package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"launchwatch/internal/web/webtest"
)

// webBin is cmd/web built once for the tests that run it as a process.
var webBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lwweb-bin-")
	if err != nil {
		panic(err)
	}
	webBin = filepath.Join(dir, "web")
	if out, err := exec.Command("go", "build", "-o", webBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building cmd/web: %v\n%s", err, out)
		os.Exit(1)
	}
	webtest.AuthorizeDefaultClient() // requests act as the bootstrap token
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// webProcess is a running cmd/web.
type webProcess struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string
	logs *bytes.Buffer // everything it logged, as JSON lines
	done chan error
	// metricsAddr receives the address of the separate /metrics listener
	// (--metrics-addr) when the process logs it.
	metricsAddr chan string
}

// startWeb runs cmd/web on a free port with the private PostgreSQL in
// dataDir and waits until it serves.
func startWeb(t *testing.T, dataDir string, flags ...string) *webProcess {
	t.Helper()
	cmd := exec.Command(webBin, append([]string{"--addr", "127.0.0.1:0", "--data-dir", dataDir, "--log-format", "json"}, flags...)...)
	cmd.Env = append(envWithout("DATABASE_URL", "DATABASE_URL_FILE", "LAUNCHWATCH_ADDR", "LAUNCHWATCH_DATA_DIR"),
		"LAUNCHWATCH_BOOTSTRAP_TOKEN="+webtest.AdminToken)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &webProcess{t: t, cmd: cmd, logs: &bytes.Buffer{}, done: make(chan error, 1), metricsAddr: make(chan string, 1)}
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			p.logs.WriteString(line + "\n")
			var rec struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "listening" {
				listening <- rec.Addr
			}
			if rec.Msg == "serving /metrics without authentication" {
				p.metricsAddr <- rec.Addr
			}
		}
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck
			p.wait(30 * time.Second)
		}
	})
	select {
	case addr := <-listening:
		p.url = "http://" + addr
		return p
	case err := <-p.done:
		t.Fatalf("cmd/web exited before listening: %v\n%s", err, p.logs)
	case <-time.After(60 * time.Second):
		t.Fatalf("cmd/web did not listen within 60s:\n%s", p.logs)
	}
	return nil
}

// stop sends sig and waits for the process to exit.
func (p *webProcess) stop(sig syscall.Signal) error {
	p.t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatal(err)
	}
	return p.wait(30 * time.Second)
}

func (p *webProcess) wait(d time.Duration) error {
	select {
	case err := <-p.done:
		return err
	case <-time.After(d):
		p.t.Fatalf("cmd/web did not exit within %s:\n%s", d, p.logs)
		return nil
	}
}

func (p *webProcess) post(path, body string) map[string]any {
	p.t.Helper()
	res, err := http.Post(p.url+path, "text/plain", strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	return p.decode(res)
}

func (p *webProcess) get(path string) map[string]any {
	p.t.Helper()
	res, err := http.Get(p.url + path)
	if err != nil {
		p.t.Fatal(err)
	}
	return p.decode(res)
}

func (p *webProcess) decode(res *http.Response) map[string]any {
	p.t.Helper()
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		p.t.Fatalf("%s %s: %d %s", res.Request.Method, res.Request.URL, res.StatusCode, data)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		p.t.Fatal(err)
	}
	return v
}

func envWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, n := range names {
			drop = drop || name == n
		}
		if !drop {
			env = append(env, kv)
		}
	}
	return env
}

// publicTempDir is a temporary directory the postgres user can reach (a
// t.TempDir is 0700), so the cluster lives inside it.
func publicTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "lwweb-data-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// postmasterPID returns the PID in the cluster's postmaster.pid, or 0.
func postmasterPID(t *testing.T, dataDir string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dataDir, "pg", "postmaster.pid"))
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.SplitN(string(data), "\n", 2)[0])
	if err != nil {
		t.Fatalf("postmaster.pid: %v", err)
	}
	return pid
}

func alive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}

func TestPrivatePostgresKeepsDataAcrossRestarts(t *testing.T) {
	t.Parallel()
	dataDir := publicTempDir(t)

	web := startWeb(t, dataDir)
	ack := web.post("/api/v1/launches/demo/lines?server=sglang", "one\ntwo\nthree\n")
	if ack["accepted"] != 3.0 {
		t.Fatalf("ack = %v", ack)
	}
	pg := postmasterPID(t, dataDir)
	if !alive(pg) {
		t.Fatalf("no running postmaster for the data dir (pid %d)", pg)
	}

	// Ctrl-C stops the web server and its PostgreSQL.
	if err := web.stop(syscall.SIGINT); err != nil {
		t.Fatalf("exit after SIGINT: %v\n%s", err, web.logs)
	}
	if alive(pg) {
		t.Fatalf("postmaster %d still runs after cmd/web stopped", pg)
	}
	if !strings.Contains(web.logs.String(), "PostgreSQL stopped") {
		t.Errorf("no 'PostgreSQL stopped' in the log:\n%s", web.logs)
	}

	// A second start reuses the data.
	web = startWeb(t, dataDir)
	if l := web.get("/api/v1/launches/demo"); l["last_seq"] != 3.0 || l["server"] != "sglang" {
		t.Fatalf("after restart: %v", l)
	}
	web.post("/api/v1/launches/demo/lines", "four\n")

	// A crash (SIGKILL) leaves PostgreSQL behind; the next start recovers.
	if err := web.stop(syscall.SIGKILL); err == nil {
		t.Fatal("SIGKILL: want a non-nil exit error")
	}
	web = startWeb(t, dataDir)
	lines := web.get("/api/v1/launches/demo/lines")["lines"].([]any)
	var got []string
	for _, l := range lines {
		got = append(got, l.(map[string]any)["text"].(string))
	}
	if strings.Join(got, ",") != "one,two,three,four" {
		t.Errorf("after crash and restart: lines = %q", got)
	}
	if err := web.stop(syscall.SIGTERM); err != nil {
		t.Errorf("exit after SIGTERM: %v\n%s", err, web.logs)
	}
}

func TestShutdownDrainsInFlightRequests(t *testing.T) {
	t.Parallel()
	web := startWeb(t, publicTempDir(t))

	// Send the head of a batch asking to continue: the server's 100
	// Continue says its handler is reading the body, so the request is in
	// flight. Then half the body, SIGTERM, and the rest once the server
	// stopped listening (it is draining then).
	addr := strings.TrimPrefix(web.url, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	answers := bufio.NewReader(conn)
	body := "first half\nsecond half\n"
	fmt.Fprintf(conn, "POST /api/v1/launches/drain/lines HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n",
		addr, webtest.AdminToken, len(body))
	if res, err := http.ReadResponse(answers, nil); err != nil || res.StatusCode != http.StatusContinue {
		t.Fatalf("want 100 Continue before the body: %v, %v\n%s", res, err, web.logs)
	}
	if _, err := io.WriteString(conn, body[:11]); err != nil {
		t.Fatal(err)
	}
	if err := web.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break // the listener is closed: the server is draining
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("cmd/web still accepts connections 30s after SIGTERM")
		}
		time.Sleep(10 * time.Millisecond) // polling for the listener to close, not ordering
	}
	if _, err := io.WriteString(conn, body[11:]); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(answers, nil)
	if err != nil {
		t.Fatalf("reading the answer of the in-flight request: %v\n%s", err, web.logs)
	}
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(data), `"accepted":2`) {
		t.Errorf("in-flight request: %d %s", res.StatusCode, data)
	}
	if err := web.wait(30 * time.Second); err != nil {
		t.Errorf("exit: %v\n%s", err, web.logs)
	}
}

func TestHelpDocumentsEverySetting(t *testing.T) {
	t.Parallel()
	out, err := exec.Command(webBin, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("--help: %v\n%s", err, out)
	}
	for _, want := range []string{"--addr", "LAUNCHWATCH_ADDR", "127.0.0.1:8080", "--data-dir", "LAUNCHWATCH_DATA_DIR",
		"./.data", "--database-url", "DATABASE_URL", "--max-body-bytes", "--log-level", "--log-format", "--migrate",
		"--shutdown-timeout", "--silent-after", "LAUNCHWATCH_SILENT_AFTER", "--settle-after", "LAUNCHWATCH_SETTLE_AFTER",
		"--public-url", "LAUNCHWATCH_PUBLIC_URL", "--database-owner-url", "DATABASE_OWNER_URL",
		"--webhook-allow-private", "LAUNCHWATCH_WEBHOOK_ALLOW_PRIVATE", "--database-read-url", "DATABASE_READ_URL"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("--help does not mention %s:\n%s", want, out)
		}
	}
}

func TestBadConfigurationIsRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		env  []string
		want string
	}{
		{[]string{"--log-format", "xml"}, nil, "--log-format must be text or json"},
		{[]string{"--max-body-bytes", "10"}, nil, "--max-body-bytes must be at least 1024"},
		{nil, []string{"LAUNCHWATCH_MIGRATE=maybe"}, "LAUNCHWATCH_MIGRATE must be true or false"},
		{[]string{"stray"}, nil, `unexpected argument "stray"`},
		{[]string{"--settle-after", "0s"}, nil, "--settle-after must be positive"},
		{nil, []string{"LAUNCHWATCH_SETTLE_AFTER=soon"}, "LAUNCHWATCH_SETTLE_AFTER must be a duration"},
		{[]string{"--public-url", "launchwatch.example.com"}, nil, "--public-url must be an http or https URL"},
		{nil, []string{"LAUNCHWATCH_PUBLIC_URL=https://lw.example.com/sub/path"}, "--public-url must be an http or https URL"},
		{[]string{"--database-url", "postgres://nobody@127.0.0.1:1/x?connect_timeout=2"}, nil, "connecting to the database"},
		{[]string{"--database-read-url", "postgres://nobody@127.0.0.1:1/x"}, nil, "--database-read-url is a standby of --database-url"},
	}
	for _, tt := range tests {
		cmd := exec.Command(webBin, tt.args...)
		cmd.Env = append(envWithout("DATABASE_URL"), tt.env...)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), tt.want) {
			t.Errorf("%v %v: err %v, output %q; want failure with %q", tt.args, tt.env, err, out, tt.want)
		}
	}
}
