package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

func TestLaunchesIndex(t *testing.T) {
	t.Parallel()

	t.Run("EmptyInstallShowsHowToShipAFirstLog", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		doc := b.page("/", 200)
		curl := testid(doc, "curl-line").Text()
		if !strings.Contains(curl, "curl --data-binary @x.log") || !strings.Contains(curl, "/api/v1/launches/demo/lines?server=sglang") {
			t.Errorf("curl line = %q", curl)
		}
		if cli := testid(doc, "cli-line").Text(); !strings.HasPrefix(cli, "launchwatch run --launch ") {
			t.Errorf("CLI line = %q", cli)
		}
		if testid(doc, "launch-table").Length() != 0 {
			t.Error("an empty install shows a table")
		}
	})

	t.Run("RowsShowStatusServerHostAlarmsAndTimeToReady", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang&host=gpu-a&label.team=infer", crashingLog)
		b.postText("/api/v1/launches/ok-1/lines?server=sglang&host=gpu-b&name=llama-8b", healthyLog)
		b.settled("crash-1")
		doc := b.page("/", 200)
		rows := testid(doc, "launch-row")
		if rows.Length() != 2 {
			t.Fatalf("%d rows, want 2", rows.Length())
		}
		crash := doc.Find(`[data-testid="launch-row"][data-key="crash-1"]`)
		if got := testid(doc, "status").First().Parent().Parent().AttrOr("data-key", ""); got != "ok-1" {
			t.Errorf("first row is %q, want the newest launch ok-1", got)
		}
		if s := crash.Find(`[data-testid="status"]`).Text(); s != "alarm" {
			t.Errorf("crash-1 status %q, want alarm", s)
		}
		if s := crash.Find(`[data-testid="open-alarms"]`).Text(); s != "1" {
			t.Errorf("crash-1 open alarms %q, want 1", s)
		}
		if !strings.Contains(crash.Text(), "gpu-a") {
			t.Errorf("crash-1 row lacks its host: %q", crash.Text())
		}
		ok := doc.Find(`[data-testid="launch-row"][data-key="ok-1"]`)
		if s := ok.Find(`[data-testid="status"]`).Text(); s != "ready" {
			t.Errorf("ok-1 status %q, want ready", s)
		}
		// First line 11:00:00, ready line 11:01:20.
		if !strings.Contains(ok.Text(), "1m20s") || !strings.Contains(ok.Text(), "llama-8b") {
			t.Errorf("ok-1 row lacks time to ready 1m20s or its name: %q", ok.Text())
		}
	})

	t.Run("FiltersAndSearch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang&label.team=infer", crashingLog)
		b.postText("/api/v1/launches/ok-1/lines?server=vllm&name=llama-8b", "INFO starting\n")
		b.settled("crash-1")
		for path, want := range map[string]string{
			"/?status=alarm":       "crash-1",
			"/?server=vllm":        "ok-1",
			"/?label=team=infer":   "crash-1",
			"/?label=team":         "crash-1",
			"/?q=LLAMA":            "ok-1",
			"/?q=crash":            "crash-1",
			"/?status=ready":       "",
			"/?q=%25":              "",
			"/?label=team=other":   "",
			"/?server=sglang&q=ok": "",
		} {
			doc := b.page(path, 200)
			var keys []string
			for _, n := range testid(doc, "launch-row").EachIter() {
				keys = append(keys, n.AttrOr("data-key", ""))
			}
			if got := strings.Join(keys, ","); got != want {
				t.Errorf("GET %s: rows %q, want %q", path, got, want)
			}
			if want == "" && testid(doc, "no-match").Length() != 1 {
				t.Errorf("GET %s: no 'no match' message", path)
			}
		}
	})

	t.Run("Paging", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for i := range 51 {
			b.postText(fmt.Sprintf("/api/v1/launches/l-%02d/lines?server=sglang", i), "hello\n")
		}
		doc := b.page("/", 200)
		if n := testid(doc, "launch-row").Length(); n != 50 {
			t.Fatalf("first page has %d rows, want 50", n)
		}
		next, ok := testid(doc, "next-page").Attr("href")
		if !ok {
			t.Fatal("no next page link")
		}
		doc = b.page(next, 200)
		if n := testid(doc, "launch-row").Length(); n != 1 || testid(doc, "launch-row").AttrOr("data-key", "") != "l-00" {
			t.Errorf("second page: %d rows, want only the oldest launch l-00", n)
		}
		if testid(doc, "prev-page").Length() != 1 || testid(doc, "next-page").Length() != 0 {
			t.Error("second page: want a previous link and no next link")
		}
	})

	t.Run("BadFilterIsAnHTMLError", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		doc := b.page("/?status=bogus", 400)
		if !strings.Contains(testid(doc, "error-message").Text(), `status "bogus"`) {
			t.Errorf("error page says %q", testid(doc, "error-message").Text())
		}
		doc = b.page("/no/such/page", 404)
		if testid(doc, "error-title").Length() != 1 {
			t.Error("404 is not an HTML page")
		}
	})

	t.Run("StaticFilesAreServed", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for path, want := range map[string]string{"/static/htmx.min.js": "htmx", "/static/app.css": ".badge"} {
			r := b.do("GET", path, "", nil)
			if r.status != 200 || !strings.Contains(string(r.body), want) {
				t.Errorf("GET %s: %d, body lacks %q", path, r.status, want)
			}
		}
	})

	t.Run("SilentIsShownAndFiltered", func(t *testing.T) {
		t.Parallel()
		// The server's clock moves by hand: an hour passes between the two
		// launches' lines, whatever the machine's speed. (A launch's
		// creation time is the database's, so it stays near the start.)
		clk := clock.NewFake(time.Now())
		srv := webtest.Start(t, web.Config{SilentAfter: 30 * time.Minute}, webtest.WithClock(clk))
		b := &testBundle{t: t, url: srv.URL, store: srv.Store}
		b.postText("/api/v1/launches/quiet/lines?server=sglang", "hello\n")
		clk.Advance(time.Hour)
		b.postText("/api/v1/launches/talking/lines?server=sglang", "hello\n")
		keys := func(path string) string {
			var out []string
			for _, r := range testid(b.page(path, 200), "launch-row").EachIter() {
				out = append(out, r.AttrOr("data-key", "")+"="+r.Find(`[data-testid="status"]`).Text())
			}
			return strings.Join(out, ",")
		}
		if got := keys("/?status=silent"); got != "quiet=silent" {
			t.Errorf("silent filter: %q", got)
		}
		if got := keys("/?status=starting"); got != "talking=starting" {
			t.Errorf("starting filter: %q", got)
		}
	})
}
