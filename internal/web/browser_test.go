package web_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"launchwatch/internal/web/webtest"
)

// chromiumPath is Debian's Chromium, which the browser tests drive.
const chromiumPath = "/usr/bin/chromium"

// newBrowser starts a headless Chromium with a fresh profile for the test
// and returns a tab context. When the test fails, a screenshot of the tab
// is saved and its path logged.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium (%s) is missing: run make test-deps (make test does), which installs Debian's chromium", chromiumPath)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		if t.Failed() {
			saveScreenshot(t, tab)
		}
		cancelTab()
		cancelAlloc()
		cancel()
	})
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	// Signed in as every test server's admin (webtest.AdminSession).
	signInAs(t, tab, webtest.AdminSession)
	return tab
}

// signInAs sets the browser's session cookie for the test servers'
// hosts; "" signs out.
func signInAs(t *testing.T, tab context.Context, session string) {
	t.Helper()
	var err error
	for _, host := range []string{"127.0.0.1", "localhost"} {
		if session == "" {
			_, err = chromedp.Call(tab, network.DeleteCookies, network.DeleteCookiesParams{Name: "lw_session", Domain: host})
		} else {
			httpOnly := true
			_, err = chromedp.Call(tab, network.SetCookie, network.SetCookieParams{Name: "lw_session", Value: session,
				Domain: host, Path: "/", HTTPOnly: &httpOnly})
		}
		if err != nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("setting the session cookie: %v", err)
	}
}

// saveScreenshot keeps what the browser showed when a test failed, outside
// the test's temporary directories so the developer can look at it.
func saveScreenshot(t *testing.T, tab context.Context) {
	ctx, cancel := context.WithTimeout(tab, 5*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	if err != nil {
		t.Logf("no screenshot: %v", err)
		return
	}
	dir, err := os.MkdirTemp("", "launchwatch-browser-")
	if err != nil {
		t.Logf("no screenshot: %v", err)
		return
	}
	path := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "_")+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Logf("no screenshot: %v", err)
		return
	}
	t.Logf("screenshot of the failed browser test: %s", path)
}

// htmxIdle waits until the page has loaded, htmx runs and no htmx request,
// swap or settle is under way, so the next click meets the page a person
// would see.
func htmxIdle() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[bool](`document.readyState === "complete" && !!window.htmx &&
			!document.querySelector(".htmx-request, .htmx-settling, .htmx-swapping")`)(ctx, tg)
		return err
	})
}

// textOf reads an element's visible text in one evaluation, so a swap in
// between cannot leave a stale node behind.
func textOf(t *testing.T, tab context.Context, sel string) string {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[string](
		`(function () { var e = document.querySelector(`+strconv.Quote(sel)+`); return e ? e.innerText.trim() : "<missing>"; })()`))
	if err != nil {
		t.Fatalf("reading %s: %v", sel, err)
	}
	return v
}

