package web_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	"github.com/chromedp/chromedp"
)

// ansiCrashLog is an SGLang launch whose logger colours its levels (the
// "^[[31mERROR^[[0m" a post-mortem must not carry) and whose download bar
// redraws with "\r".
const ansiCrashLog = "[2026-11-29 10:00:00] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B', tp_size=1)\n" +
	"[2026-11-29 10:00:05] Load weight begin. avail mem=78.50 GB\n" +
	"[2026-11-29 10:00:06] weights:  10%|#   |\r[2026-11-29 10:00:06] weights: 100%|####|\n" +
	"[2026-11-29 10:01:30] \x1b[31mERROR\x1b[0m Scheduler hit an exception: Traceback (most recent call last):\n" +
	"  File \"/sgl/python/sglang/srt/managers/scheduler.py\", line 2311, in run_scheduler_process\n" +
	"    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)\x07\n" +
	"\x1b[1;31mtorch.OutOfMemoryError\x1b[0m: CUDA out of memory. Tried to allocate \x1b[38;5;208m3.94 GiB\x1b[0m\n"

// TestBrowserPostmortemMarkdownIsPlain: the post-mortem's Markdown, as its
// link serves it, holds no terminal escape and no control character: the
// headline is plain text in a code span, the excerpt in a code fence.
func TestBrowserPostmortemMarkdownIsPlain(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/ansi-1/lines?server=sglang", ansiCrashLog)
	b.report("/api/v1/launches/ansi-1/exit", `{"code": 1}`, "crashed")
	r := b.do("POST", "/api/v1/incidents", "application/json",
		[]byte(`{"title": "OOM in capture", "severity": "sev2", "launches": ["ansi-1"]}`))
	var inc struct {
		ID int64 `json:"id"`
	}
	if r.status != 201 || json.Unmarshal(r.body, &inc) != nil {
		t.Fatalf("creating the incident: %d %s", r.status, r.body)
	}
	tab := newBrowser(t)
	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/incidents/"+itoa(inc.ID)), htmxIdle()))
	md, err := chromedp.Run(tab, chromedp.Evaluate[string](
		`fetch(document.querySelector('[data-testid="postmortem-md-link"]').href).then(function (r) { return r.text(); })`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetching the Markdown: %v", err)
	}
	for i, r := range md {
		if r != '\n' && r != '\t' && unicode.IsControl(r) || r == '\u241b' {
			t.Errorf("the Markdown holds %U at byte %d: %q", r, i, md[max(0, i-30):min(len(md), i+30)])
			break
		}
	}
	for _, want := range []string{
		"# Post-mortem: OOM in capture\n",
		"[**`torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB`**](",
		"alarm 1 (oom, fatal, open): `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB`\n",
		"```text\n[2026-11-29 10:01:30] ERROR Scheduler hit an exception: Traceback (most recent call last):\n" +
			"  File \"/sgl/python/sglang/srt/managers/scheduler.py\", line 2311, in run_scheduler_process\n" +
			"    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)\n" +
			"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB\n```\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}
