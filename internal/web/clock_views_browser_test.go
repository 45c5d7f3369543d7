package web_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserOneClockPerView: a log 249 days old shipped now is listed as
// received just now (the list's one clock, the server's, labelled), not
// "249d ago"; the problem it raises counts today ("new"), not "quiet"; and
// its own page keeps its log's times, labelled as the launch clock.
func TestBrowserOneClockPerView(t *testing.T) {
	t.Parallel()
	b := setup(t)
	old := time.Now().UTC().AddDate(0, 0, -249).Truncate(time.Second)
	// crashingLog's lines at the old day's times: a backfill.
	oldLog := strings.ReplaceAll(crashingLog, "2026-11-29", old.Format("2006-01-02"))
	b.postText("/api/v1/launches/old-1/lines?server=sglang", oldLog)
	b.settled("old-1")
	tab := newBrowser(t)

	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/"), htmxIdle()))
	row := `[data-testid="launch-row"][data-key="old-1"]`
	if got := textOf(t, tab, row+` [data-testid="received"]`); !regexp.MustCompile(`^(just now|\d+s ago|1m ago)$`).MatchString(got) {
		t.Errorf("the launch shipped just now is listed as received %q", got)
	}
	if got := textOf(t, tab, `#launch-table thead`); !strings.Contains(got, "Received") || strings.Contains(got, "Started") {
		t.Errorf("the list's headings %q", got)
	}
	if got := textOf(t, tab, `[data-testid="list-clock"]`); !strings.Contains(got, "on the server's clock") || !strings.Contains(got, "on each launch's own clock") {
		t.Errorf("the list says of its clock %q", got)
	}
	readmeShot(t, tab, "launch-list.png", `#launch-list`)

	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/problems"), htmxIdle()))
	trend := textOf(t, tab, `[data-testid="problem-row"] [data-testid="problem-trend"]`)
	if !strings.HasSuffix(trend, "new") {
		t.Errorf("the problem backfilled today reads %q, want new", trend)
	}
	today := time.Now().UTC().Format("2006-01-02")
	if got := textOf(t, tab, `[data-testid="problem-row"]`); !strings.Contains(got, today) || strings.Contains(got, old.Format("2006-01-02")) {
		t.Errorf("the problem's row %q, want it seen today (%s)", got, today)
	}
	if got := textOf(t, tab, `[data-testid="problems-clock"]`); !strings.Contains(got, "server's clock") {
		t.Errorf("the problems page says of its clock %q", got)
	}

	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/old-1"), htmxIdle()))
	started := textOf(t, tab, `[data-testid="started"]`)
	if started != old.Format("2006-01-02")+" 10:00:00" {
		t.Errorf("the launch page says it started %q, want its log's own time", started)
	}
	label, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid="started"]').previousElementSibling.innerText`))
	if err != nil || label != "Started (UTC, launch clock)" {
		t.Errorf("the start's label %q (%v)", label, err)
	}
	if got := svgText(t, tab, `[data-testid="timeline-clock"]`); got != "launch clock" {
		t.Errorf("the timeline's axis says %q of its clock", got)
	}
	if got := textOf(t, tab, `[data-testid="time-to-ready"]`); got != "—" {
		t.Errorf("time to ready %q", got)
	}
	ttr, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid="time-to-ready"]').previousElementSibling.innerText`))
	if err != nil || ttr != "Time to ready (launch clock)" {
		t.Errorf("the time to ready's label %q (%v)", ttr, err)
	}
	if got := textOf(t, tab, `[data-testid="verdict-when"]`); !strings.Contains(got, old.Format("2006-01-02")+" 10:01:30 UTC") || !strings.HasSuffix(got, "(launch clock)") {
		t.Errorf("the verdict says %q", got)
	}
}
