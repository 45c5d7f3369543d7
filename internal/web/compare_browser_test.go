package web_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserCompare: from a crashed launch's page, "compare with the
// previous launch" lists the root-cause error first, on the first screen,
// and its link opens the log at that line.
func TestBrowserCompare(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/acme-1/lines?server=vllm&name=tiny-7b&host=gpu-a", goodAcmeLog())
	b.postText("/api/v1/launches/acme-2/lines?server=vllm&name=tiny-7b&host=gpu-a", crashedAcmeLog())
	b.report("/api/v1/launches/acme-2/exit", `{"code": 1}`, "crashed")
	tab := newBrowser(t)

	first := `[data-testid="only-b"] [data-testid="template"]`
	err := chromedp.Do(tab,
		chromedp.Navigate(b.url+"/launches/acme-2"),
		htmxIdle(),
		chromedp.Click(chromedp.CSS(`[data-testid="compare-previous"]`)),
		chromedp.WaitVisible(chromedp.CSS(first)),
	)
	if err != nil {
		t.Fatalf("opening the comparison: %v", err)
	}
	tier, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('`+first+`').dataset.tier`))
	if err != nil {
		t.Fatal(err)
	}
	text := textOf(t, tab, first)
	if tier != "root cause" || !strings.Contains(text, "ValueError: the model needs 65536 tokens of KV cache") {
		t.Errorf("first entry: %s %q, want the ValueError as the root cause", tier, text)
	}
	fold, err := chromedp.Run(tab, chromedp.Evaluate[bool](
		`document.querySelector('`+first+`').getBoundingClientRect().bottom <= window.innerHeight`))
	if err != nil || !fold {
		t.Errorf("the root cause is not on the first screen (%v)", err)
	}
	height, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.documentElement.scrollHeight`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("compare page height: %d px", height)
	if height > 3000 {
		t.Errorf("the compare page is %d px tall", height)
	}

	err = chromedp.Do(tab,
		chromedp.Click(chromedp.CSS(first+` [data-testid="template-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="log-line"]:target`)),
	)
	if err != nil {
		t.Fatalf("following the entry to its line: %v", err)
	}
	if line := textOf(t, tab, `[data-testid="log-line"]:target`); !strings.Contains(line, "ValueError: the model needs") {
		t.Errorf("the entry links to the line %q", line)
	}
}
