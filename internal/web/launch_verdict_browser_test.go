package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserLaunchVerdict: a launch page says why at its top, Sentry's
// "title and culprit": the status, the deciding headline (or the exit),
// the phase it died in and when on the launch clock — above the facts,
// the buttons, the timeline and the alarm cards; a decision made on the
// card updates it in place.
func TestBrowserLaunchVerdict(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/crash-1/lines?server=sglang&host=gpu-node-7", crashingLog)
	b.settled("crash-1")
	// A launch that died without a word: only its exit says why.
	b.postText("/api/v1/launches/exit-1/lines?server=sglang", strings.Join(strings.Split(crashingLog, "\n")[:7], "\n")+"\n")
	b.report("/api/v1/launches/exit-1/exit", `{"code": 1}`, "crashed")
	b.postText("/api/v1/launches/ok-1/lines?server=sglang", healthyLog)
	tab := newBrowser(t)

	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/crash-1"), htmxIdle()))
	// The verdict is the first block under the title, before everything else.
	order, err := chromedp.Run(tab, chromedp.Evaluate[string](`(function () {
		var ids = ['launch-verdict', 'facts', 'open-incident', 'timeline', 'alarm-card', 'log'], out = [];
		var els = ids.map(function (id) { return document.querySelector('[data-testid="' + id + '"]'); });
		if (els.some(function (e) { return !e; })) return 'missing';
		var first = document.querySelector('main h1').nextElementSibling;
		for (var i = 1; i < els.length; i++) {
			if (els[i - 1].getBoundingClientRect().top >= els[i].getBoundingClientRect().top) out.push(ids[i - 1] + ' not above ' + ids[i]);
		}
		if (first !== els[0]) out.push('the block under the title is ' + first.outerHTML.slice(0, 60));
		if (els[0].getBoundingClientRect().bottom > 200) out.push('the verdict ends at ' + els[0].getBoundingClientRect().bottom + 'px');
		return out.join('; ');
	})()`))
	must(t, err)
	if order != "" {
		t.Errorf("page order: %s", order)
	}
	check := func(key string, want map[string]string) {
		t.Helper()
		for id, w := range want {
			if got := textOf(t, tab, `[data-testid="launch-verdict"] [data-testid="`+id+`"]`); !strings.Contains(got, w) {
				t.Errorf("%s: verdict %s %q, want %q", key, id, got, w)
			}
		}
	}
	check("crash-1", map[string]string{
		"verdict-status":   "alarm",
		"verdict-headline": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB",
		"verdict-phase":    "cuda_graph",
		"verdict-when":     "at 2026-11-29 10:01:30 UTC, 1m30s into the launch (launch clock)",
	})
	readmeShot(t, tab, "launch-verdict.png", "")

	// Confirming the alarm on its card turns the verdict to crashed in place.
	err = chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(`[data-testid="alarm-card"] [data-testid="confirm"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="launch-verdict"][data-status="crashed"]`)),
		htmxIdle(),
	)
	if err != nil {
		t.Fatalf("confirming the alarm: %v", err)
	}
	check("crash-1 confirmed", map[string]string{"verdict-headline": "torch.OutOfMemoryError"})
	// Its link goes to the deciding alarm's card.
	href, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid="verdict-headline"]').getAttribute('href')`))
	if err != nil || href != "#alarm-1" {
		t.Errorf("the headline links to %q (%v), want #alarm-1", href, err)
	}

	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/exit-1"), htmxIdle()))
	check("exit-1", map[string]string{
		"verdict-status": "crashed",
		"verdict-exit":   "exit code 1",
		"verdict-phase":  "cuda_graph",
		"verdict-when":   "at 2026-11-29 10:00:41 UTC, 41.0s into the launch (launch clock)",
	})

	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/ok-1"), htmxIdle()))
	check("ok-1", map[string]string{
		"verdict-status":  "ready",
		"verdict-summary": "ready 1m20s after its first line (launch clock)",
	})
}
