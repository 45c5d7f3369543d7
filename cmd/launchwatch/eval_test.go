package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// evalCase is a made-up labeled log: its lines and its NAME.json.
type evalCase struct {
	name  string
	lines []string
	label string
}

// writeCorpus writes cases as NAME.log + NAME.json into a new directory.
func writeCorpus(t *testing.T, cases []evalCase) string {
	t.Helper()
	dir := t.TempDir()
	for _, c := range cases {
		if err := os.WriteFile(filepath.Join(dir, c.name+".log"), []byte(strings.Join(c.lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.name+".json"), []byte(c.label), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// vllmLoading is the start of a made-up vLLM launch, n weight-loading
// lines long, so that a file takes several batches.
func vllmLoading(n int) []string {
	lines := []string{"INFO 06-11 14:02:01 [api_server.py:1001] vLLM API server version 0.0.0-example"}
	for i := range n {
		lines = append(lines, fmt.Sprintf("INFO 06-11 14:02:%02d [loader.py:75] Loading safetensors shard %d/%d of acme/demo-13b", 2+i%50, i+1, n))
	}
	return lines
}

func evalCorpus() []evalCase {
	crash := append(vllmLoading(45),
		"Traceback (most recent call last):",
		`  File "/srv/demo/worker.py", line 88, in load_model`,
		"    self.model = build(config)",
		`  File "/srv/demo/build.py", line 14, in build`,
		"    raise ValueError(f\"unsupported rope scaling {kind!r}\")",
		"ValueError: unsupported rope scaling 'spiral'",
		"INFO 06-11 14:03:10 [launcher.py:30] worker exited, shutting down",
		"INFO 06-11 14:03:10 [launcher.py:31] cleaning up shared memory",
		"INFO 06-11 14:03:11 [launcher.py:32] bye",
	)
	ready := append(vllmLoading(70),
		"INFO:     Started server process [5151]",
		"INFO:     Waiting for application startup.",
		"INFO:     Application startup complete.",
		`INFO:     10.1.2.3:40000 - "GET /health HTTP/1.1" 200 OK`,
	)
	return []evalCase{
		{"vllm-demo-crash-01", crash, `{"server":"vllm","outcome":"crashed","ready_line":null,"error_blocks":[` +
			`{"start":47,"end":52,"kind":"traceback","fatal":true,"title":"bad rope scaling","headline_lines":[52]}]}`},
		{"vllm-demo-ready-01", ready, `{"server":"vllm","outcome":"ready","ready_line":73,"error_blocks":[]}`},
		{"vllm-demo-loading-01", vllmLoading(30), `{"server":"vllm","outcome":"loading","ready_line":null,"error_blocks":[]}`},
		{"other-demo-ready-01", []string{"INFO:     Started server process [99]", "INFO:     Application startup complete.",
			"INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)"},
			`{"server":"other","outcome":"ready","ready_line":3,"error_blocks":[]}`},
	}
}

// TestEvalURLAgreesWithLocal scores a small made-up corpus through a real
// running server (cmd/web on a throwaway database) and in process: both
// must print the same rows and the same summary line, plain and in an
// envelope.
func TestEvalURLAgreesWithLocal(t *testing.T) {
	t.Parallel()
	db := webtest.Start(t, web.Config{}) // only for its database
	addr := freeAddr(t)
	w := startWebProcess(t, addr, db.DBURL)
	defer w.stop(t)
	dir := writeCorpus(t, evalCorpus())
	for _, extra := range [][]string{nil, {"--envelope", "kubectl"}, {"--detect", "--seed", "9"}} {
		args := append([]string{"eval", dir, "-v"}, extra...)
		code, local := cli(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, local)
		}
		codeURL, remote := cli(t, append(args, "--url", "http://"+addr)...)
		if codeURL != 0 {
			t.Fatalf("%v --url: exit %d\n%s", args, codeURL, remote)
		}
		if remote != local {
			t.Errorf("%v: --url and local eval disagree\n--url:\n%s\nlocal:\n%s", extra, remote, local)
		}
		last := local[strings.LastIndex(strings.TrimSpace(local), "\n")+1:]
		if extra == nil && last != "precision=1.000 recall=1.000 headline=1.000 outcome=4/4 verdict=4/4 false_alarm_launches=0/3 transient_false_alarms=0/3 missed_crashes=0/1\n" {
			t.Errorf("summary %q", last)
		}
	}
}

// TestEvalFlags: the help states the definitions; --baseline-grep and
// --url exclude each other; an unknown envelope and an unreachable server
// are errors.
func TestEvalFlags(t *testing.T) {
	t.Parallel()
	dir := writeCorpus(t, evalCorpus()[3:])
	code, out := cli(t, "eval", "--help")
	for _, want := range []string{"line\n             membership", "verdict=V/N", "transient_false_alarms", "--envelope", "--url", "-token"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("eval --help (exit %d) does not say %q:\n%s", code, want, out)
		}
	}
	if code, out := cli(t, "eval", "--baseline-grep", "x", "--url", "http://127.0.0.1:1", dir); code != 2 {
		t.Errorf("--baseline-grep with --url: exit %d\n%s", code, out)
	}
	if code, out := cli(t, "eval", "--envelope", "syslog9", dir); code != 1 || !strings.Contains(out, "unknown envelope") {
		t.Errorf("unknown envelope: exit %d\n%s", code, out)
	}
	if code, out := cli(t, "eval", "--url", "http://"+freeAddr(t), dir); code != 1 || !strings.Contains(out, "cannot reach") {
		t.Errorf("unreachable server: exit %d\n%s", code, out)
	}
}
