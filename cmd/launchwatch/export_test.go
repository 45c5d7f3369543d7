package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"launchwatch/internal/eval"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// Made-up launches for the export test (never lines of a real log).

// sglangKeyErrorCrash: an SGLang scheduler dies on a missing weight
// while loading; a reviewer confirms it.
func sglangKeyErrorCrash() []string {
	return []string{
		"[2026-11-30 09:00:01] server_args=ServerArgs(model_path='acme/tiny-7b', tp_size=1, mem_fraction_static=0.81, disable_cuda_graph=False)",
		"[2026-11-30 09:00:03] Load weight begin. avail mem=70.12 GB",
		"[2026-11-30 09:00:09] Scheduler hit an exception: Traceback (most recent call last):",
		`  File "/opt/acme/sched.py", line 41, in run_scheduler`,
		"    sched.loop()",
		`  File "/opt/acme/sched.py", line 77, in loop`,
		"    raise KeyError(name)",
		"KeyError: 'lm_head.weight_scale'",
		"[2026-11-30 09:00:09] Received sigquit from a child process. It usually means the child failed.",
	}
}

// vllmReadyThenBadRequest: a vLLM server becomes ready, then one request
// fails with a traceback the server survives; the reviewer dismisses it as
// the client's fault.
func vllmReadyThenBadRequest() []string {
	return append(vllmLoading(8),
		"INFO:     Started server process [4242]",
		"INFO:     Waiting for application startup.",
		"INFO:     Application startup complete.",
		`INFO:     10.9.8.7:5555 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error`,
		"ERROR:    Exception in ASGI application",
		"Traceback (most recent call last):",
		`  File "/opt/venv/lib/python3.11/site-packages/uvicorn/protocols/http/httptools_impl.py", line 401, in run_asgi`,
		"    result = await app(self.scope, self.receive, self.send)",
		`  File "/srv/demo/api.py", line 12, in completions`,
		`    prompt = body["prompt"]`,
		"KeyError: 'prompt'",
		`INFO:     10.9.8.7:5556 - "GET /health HTTP/1.1" 200 OK`,
		`INFO:     10.9.8.7:5557 - "POST /v1/completions HTTP/1.1" 200 OK`,
	)
}

// vllmSmokeAbort: a loading vLLM process that a smoke test aborts on
// purpose; the classifier calls it a crash, the reviewer dismisses it.
func vllmSmokeAbort() []string {
	return append(vllmLoading(6),
		"Traceback (most recent call last):",
		`  File "/srv/demo/smoke.py", line 9, in <module>`,
		"    raise RuntimeError(\"smoke test: stop after shard 6\")",
		"RuntimeError: smoke test: stop after shard 6",
	)
}