func TestBrowser(t *testing.T) {
	t.Parallel()

	t.Run("LoadsAlarmContextAndConfigurationOnDemand", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		var args []string
		for i := range 60 {
			args = append(args, fmt.Sprintf("key_%02d=%d", i, i))
		}
		b.postText("/api/v1/launches/crash-1/lines", "2023-09-03 13:06:49 | INFO | controller | args: Namespace("+strings.Join(args, ", ")+")\n")
		b.settled("crash-1")
		tab := newBrowser(t)
		ctxSel := `[data-testid="alarm-card"] [data-testid="alarm-context"]`
		err := chromedp.Do(tab,
			chromedp.Navigate(b.url+"/launches/crash-1"),
			htmxIdle(),
			chromedp.Click(chromedp.CSS(ctxSel+` summary`)),
			chromedp.WaitVisible(chromedp.CSS(ctxSel+` [data-testid="log-line"]`)),
			htmxIdle(),
		)
		if err != nil {
			t.Fatalf("opening the alarm's context: %v", err)
		}
		n, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('`+ctxSel+` [data-testid="log-line"]').length`))
		if summary := textOf(t, tab, ctxSel+` summary`); err != nil || n < 5 || summary != fmt.Sprintf("context (%d lines)", n) {
			t.Errorf("the opened context shows %d lines (%v), its summary says %q", n, err, summary)
		}
		if link := textOf(t, tab, ctxSel+` [data-testid="alarm-context-link"]`); link != "<missing>" {
			t.Errorf("the fallback link %q is still there once the lines are loaded", link)
		}
		err = chromedp.Do(tab,
			chromedp.Click(chromedp.CSS(`[data-testid="config"] summary`)),
			chromedp.Click(chromedp.CSS(`[data-testid="config-all"]`)),
			chromedp.WaitNotPresent(chromedp.CSS(`[data-testid="config-all"]`)),
			htmxIdle(),
		)
		if err != nil {
			t.Fatalf("showing the whole configuration: %v", err)
		}
		rows, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="config"] tr').length`))
		if err != nil || rows < 60 {
			t.Errorf("the whole configuration shows %d rows (%v), want at least 60", rows, err)
		}
		// A log line's number is its permalink, relative to the page.
		href, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('#L13 a.no').href`))
		if want := b.url + "/launches/crash-1?after=0#L13"; err != nil || href != want {
			t.Errorf("permalink of line 13 %q (%v), want %q", href, err, want)
		}
	})

	t.Run("ConfirmAlarmMakesLaunchCrashed", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang&host=gpu-node-7&label.team=inference", crashingLog)
		b.postForm("/launches/crash-1/annotations", url.Values{"seq": {"7"},
			"body": {"cuda_graph_max_bs raised from 32 to 64"}}, false)
		b.settled("crash-1")
		tab := newBrowser(t)

		alarmCard := chromedp.CSS(`[data-testid="alarm-card"]`)
		err := chromedp.Do(tab,
			chromedp.Navigate(b.url+"/"),
			htmxIdle(),
			chromedp.Click(chromedp.CSS(`[data-testid="launch-row"][data-key="crash-1"] a`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="alarm-card"][data-state="open"]`)),
			htmxIdle(),
		)
		if err != nil {
			t.Fatalf("opening the launch: %v", err)
		}
		before := textOf(t, tab, `#launch-status`)
		// A mark on the page's window: it survives an in-place swap, not a reload.
		if _, err := chromedp.Run(tab, chromedp.Evaluate[int](`window.notReloaded = 1`)); err != nil {
			t.Fatal(err)
		}
		err = chromedp.Do(tab,
			htmxIdle(),
			htmxIdle(),
			chromedp.Click(alarmCard+` [data-testid="confirm"]`),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="alarm-card"][data-state="confirmed"]`)),
			htmxIdle(),
		)
		if err != nil {
			t.Fatalf("confirming the alarm: %v", err)
		}
		after := textOf(t, tab, `[data-testid="alarm-decision"]`)
		status := textOf(t, tab, `#launch-status`)
		if before != "alarm" {
			t.Errorf("status before confirming %q, want alarm", before)
		}
		if !strings.Contains(after, "confirmed by ada") {
			t.Errorf("decision shown as %q", after)
		}
		if status != "crashed" {
			t.Errorf("status shown after confirming %q, want crashed", status)
		}
		marker, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-testid="timeline-alarm"]').dataset.state`))
		if err != nil || marker != "confirmed" {
			t.Errorf("timeline alarm marker %q (%v), want confirmed", marker, err)
		}
		if st := b.launch("crash-1").Status; st != "crashed" {
			t.Errorf("stored status %q, want crashed", st)
		}
		if mark, err := chromedp.Run(tab, chromedp.Evaluate[int](`window.notReloaded || 0`)); err != nil || mark != 1 {
			t.Errorf("the decision reloaded the page instead of swapping the card in place (%v)", err)
		}
		readmeShot(t, tab, "timeline.png", "")
	})

	t.Run("DragAcrossTheTimelineZooms", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/r5/lines?server=sglang", restartingLog(5, 2))
		tab := newBrowser(t)
		if err := chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/r5"), htmxIdle()); err != nil {
			t.Fatalf("opening the launch: %v", err)
		}
		// A drag from a quarter to half of the plot, as the mouse sends it
		// (static/timeline.js, loaded under the page's CSP).
		if _, err := chromedp.Run(tab, chromedp.Evaluate[bool](`(function () {
			var svg = document.querySelector('svg.timeline'), box = svg.getBoundingClientRect();
			function x(f) { return box.left + (130 + 850 * f) / 1000 * box.width; }
			var y = box.top + box.height - 5;
			svg.dispatchEvent(new MouseEvent('mousedown', {bubbles: true, button: 0, clientX: x(0.25), clientY: y}));
			document.dispatchEvent(new MouseEvent('mousemove', {bubbles: true, clientX: x(0.5), clientY: y}));
			document.dispatchEvent(new MouseEvent('mouseup', {bubbles: true, clientX: x(0.5), clientY: y}));
			return true;
		})()`)); err != nil {
			t.Fatal(err)
		}
		err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`[data-testid="timeline-range"]`)), htmxIdle())
		if err != nil {
			t.Fatalf("the drag did not zoom: %v", err)
		}
		search, err := chromedp.Run(tab, chromedp.Evaluate[string](`location.search`))
		must(t, err)
		q, err := url.ParseQuery(strings.TrimPrefix(search, "?"))
		must(t, err)
		from, _ := strconv.ParseFloat(q.Get("from"), 64)
		to, _ := strconv.ParseFloat(q.Get("to"), 64)
		// The launch spans 573 s: a quarter is 143 s, half 287 s.
		if from < 140 || from > 147 || to < 283 || to > 290 {
			t.Errorf("zoomed to %s", search)
		}
		if first := textOf(t, tab, `[data-testid="log"] [data-testid="log-line"]`); !strings.Contains(first, "10:02:") && !strings.Contains(first, "10:03:") {
			t.Errorf("the zoomed log starts with %q", first)
		}
	})

	t.Run("DismissAndSuppressSimilarThenNoAlarmInTheNextLaunch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/ok-1/lines?server=sglang", falseAlarmLog)
		b.postText("/api/v1/launches/ok-2/lines?server=sglang", falseAlarmLog)
		tab := newBrowser(t)

		card := chromedp.CSS(`[data-testid="alarm-card"]`)
		err := chromedp.Do(tab,
			chromedp.Navigate(b.url+"/launches/ok-1"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="alarm-card"][data-state="open"]`)),
			htmxIdle(),
			chromedp.SendKeys(card+` [data-testid="reason"]`, "optional kernel probe, harmless"),
			htmxIdle(),
			chromedp.Click(card+` [data-testid="dismiss"]`),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="alarm-card"][data-state="dismissed"]`)),
			htmxIdle(),
			chromedp.Click(card+` [data-testid="suppress-similar"]`),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="rule-form"]`)),
			htmxIdle(),
			chromedp.Click(chromedp.CSS(`[data-testid="rule-preview-button"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="rule-preview"]`)),
		)
		if err != nil {
			t.Fatalf("dismissing and previewing the rule: %v", err)
		}
		open := textOf(t, tab, `[data-testid="preview-open"]`)
		dismissed := textOf(t, tab, `[data-testid="preview-dismissed"]`)
		if open != "1" || dismissed != "1" {
			t.Errorf("preview: %s open, %s dismissed; want ok-2's open alarm and ok-1's dismissed one", open, dismissed)
		}
		err = chromedp.Do(tab,
			htmxIdle(),
			chromedp.Click(chromedp.CSS(`[data-testid="rule-save"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="rule-row"]`)),
		)
		if err != nil {
			t.Fatalf("saving the rule: %v", err)
		}
		if st := b.launch("ok-2").Status; st != "ready" {
			t.Errorf("ok-2 status %q after the rule, want ready", st)
		}

		// A new launch with the same false alarm opens with no alarm.
		b.postText("/api/v1/launches/ok-3/lines?server=sglang", falseAlarmLog)
		err = chromedp.Do(tab,
			chromedp.Navigate(b.url+"/launches/ok-3"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="show-suppressed"]`)),
		)
		if err != nil {
			t.Fatalf("opening the next launch: %v", err)
		}
		openAlarms := textOf(t, tab, `[data-testid="launch-open-alarms"]`)
		status := textOf(t, tab, `#launch-status`)
		if openAlarms != "0" || status != "ready" {
			t.Errorf("ok-3: %s open alarms, status %s; want 0 and ready", openAlarms, status)
		}
	})

	t.Run("ReviewQueueByKeyboard", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/ok-1/lines?server=sglang", falseAlarmLog)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		tab := newBrowser(t)
		// The newest group (crash-1's OOM) comes first and has the focus;
		// j moves to the false alarm's group, d goes to its reason, Enter
		// dismisses it.
		err := chromedp.Do(tab,
			chromedp.Navigate(b.url+"/review"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="review-group"].focused`)),
			htmxIdle(),
			htmxIdle(),
			chromedp.Click(chromedp.CSS(`h1`)),
			chromedp.KeyEvent("j"),
			chromedp.KeyEvent("d"),
		)
		if err != nil {
			t.Fatalf("reviewing by keyboard: %v", err)
		}
		focus, err := chromedp.Run(tab, chromedp.Evaluate[string](
			`document.activeElement.name + " in " + document.activeElement.closest(".review-group").dataset.fingerprint`))
		if want := "reason in " + b.alarm("ok-1", 1).Fingerprint; err != nil || focus != want {
			t.Fatalf("after j, d the focus is on %q (%v), want %q", focus, err, want)
		}
		// DevTools key events also type the "d" into the field a real
		// browser keeps clean; set the reason as a whole, then press Enter.
		err = chromedp.Do(tab,
			chromedp.SetValue(`[data-testid="review-group"].focused input[name="reason"]`, "probe noise"),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="review-done"]`)),
		)
		if err != nil {
			t.Fatalf("dismissing by Enter: %v", err)
		}
		if a := b.alarm("ok-1", 1); a.State != "dismissed" || a.Reason == nil || *a.Reason != "probe noise" {
			t.Errorf("ok-1's alarm after j, d, reason, Enter: %s %q", a.State, *a.Reason)
		}
		if a := b.alarm("crash-1", 1); a.State != "open" {
			t.Errorf("the first group was decided: %+v", a)
		}
	})

	t.Run("LaunchListUpdatesItsBadges", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/list-1/lines?server=sglang", "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n")
		tab := newBrowser(t)
		row := `#launch-table tr:has(a[href="/launches/list-1"]) [data-testid="status"]`
		err := chromedp.Do(tab,
			chromedp.Navigate(b.url+"/"),
			chromedp.WaitVisible(chromedp.CSS(row)),
			htmxIdle(),
		)
		if err != nil {
			t.Fatalf("opening the list: %v", err)
		}
		if got := textOf(t, tab, row); got != "loading" {
			t.Fatalf("badge %q, want loading", got)
		}
		b.postText("/api/v1/launches/list-1/lines", "[2026-04-02 09:29:20] The server is fired up and ready to roll!\n")
		b.postText("/api/v1/launches/list-2/lines?server=vllm", "a new launch\n")
		err = chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`#launch-table tr:has(a[href="/launches/list-2"])`)))
		if err == nil {
			_, err = chromedp.Run(tab, chromedp.Poll[bool](
				`(function () { var e = document.querySelector(`+strconv.Quote(row)+`); return !!e && e.innerText.trim() === "ready"; })()`))
		}
		if err != nil {
			t.Fatalf("the list did not follow: badge %q: %v", textOf(t, tab, row), err)
		}
	})

	t.Run("LaunchPageFollowsTheLaunch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		lines := strings.SplitAfter(crashingLog, "\n")
		b.postText("/api/v1/launches/live-1/lines?server=sglang", strings.Join(lines[:7], ""))
		tab := newBrowser(t)
		err := chromedp.Do(tab,
			chromedp.Navigate(b.url+"/launches/live-1"),
			chromedp.WaitVisible(chromedp.CSS(`#log-lines [data-seq="7"]`)),
			htmxIdle(),
		)
		if err != nil {
			t.Fatalf("opening the launch: %v", err)
		}
		before := textOf(t, tab, `#launch-status`)
		// The rest arrives while the page is open: the traceback and its alarm.
		b.postText("/api/v1/launches/live-1/lines", strings.Join(lines[7:], ""))
		err = chromedp.Do(tab,
			chromedp.WaitVisible(chromedp.CSS(`#log-lines [data-seq="13"].k-error`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="alarm-news"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="timeline-alarm"]`)),
		)
		if err != nil {
			t.Fatalf("following the launch: %v", err)
		}
		// The alarm shows at once; the status turns alarm once it settled.
		settling := textOf(t, tab, `#launch-status`)
		b.settled("live-1")
		_, err = chromedp.Run(tab, chromedp.Poll[bool](`document.querySelector("#launch-status").innerText.trim() === "alarm"`))
		if after := textOf(t, tab, `#launch-status`); err != nil || before != "loading" || settling != "loading" || after != "alarm" {
			t.Errorf("status followed %q -> %q -> %q (%v), want loading -> loading (settling) -> alarm", before, settling, after, err)
		}
		n, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll("#log-lines [data-seq]").length`))
		if err != nil || n != 13 {
			t.Errorf("the log shows %d lines (%v), want 13, each once", n, err)
		}
	})

	t.Run("LaunchPageShowsLinesThatArriveBeforeItsLiveStreamOpens", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		lines := strings.SplitAfter(crashingLog, "\n")
		b.postText("/api/v1/launches/live-2/lines?server=sglang", strings.Join(lines[:7], ""))
		tab := newBrowser(t)
		// Hold the page's websocket until the test lets it connect, so
		// lines can arrive between the page's rendering and its stream.
		_, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
			(function () {
				var Real = window.WebSocket;
				window.__holdWS = true;
				window.WebSocket = function (u) {
					var ws = {};
					var wait = setInterval(function () {
						if (window.__holdWS) return;
						clearInterval(wait);
						var r = new Real(u);
						r.onopen = function (e) { if (ws.onopen) ws.onopen(e); };
						r.onmessage = function (m) { if (ws.onmessage) ws.onmessage(m); };
						r.onclose = function (e) { if (ws.onclose) ws.onclose(e); };
					}, 20);
					return ws;
				};
			})();`})
		if err != nil {
			t.Fatal(err)
		}
		err = chromedp.Do(tab,
			chromedp.Navigate(b.url+"/launches/live-2"),
			chromedp.WaitVisible(chromedp.CSS(`#log-lines [data-seq="7"]`)),
			htmxIdle(),
		)
		if err != nil {
			t.Fatalf("opening the launch: %v", err)
		}
		b.postText("/api/v1/launches/live-2/lines", strings.Join(lines[7:], ""))
		err = chromedp.Do(tab,
			chromedp.Evaluate[chromedp.Void](`window.__holdWS = false`),
			chromedp.WaitVisible(chromedp.CSS(`#log-lines [data-seq="13"].k-error`)),
		)
		if err != nil {
			t.Fatalf("the lines that arrived before the stream opened never showed: %v", err)
		}
		b.settled("live-2")
		_, err = chromedp.Run(tab, chromedp.Poll[bool](`document.querySelector("#launch-status").innerText.trim() === "alarm"`))
		if got := textOf(t, tab, `#launch-status`); err != nil || got != "alarm" {
			t.Errorf("status %q (%v), want alarm once settled", got, err)
		}
		n, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll("#log-lines [data-seq]").length`))
		if err != nil || n != 13 {
			t.Errorf("the log shows %d lines (%v), want 13, each once", n, err)
		}
	})

	t.Run("LaunchListShowsChangesMadeWhileItRefreshes", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/list-3/lines?server=sglang", "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n")
		tab := newBrowser(t)
		err := chromedp.Do(tab,
			chromedp.Navigate(b.url+"/"),
			chromedp.WaitVisible(chromedp.CSS(`#launch-table tr:has(a[href="/launches/list-3"])`)),
			htmxIdle(),
			// Every refresh of the table stays unfinished until the test
			// lets it finish: a change can then arrive during one.
			chromedp.Evaluate[chromedp.Void](`(function () {
				var ajax = htmx.ajax;
				window.__hold = true;
				htmx.ajax = function () {
					return ajax.apply(htmx, arguments).then(function (v) {
						return new Promise(function (res) {
							var wait = setInterval(function () { if (!window.__hold) { clearInterval(wait); res(v); } }, 20);
						});
					});
				};
			})()`),
		)
		if err != nil {
			t.Fatalf("opening the list: %v", err)
		}
		b.postText("/api/v1/launches/list-4/lines?server=vllm", "a new launch\n")
		err = chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`#launch-table tr:has(a[href="/launches/list-4"])`)))
		if err != nil {
			t.Fatalf("the list did not refresh: %v", err)
		}
		// This launch arrives while the refresh that showed list-4 is
		// unfinished; its note reaching the page is counted there.
		notes, err := chromedp.Run(tab, chromedp.Evaluate[int](`+document.body.dataset.liveNotes || 0`))
		if err != nil {
			t.Fatal(err)
		}
		b.postText("/api/v1/launches/list-5/lines?server=vllm", "another launch\n")
		if err := chromedp.Do(tab, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Poll[bool](fmt.Sprintf(`(+document.body.dataset.liveNotes || 0) > %d`, notes))(ctx, tg)
			return err
		})); err != nil {
			t.Fatalf("the note of list-5 never reached the page: %v", err)
		}
		// Well before the stream's 30 s tick, which refreshes the list anyway.
		wctx, cancel := context.WithTimeout(tab, 10*time.Second)
		defer cancel()
		err = chromedp.Do(wctx,
			chromedp.Evaluate[chromedp.Void](`window.__hold = false`),
			chromedp.WaitVisible(chromedp.CSS(`#launch-table tr:has(a[href="/launches/list-5"])`)),
		)
		if err != nil {
			t.Fatalf("a change made during a refresh was never shown: %v", err)
		}
	})

	t.Run("FilteredLaunchListFollowsThroughNoMatch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/f-1/lines?server=sglang", "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n")
		tab := newBrowser(t)
		err := chromedp.Do(tab,
			chromedp.Navigate(b.url+"/?status=loading"),
			chromedp.WaitVisible(chromedp.CSS(`#launch-table tr:has(a[href="/launches/f-1"])`)),
			htmxIdle(),
		)
		if err != nil {
			t.Fatalf("opening the list: %v", err)
		}
		// f-1 becomes ready: no launch is loading any more.
		b.postText("/api/v1/launches/f-1/lines", "[2026-04-02 09:29:20] The server is fired up and ready to roll!\n")
		if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`[data-testid="no-match"]`))); err != nil {
			t.Fatalf("the list did not say that nothing matches any more: %v", err)
		}
		// A new loading launch appears in the same list.
		b.postText("/api/v1/launches/f-2/lines?server=sglang", "[2026-04-02 09:30:20] Load weight begin. avail mem=70.12 GB\n")
		wctx, cancel := context.WithTimeout(tab, 10*time.Second)
		defer cancel()
		if err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(`#launch-table tr:has(a[href="/launches/f-2"])`))); err != nil {
			t.Fatalf("the list stopped following once nothing matched: %v", err)
		}
	})

	t.Run("LogSearchRegexpAndPaging", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/s-1/lines?server=vllm", ansiLog(1100))
		tab := newBrowser(t)
		err := chromedp.Do(tab,
			chromedp.Navigate(b.url+"/launches/s-1"),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="log-search"]`)),
			chromedp.SendKeys(chromedp.CSS(`[data-testid="log-search"]`), `step 10[0-9]{2}$`),
			chromedp.Click(chromedp.CSS(`[data-testid="log-filters"] input[name="re"]`)),
			chromedp.Click(chromedp.CSS(`[data-testid="log-filters"] button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#L1000`)),
		)
		if err != nil {
			t.Fatalf("searching the log: %v", err)
		}
		if got := textOf(t, tab, `#L1000 .text`); got != "(APIServer pid=4394) INFO 11-29 10:16:40 [api_server.py:1] step 1000" {
			t.Errorf("the first match reads %q", got)
		}
		if got := textOf(t, tab, `[data-testid="log-pager-top"] [data-testid="log-position"]`); !strings.HasPrefix(got, "lines 1000–1099 of 1107") {
			t.Errorf("position %q", got)
		}
		// A bad expression keeps the page and says why.
		err = chromedp.Do(tab,
			chromedp.SetValue(chromedp.CSS(`[data-testid="log-search"]`), `step (`),
			chromedp.Click(chromedp.CSS(`[data-testid="log-filters"] button[type="submit"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="log-error"]`)),
		)
		if err != nil {
			t.Fatalf("a bad expression: %v", err)
		}
		if got := textOf(t, tab, `[data-testid="log-error"]`); !strings.Contains(got, "missing closing )") {
			t.Errorf("bad expression message %q", got)
		}
		// Unfiltered: jump to the end, then one window back.
		err = chromedp.Do(tab,
			chromedp.Navigate(b.url+"/launches/s-1"),
			chromedp.Click(chromedp.CSS(`[data-testid="log-pager-top"] [data-testid="log-jump-end"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#L1107`)),
			chromedp.Click(chromedp.CSS(`[data-testid="log-pager-top"] [data-testid="log-prev"]`)),
			chromedp.WaitVisible(chromedp.CSS(`#L200`)),
		)
		if err != nil {
			t.Fatalf("paging from the end: %v", err)
		}
		if got := textOf(t, tab, `[data-testid="log-pager-top"] [data-testid="log-position"]`); got != "lines 108–607 of 1107" {
			t.Errorf("position %q", got)
		}
	})

	// The Content-Security-Policy forbids inline script and style: the UI
	// (htmx swaps, the live websockets, the progress bars) must not need
	// them. Chromium reports every blocked thing as a violation event.
	t.Run("UIRunsUnderTheContentSecurityPolicy", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		lines := strings.SplitAfter(crashingLog, "\n")
		b.postText("/api/v1/launches/csp-1/lines?server=sglang", strings.Join(lines[:7], ""))
		b.postText("/api/v1/launches/csp-2/lines?server=sglang", "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n"+
			"Loading safetensors checkpoint shards:  25% Completed | 1/4 [00:01<00:04,  1.52s/it]\n")
		tab := newBrowser(t)
		_, err := chromedp.Call(tab, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
			window.__csp = [];
			document.addEventListener("securitypolicyviolation", function (e) {
				window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + (e.sourceFile || "") + ":" + e.lineNumber);
			});`})
		if err != nil {
			t.Fatal(err)
		}
		violations := func(where string) {
			t.Helper()
			v, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`window.__csp`))
			if err != nil {
				t.Fatal(err)
			}
			if len(v) > 0 {
				t.Errorf("%s: the CSP blocked %q", where, v)
			}
		}
		err = chromedp.Do(tab,
			chromedp.Navigate(b.url+"/"),
			htmxIdle(),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="launch-row"][data-key="csp-2"] progress`)),
		)
		if err != nil {
			t.Fatalf("opening the launch list: %v", err)
		}
		b.postText("/api/v1/launches/csp-3/lines?server=sglang", "hello\n")
		if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`[data-testid="launch-row"][data-key="csp-3"]`)), htmxIdle()); err != nil {
			t.Fatalf("the list did not follow over its websocket: %v", err)
		}
		violations("the launch list")
		err = chromedp.Do(tab,
			chromedp.Navigate(b.url+"/launches/csp-1"),
			chromedp.WaitVisible(chromedp.CSS(`#log-lines [data-seq="7"]`)),
			htmxIdle(),
		)
		if err != nil {
			t.Fatalf("opening the launch: %v", err)
		}
		b.postText("/api/v1/launches/csp-1/lines", strings.Join(lines[7:], ""))
		if err := chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`#log-lines [data-seq="13"].k-error`)), htmxIdle()); err != nil {
			t.Fatalf("the launch page did not follow over its websocket: %v", err)
		}
		violations("the launch page")
		err = chromedp.Do(tab,
			chromedp.Navigate(b.url+"/rules/new?launch=csp-1&alarm=1"),
			htmxIdle(),
			chromedp.Click(chromedp.CSS(`[data-testid="rule-preview-button"]`)),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="preview-total"]`)),
			htmxIdle(),
			chromedp.Navigate(b.url+"/review"),
			htmxIdle(),
		)
		if err != nil {
			t.Fatalf("the rule preview and the review queue: %v", err)
		}
		violations("the rule preview and the review queue")
	})
}
