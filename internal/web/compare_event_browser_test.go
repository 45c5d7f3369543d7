package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// deepTracebackLog is an SGLang launch that dies of an OOM at the bottom
// of an 80-frame traceback.
func deepTracebackLog() string {
	var b strings.Builder
	b.WriteString("[2026-11-29 12:00:00] server_args=ServerArgs(model_path='meta-llama/Llama-3.1-8B', tp_size=1, cuda_graph_max_bs=64)\n")
	b.WriteString("[2026-11-29 12:00:05] Load weight begin. avail mem=78.50 GB\n")
	b.WriteString("[2026-11-29 12:00:38] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB\n")
	b.WriteString("[2026-11-29 12:00:39] Capture cuda graph begin. This can take up to several minutes.\n")
	b.WriteString("[2026-11-29 12:01:30] Scheduler hit an exception: Traceback (most recent call last):\n")
	for i := range 80 {
		fmt.Fprintf(&b, "  File \"/sgl/python/sglang/srt/layers/block_%02d.py\", line %d, in forward_%02d\n", i, 100+i, i)
		fmt.Fprintf(&b, "    hidden = self.sublayer_%02d(hidden, positions)\n", i)
	}
	b.WriteString("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB. GPU 0 has a total capacity of 79.15 GiB\n")
	return b.String()
}

// TestBrowserCompareEvents: compare lists a traceback as one entry (its
// headline, the root cause), which opens to its frames, instead of a
// hundred ERROR entries that use up the 50 shown; and "compare with the
// previous launch" picks the previous launch of the same name and server
// (or key stem and server), not one that merely shares the host, and
// says how it chose.
func TestBrowserCompareEvents(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/llama-1/lines?server=sglang&name=llama-8b&host=gpu-a", healthyLog)
	// Another model on the same box, later: sharing the host is the weakest tie.
	b.postText("/api/v1/launches/qwen-7/lines?server=vllm&name=qwen-14b&host=gpu-a", healthyLog)
	b.postText("/api/v1/launches/llama-2/lines?server=sglang&name=llama-8b&host=gpu-a", deepTracebackLog())
	b.report("/api/v1/launches/llama-2/exit", `{"code": 1}`, "crashed")
	// No name: the key's stem decides.
	b.postText("/api/v1/launches/bench-0411/lines?server=sglang&host=gpu-b", healthyLog)
	b.postText("/api/v1/launches/probe-3/lines?server=tgi&host=gpu-b", healthyLog)
	b.postText("/api/v1/launches/bench-0412/lines?server=sglang&host=gpu-b", crashingLog)
	tab := newBrowser(t)

	for _, tt := range []struct{ key, prev, why string }{
		{"llama-2", "llama-1", "the newest earlier launch of the same name and server"},
		{"bench-0412", "bench-0411", "the newest earlier launch of the same key stem and server"},
		{"probe-3", "bench-0411", "the newest earlier launch on the same host, gpu-b: none shares its name or key stem"},
	} {
		must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/"+tt.key), htmxIdle()))
		if got := textOf(t, tab, `[data-testid="compare-previous"]`); got != "Compare with the previous launch, "+tt.prev {
			t.Errorf("%s: %q, want the comparison with %s", tt.key, got, tt.prev)
		}
		if got := textOf(t, tab, `[data-testid="compare-previous-why"]`); got != "("+tt.why+")" {
			t.Errorf("%s: chosen as %q, want %q", tt.key, got, tt.why)
		}
	}

	err := chromedp.Do(tab,
		chromedp.Navigate(b.url+"/launches/llama-2"), htmxIdle(),
		chromedp.Click(chromedp.CSS(`[data-testid="compare-previous"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="only-b"]`)),
	)
	if err != nil {
		t.Fatalf("opening the comparison: %v", err)
	}
	summary, err := chromedp.Run(tab, chromedp.Evaluate[string](`(function () {
		var list = document.querySelector('[data-testid="only-b"]');
		var top = list.querySelectorAll(':scope > [data-testid="template"], :scope > details > summary > [data-testid="template"]');
		var frames = Array.from(top).filter(function (e) { return e.innerText.indexOf('File "') >= 0; }).length;
		return top.length + ' entries, ' + frames + ' frames listed apart, more link: ' + !!document.querySelector('[data-testid="only-b-more"]');
	})()`))
	must(t, err)
	if summary != "1 entries, 0 frames listed apart, more link: false" {
		// The OOM's event holds everything new: 162 kinds of line.
		t.Errorf("lines new in llama-2: %s", summary)
	}
	first := `[data-testid="only-b"] [data-testid="event"]:first-child`
	if got := textOf(t, tab, first+` > summary [data-testid="template"]`); !strings.Contains(got, "torch.OutOfMemoryError: CUDA out of memory") ||
		!strings.Contains(got, "alarm 1 · 161 more new kinds of line in its event") {
		t.Errorf("the first entry %q, want the OOM with its event's 161 other kinds of line", got)
	}
	// Its frames are there when it is opened, in order.
	err = chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(first+` > summary`)),
		chromedp.WaitVisible(chromedp.CSS(first+` [data-testid="event-line"]`)),
	)
	if err != nil {
		t.Fatalf("opening the event: %v", err)
	}
	lines, err := chromedp.Run(tab, chromedp.Evaluate[string](`(function () {
		var ls = document.querySelectorAll('`+first+` [data-testid="event-line"] .text');
		return ls.length + ' | ' + ls[0].innerText + ' | ' + ls[ls.length - 1].innerText;
	})()`))
	must(t, err)
	if want := "161 | [2026-11-29 12:01:30] Scheduler hit an exception: Traceback (most recent call last): | " +
		"    hidden = self.sublayer_79(hidden, positions)"; lines != want {
		t.Errorf("the opened event: %q, want %q", lines, want)
	}
	readmeShot(t, tab, "compare-events.png", "")
}
