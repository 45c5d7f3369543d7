package web_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// lineBatch is n made-up lines numbered from first.
func lineBatch(first, n int) string {
	var sb strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&sb, "worker heartbeat %d ok\n", i)
	}
	return sb.String()
}

func TestBrowserLog(t *testing.T) {
	t.Parallel()

	// New lines appear while the log follows the launch; with the toggle
	// off they do not (the page saw the change and left it out), and they
	// all come in when it is turned on again.
	t.Run("FollowLiveToggle", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/f/lines", lineBatch(1, 30))
		tab := newBrowser(t)
		rows := `document.querySelectorAll('#log-lines [data-seq]').length`
		err := chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/f"), htmxIdle(),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="log-follow"][aria-pressed="true"]`)))
		if err != nil {
			t.Fatal(err)
		}
		b.postText("/api/v1/launches/f/lines", lineBatch(31, 5))
		if _, err := chromedp.Run(tab, chromedp.Poll[bool](rows+` === 35`)); err != nil {
			t.Fatalf("new lines did not appear while following: %v", err)
		}
		err = chromedp.Do(tab, chromedp.Click(chromedp.CSS(`[data-testid="log-follow"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="log-follow"][aria-pressed="false"]`)))
		if err != nil {
			t.Fatal(err)
		}
		if s := textOf(t, tab, `[data-testid="log-follow"]`); s != "follow live" {
			t.Errorf("the toggle says %q when off", s)
		}
		b.postText("/api/v1/launches/f/lines", lineBatch(36, 5))
		if _, err := chromedp.Run(tab, chromedp.Poll[bool](`Number(document.getElementById("log-lines").dataset.skipped || 0) >= 1`)); err != nil {
			t.Fatalf("the change never reached the page: %v", err)
		}
		if n, err := chromedp.Run(tab, chromedp.Evaluate[int](rows)); err != nil || n != 35 {
			t.Errorf("with follow off the log shows %d lines (%v), want 35", n, err)
		}
		err = chromedp.Do(tab, chromedp.Click(chromedp.CSS(`[data-testid="log-follow"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="log-follow"][aria-pressed="true"]`)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(tab, chromedp.Poll[bool](rows+` === 40`)); err != nil {
			t.Fatalf("turning follow on again did not bring the lines in: %v", err)
		}
	})

	// The search form and the paging links swap the log section in place
	// (the page is not reloaded) and keep the address in step.
	t.Run("SearchPagesInPlace", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/s/lines", lineBatch(1, 1500))
		tab := newBrowser(t)
		err := chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/s"), htmxIdle())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(tab, chromedp.Evaluate[int](`window.notReloaded = 1`)); err != nil {
			t.Fatal(err)
		}
		err = chromedp.Do(tab,
			// Enter in the box submits the form as a person does (the
			// submit event htmx listens for).
			chromedp.SendKeys(chromedp.CSS(`[data-testid="log-search"]`), "HEARTBEAT 1"+kb.Enter),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="log-line"][data-seq="1"] + [data-seq="10"]`)),
			htmxIdle(),
		)
		if err != nil {
			t.Fatalf("searching: %v", err)
		}
		pos := textOf(t, tab, `[data-testid="log-pager-top"] [data-testid="log-position"]`)
		// 1, 10–19, 100–199 and 1000–1388: the first 500 of 611 matches.
		if !strings.HasPrefix(pos, "lines 1–1388 of 1500") {
			t.Errorf("search position %q", pos)
		}
		err = chromedp.Do(tab, chromedp.Click(chromedp.CSS(`[data-testid="log-pager-top"] [data-testid="log-next"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="log-line"][data-seq="1389"]`)), htmxIdle())
		if err != nil {
			t.Fatalf("next page of the search: %v", err)
		}
		state, err := chromedp.Run(tab, chromedp.Evaluate[string](`String(window.notReloaded) + " " + location.search`))
		if err != nil || !strings.HasPrefix(state, "1 ") || !strings.Contains(state, "q=HEARTBEAT+1") || !strings.Contains(state, "after=1388") {
			t.Errorf("after paging: %q (%v), want the same page at the search's next window", state, err)
		}
	})
}
