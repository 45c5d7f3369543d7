package web_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// colourLog is crashingLog with 256-colour and truecolour lines, as
// loguru, rich and tqdm write them.
var colourLog = strings.Replace(crashingLog, "[2026-11-29 10:00:02] Init torch distributed begin.\n",
	"[2026-11-29 10:00:02] Init torch distributed begin.\n"+
		"[2026-11-29 10:00:03] \x1b[38;5;208mWARNING\x1b[0m flashinfer not found, falling back\n"+
		"[2026-11-29 10:00:03] \x1b[38;2;255;0;0mmemory\x1b[0m pool sized, \x1b[48;5;17;38;5;231m78.5 GB\x1b[0m avail\n", 1)

// TestBrowserLogReading: the log shows 256-colour and truecolour codes in
// their colours, a search marks its hits in the lines it finds, and a
// line-volume histogram over the launch, alarms marked, is above the log;
// a bar zooms the page to its seconds.
func TestBrowserLogReading(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/colour-1/lines?server=sglang", colourLog)
	b.settled("colour-1")
	tab := newBrowser(t)
	must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/colour-1"), htmxIdle(),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="line-volume"]`))))

	// Colours: 208 is orange, truecolour red the palette's red, a dark
	// background has light text.
	colours, err := chromedp.Run(tab, chromedp.Evaluate[string](`(function () {
		var s = function (sel, prop) { var e = document.querySelector(sel); return e ? getComputedStyle(e)[prop] : 'missing'; };
		return [s('#L3 .term-fgx208', 'color'), s('#L4 .term-fgx196', 'color'), s('#L4 .term-bgx17', 'backgroundColor'),
			s('#L4 .term-bgx17', 'color')].join(' | ');
	})()`))
	must(t, err)
	if want := "rgb(255, 135, 0) | rgb(255, 0, 0) | rgb(0, 0, 95) | rgb(255, 255, 255)"; colours != want {
		t.Errorf("colours %q, want %q", colours, want)
	}
	if text := textOf(t, tab, "#L4 .text"); text != "[2026-11-29 10:00:03] memory pool sized, 78.5 GB avail" {
		t.Errorf("line 4 reads %q", text)
	}

	// The histogram: every line counted once, the alarm marked where its
	// bar holds errors.
	vol, err := chromedp.Run(tab, chromedp.Evaluate[string](`(function () {
		var bars = Array.from(document.querySelectorAll('[data-testid="volume-bar"]')), lines = 0, err = 0;
		bars.forEach(function (b) { lines += +b.dataset.lines; err += +b.dataset.errors; });
		var a = document.querySelectorAll('[data-testid="volume-alarm"][data-alarm="1"][data-state="open"]').length;
		return lines + ' lines, ' + err + ' errors, ' + a + ' alarm';
	})()`))
	must(t, err)
	if vol != "15 lines, 6 errors, 1 alarm" {
		t.Errorf("histogram: %s", vol)
	}
	if label := textOf(t, tab, `[data-testid="line-volume-label"]`); !strings.HasPrefix(label, "Lines per 1.0s on the launch clock: 15 lines") {
		t.Errorf("histogram label %q", label)
	}
	readmeShot(t, tab, "line-volume.png", `[data-testid="line-volume"]`)

	// Search: the hits are marked, in colour spans too.
	err = chromedp.Do(tab,
		chromedp.SendKeys(chromedp.CSS(`[data-testid="log-search"]`), "MEMORY\n"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="log"] mark.hit`)),
		htmxIdle(),
	)
	if err != nil {
		t.Fatalf("searching: %v", err)
	}
	hits, err := chromedp.Run(tab, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('[data-testid="log"] mark.hit')).map(function (m) {
		return m.closest('[data-testid="log-line"]').dataset.seq + ':' + m.textContent; }).join(' ')`))
	must(t, err)
	if hits != "4:memory 15:Memory 15:memory" {
		t.Errorf("hits marked %q, want line 4's and the two of line 15", hits)
	}
	bg, err := chromedp.Run(tab, chromedp.Evaluate[string](`getComputedStyle(document.querySelector('mark.hit')).backgroundColor`))
	if err != nil || bg != "rgb(255, 211, 61)" {
		t.Errorf("a hit's background %q (%v)", bg, err)
	}
	readmeShot(t, tab, "log-search.png", `[data-testid="log"]`)

	// A bar zooms the page to its bucket.
	err = chromedp.Do(tab,
		chromedp.Navigate(b.url+"/launches/colour-1"), htmxIdle(),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="volume-bar"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="volume-bar"][data-errors="6"] rect`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="timeline-range"]`)),
		htmxIdle(),
	)
	if err != nil {
		t.Fatalf("zooming by a bar: %v", err)
	}
	search, err := chromedp.Run(tab, chromedp.Evaluate[string](`location.search`))
	must(t, err)
	q, _ := url.ParseQuery(strings.TrimPrefix(search, "?"))
	if q.Get("from") != "90" || q.Get("to") != "91" {
		t.Errorf("the bar zoomed to %s, want from=90&to=91", search)
	}
}