// postServer posts a log as text lines of a launch of the given server family.
func postServer(t *testing.T, base, key, server string, lines []string) {
	t.Helper()
	res, err := http.Post(base+"/api/v1/launches/"+key+"/lines?server="+server, "text/plain",
		strings.NewReader(strings.Join(lines, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("post %s: %d", key, res.StatusCode)
	}
}

// apiAlarms reads a launch's alarms through the API.
func apiAlarms(t *testing.T, base, key string) []struct {
	No          int    `json:"no"`
	Fatal       bool   `json:"fatal"`
	State       string `json:"state"`
	Headline    string `json:"headline"`
	Fingerprint string `json:"fingerprint"`
} {
	t.Helper()
	res, err := http.Get(base + "/api/v1/launches/" + key)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var l struct {
		Alarms []struct {
			No          int    `json:"no"`
			Fatal       bool   `json:"fatal"`
			State       string `json:"state"`
			Headline    string `json:"headline"`
			Fingerprint string `json:"fingerprint"`
		} `json:"alarms"`
	}
	if err := json.NewDecoder(res.Body).Decode(&l); err != nil {
		t.Fatal(err)
	}
	return l.Alarms
}

// vllmCapacityProbe: a probe that allocates past the GPU on purpose; a
// suppression rule hides its OOM.
func vllmCapacityProbe() []string {
	return append(vllmLoading(4),
		"Traceback (most recent call last):",
		`  File "/srv/demo/probe.py", line 5, in <module>`,
		`    torch.empty(1 << 40, device="cuda")`,
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1024.00 GiB. GPU 0 has a total capacity of 79.15 GiB (capacity probe)",
	)
}

// postForm posts a form as a browser on the same origin does and wants a
// redirect (the answer to a saved decision or rule).
func postForm(t *testing.T, base, path string, form url.Values) {
	t.Helper()
	req, err := http.NewRequest("POST", base+path, strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST %s: status %d", path, res.StatusCode)
	}
}

// TestExportCorpusThenEval reviews launches through the real decision
// routes (the alarm form and a suppression rule), exports them with
// `launchwatch export corpus`, and scores the classifier on the result
// with `launchwatch eval`: the scores are the ones the decisions imply.
func TestExportCorpusThenEval(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	postServer(t, srv.URL, "sg-crash:1", "sglang", sglangKeyErrorCrash())
	postServer(t, srv.URL, "vl-ready-1", "vllm", vllmReadyThenBadRequest())
	postServer(t, srv.URL, "vl-smoke-1", "vllm", vllmSmokeAbort())
	postServer(t, srv.URL, "vl-probe-1", "vllm", vllmCapacityProbe())
	postServer(t, srv.URL, "vl-unreviewed", "vllm", vllmSmokeAbort())
	postServer(t, srv.URL, "vl-quiet-1", "vllm", vllmLoading(5))
	for _, key := range []string{"sg-crash:1", "vl-ready-1", "vl-smoke-1", "vl-probe-1", "vl-unreviewed"} {
		if a := apiAlarms(t, srv.URL, key); len(a) != 1 || a[0].State != "open" {
			t.Fatalf("%s: want one open alarm, got %+v", key, a)
		}
	}

	decide := func(key, verdict, reason string) {
		postForm(t, srv.URL, "/launches/"+key+"/alarms/1/decide", url.Values{"verdict": {verdict}, "name": {"ada"}, "reason": {reason}})
	}
	decide("sg-crash:1", "confirm", "the checkpoint lacks the quantization scales")
	decide("vl-ready-1", "dismiss", "a client sent a body without a prompt")
	decide("vl-smoke-1", "dismiss", "the smoke test stops the process on purpose")
	postForm(t, srv.URL, "/rules", url.Values{"matcher": {"substring"}, "pattern": {"(capacity probe)"}, "scope": {"server"},
		"server_value": {"vllm"}, "reason": {"the capacity probe allocates past the GPU on purpose"}, "name": {"bob"},
		"expiry": {"days"}, "expiry_days": {"30"}})
	if a := apiAlarms(t, srv.URL, "vl-probe-1"); a[0].State != "suppressed" {
		t.Fatalf("the rule did not suppress the probe's alarm: %+v", a)
	}

	dir := filepath.Join(t.TempDir(), "ours")
	code, out := cli(t, "export", "corpus", dir, "--url", srv.URL)
	if code != 0 || !strings.Contains(out, "wrote 4 reviewed launches") {
		t.Fatalf("export corpus: exit %d\n%s", code, out)
	}
	cases, err := eval.LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]eval.Label{}
	for _, c := range cases {
		labels[c.Name] = c.Label
	}
	// The confirmed alarm is the crash's error block (the SIGQUIT line of
	// the same event included), headed by its final exception line; the dismissed request error is bait in a
	// launch that was ready; the dismissed abort and the suppressed OOM
	// leave launches that were loading.
	crash := labels["sg-crash_1"]
	if crash.Outcome != "crashed" || len(crash.ErrorBlocks) != 1 || crash.ErrorBlocks[0].Start != 3 ||
		crash.ErrorBlocks[0].End != 9 || crash.ErrorBlocks[0].HeadlineLines[0] != 8 || !crash.ErrorBlocks[0].Fatal {
		t.Errorf("sg-crash_1 label = %+v", crash)
	}
	ready := labels["vl-ready-1"]
	if ready.Outcome != "ready" || ready.ReadyLine == nil || *ready.ReadyLine != 12 || len(ready.ErrorBlocks) != 0 ||
		!slices.Contains(ready.BaitLines, 20) {
		t.Errorf("vl-ready-1 label = %+v", ready)
	}
	for _, name := range []string{"vl-smoke-1", "vl-probe-1"} {
		if l := labels[name]; l.Outcome != "loading" || len(l.ErrorBlocks) != 0 || len(l.BaitLines) == 0 {
			t.Errorf("%s label = %+v", name, l)
		}
	}
	for _, name := range []string{"vl-quiet-1", "vl-unreviewed"} {
		if _, ok := labels[name]; ok {
			t.Errorf("%s, a launch with no decided alarm, was exported", name)
		}
	}

	code, out = cli(t, "eval", dir)
	if code != 0 {
		t.Fatalf("eval: exit %d\n%s", code, out)
	}
	// What the decisions imply: 4 alarms of which 1 confirmed (precision
	// 1/4); the one confirmed block is found with its headline; the two
	// launches whose only alarm people called false (the abort before
	// readiness, the probe's OOM) are healthy launches the classifier
	// calls crashed (outcome and verdict 2/4, false alarm launches 2/3);
	// the confirmed crash is not missed.
	want := "precision=0.250 recall=1.000 headline=1.000 outcome=2/4 verdict=2/4 false_alarm_launches=2/3 transient_false_alarms=0/3 missed_crashes=0/1"
	if last := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:]); last != want {
		t.Errorf("eval summary\n got %s\nwant %s\n%s", last, want, out)
	}
}

// TestExportUsage: bad usage is 2, an unreachable server 4, a refused
// filter 1 with the server's message.
func TestExportUsage(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export"}, 2, "Usage: launchwatch export corpus"},
		{[]string{"export", "nope"}, 2, "Usage: launchwatch export corpus"},
		{[]string{"export", "corpus"}, 2, "Usage: launchwatch export corpus DIR"},
		{[]string{"export", "corpus", "--help"}, 0, "--since"},
		{[]string{"export", "alarms", "--url", "http://" + freeAddr(t)}, 4, "cannot reach"},
	} {
		if code, out := cli(t, c.args...); code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d\n%s", c.args, code, out)
		}
	}
	srv := webtest.Start(t, web.Config{})
	if code, out := cli(t, "export", "alarms", "--url", srv.URL, "--since", "last tuesday"); code != 1 || !strings.Contains(out, "since") {
		t.Errorf("bad --since: exit %d\n%s", code, out)
	}
}
