package web_test

import (
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// sglangLaunch is a made-up SGLang launch starting at start (its times in
// UTC): weights, CUDA graph capture, then ready, or an out-of-memory error
// in the capture when crash is set.
func sglangLaunch(start time.Time, maxBS int, memFraction string, crash bool) string {
	at := func(d time.Duration) string { return "[" + start.Add(d).UTC().Format("2006-01-02 15:04:05") + "] " }
	var b strings.Builder
	fmt.Fprintf(&b, "%sserver_args=ServerArgs(model_path='acme/llama-8b', tp_size=1, mem_fraction_static=%s, cuda_graph_max_bs=%d)\n",
		at(0), memFraction, maxBS)
	b.WriteString(at(2*time.Second) + "Load weight begin. avail mem=78.50 GB\n")
	b.WriteString(at(36*time.Second) + "Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB\n")
	b.WriteString(at(37*time.Second) + "Capture cuda graph begin. This can take up to several minutes.\n")
	if !crash {
		b.WriteString(at(70*time.Second) + "Capture cuda graph end. Time elapsed: 33.00 s\n")
		b.WriteString(at(80*time.Second) + "The server is fired up and ready to roll!\n")
		return b.String()
	}
	b.WriteString(at(85*time.Second) + "Scheduler hit an exception: Traceback (most recent call last):\n")
	b.WriteString(`  File "/srv/acme/sglang/srt/model_executor/cuda_graph_runner.py", line 301, in capture` + "\n")
	b.WriteString("    out = self.capture_one_batch_size(bs, forward)\n")
	fmt.Fprintf(&b, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.75 GiB. GPU 0 has a total capacity of 79.15 GiB (batch size %d)\n", maxBS)
	return b.String()
}

// TestBrowserIncident: from a crashed launch's page a person opens an
// incident, adds a second crashed launch and a note, and exports the
// post-mortem, whose Markdown holds the root cause's headline, the
// timeline, the note and the configuration's difference from the last
// good launch. With LAUNCHWATCH_SCREENSHOTS it saves the incident page (the
// README's docs/incident-timeline.png, make screenshot).
func TestBrowserIncident(t *testing.T) {
	t.Parallel()
	b := setup(t)
	t0 := time.Now().Add(-12 * time.Minute).Truncate(time.Second)
	// tz=UTC: the made-up times are UTC, not a host clock running late.
	ship := "/lines?server=sglang&name=llama-8b&tz=UTC&host="
	b.postText("/api/v1/launches/good-1"+ship+"gpu-a", sglangLaunch(t0.Add(-30*time.Minute), 32, "0.80", false))
	b.postText("/api/v1/launches/crash-1"+ship+"gpu-a", sglangLaunch(t0, 64, "0.85", true))
	b.report("/api/v1/launches/crash-1/exit", `{"code": 1}`, "crashed")
	b.postText("/api/v1/launches/crash-2"+ship+"gpu-b", sglangLaunch(t0.Add(4*time.Minute), 64, "0.85", true))
	b.report("/api/v1/launches/crash-2/exit", `{"code": 1}`, "crashed")
	b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"confirm"}, "name": {"ada"},
		"reason": {"capture at batch 64 does not fit"}}, false)
	tab := newBrowser(t)

	err := chromedp.Do(tab,
		chromedp.Navigate(b.url+"/launches/crash-1"),
		htmxIdle(),
		chromedp.Click(chromedp.CSS(`[data-testid="open-incident"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="incident-new-form"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-testid="incident-new-severity"]`), "sev2"),
		chromedp.Click(chromedp.CSS(`[data-testid="incident-new-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="incident-timeline"]`)),
		htmxIdle(),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="add-launch-key"]`), "crash-2"),
		chromedp.Click(chromedp.CSS(`[data-testid="add-launch"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="incident-launch"][data-key="crash-2"]`)),
		htmxIdle(),
		chromedp.SendKeys(chromedp.CSS(`[data-testid="incident-note-text"]`), "both hosts OOM in graph capture since cuda_graph_max_bs went to 64"),
		chromedp.Click(chromedp.CSS(`[data-testid="incident-note-add"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="incident-note"]`)),
		htmxIdle(),
	)
	if err != nil {
		t.Fatalf("opening the incident, adding a launch and a note: %v", err)
	}
	if title := textOf(t, tab, `[data-testid="incident-title"]`); !strings.Contains(title, "Launch crash-1 failed") ||
		!strings.Contains(title, "sev2") || !strings.Contains(title, "investigating") {
		t.Errorf("incident title %q", title)
	}
	lanes, err := chromedp.Run(tab, chromedp.Evaluate[string](
		`Array.from(document.querySelectorAll('[data-testid="itl-lane"]')).map(function (g) { return g.dataset.key || "incident"; }).join(" ")`))
	if err != nil || lanes != "incident crash-1 crash-2" {
		t.Errorf("timeline lanes %q (%v), want the incident's, then crash-1, crash-2", lanes, err)
	}
	if os.Getenv("LAUNCHWATCH_SCREENSHOTS") != "" {
		// The page's top (the note's form left it scrolled to the note).
		_, err := chromedp.Run(tab, chromedp.Evaluate[int](`window.scrollTo(0, 0), 0`))
		must(t, err)
		readmeShot(t, tab, "incident-timeline.png", "")
	}

	// Export: what the page's Markdown link serves.
	md, err := chromedp.Run(tab, chromedp.Evaluate[string](
		`fetch(document.querySelector('[data-testid="postmortem-md-link"]').href).then(function (r) { return r.text(); })`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetching the Markdown: %v", err)
	}
	start := func(d time.Duration) string { return t0.Add(d).UTC().Format("2006-01-02 15:04:05") }
	for _, want := range []string{
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.75 GiB. GPU 0 has a total capacity of 79.15 GiB (batch size 64)",
		start(0) + " [`crash-1`]", start(4*time.Minute) + " [`crash-2`]",
		"alarm 1 (oom, fatal, confirmed)", "confirm alarm 1: capture at batch 64 does not fit",
		"both hosts OOM in graph capture since cuda_graph_max_bs went to 64",
		"- `cuda_graph_max_bs`: `32` → `64`",
		"2 launches on 2 hosts",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the post-mortem's Markdown lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}

	err = chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(`[data-testid="postmortem-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="pm-root-cause"]`)),
	)
	if err != nil {
		t.Fatalf("opening the print page: %v", err)
	}
	if rc := textOf(t, tab, `[data-testid="pm-root-cause"]`); !strings.Contains(rc, "torch.OutOfMemoryError") {
		t.Errorf("print page root cause %q", rc)
	}
}
