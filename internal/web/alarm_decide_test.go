package web_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"launchwatch/internal/review"
	"launchwatch/internal/store"
)

// postForm posts a form as a browser would (same origin), optionally as htmx.
func (b *testBundle) postForm(path string, form url.Values, htmx bool, cookies ...*http.Cookie) *http.Response {
	b.t.Helper()
	req, err := http.NewRequest("POST", b.url+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	for _, c := range cookies {
		req.AddCookie(c)
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	b.t.Cleanup(func() { res.Body.Close() })
	return res
}

func readBody(t *testing.T, r *http.Response) string {
	t.Helper()
	data, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func (b *testBundle) alarm(key string, no int) store.Alarm {
	b.t.Helper()
	ctx := context.Background()
	l, err := b.store.LaunchByKey(ctx, key)
	if err != nil {
		b.t.Fatal(err)
	}
	a, err := b.store.Alarm(ctx, l.ID, no)
	if err != nil {
		b.t.Fatal(err)
	}
	return a
}

func TestAlarmDecide(t *testing.T) {
	t.Parallel()

	t.Run("ConfirmWithoutJSRedirectsAndCrashesTheLaunch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		res := b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"confirm"}, "name": {"ada"}}, false)
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/launches/crash-1#alarm-1" {
			t.Fatalf("answer %d, Location %q", res.StatusCode, res.Header.Get("Location"))
		}
		var remembered *http.Cookie
		for _, c := range res.Cookies() {
			if c.Name == "lw_reviewer" {
				remembered = c
			}
		}
		if remembered == nil || remembered.Value != "ada" {
			t.Fatalf("reviewer cookie %+v", remembered)
		}
		if st := b.launch("crash-1").Status; st != "crashed" {
			t.Errorf("status %q after confirming the fatal alarm, want crashed", st)
		}
		a := b.alarm("crash-1", 1)
		if a.State != "confirmed" || a.DecidedBy == nil || *a.DecidedBy != "ada" || a.DecidedAt == nil {
			t.Errorf("alarm %+v", a)
		}
		audit, err := b.store.AuditFor(context.Background(), review.Subject("crash-1", 1))
		if err != nil {
			t.Fatal(err)
		}
		if len(audit) != 1 || audit[0].Actor != "ada" || audit[0].Action != "alarm.confirm" || audit[0].Detail["from"] != "open" {
			t.Errorf("audit %+v", audit)
		}
		// The page shows the decision and prefills the remembered name.
		req, _ := http.NewRequest("GET", b.url+"/launches/crash-1", nil)
		req.AddCookie(remembered)
		page, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := readBody(t, page)
		page.Body.Close()
		if !strings.Contains(body, "confirmed by <strong>ada</strong>") || !strings.Contains(body, `value="ada"`) {
			t.Errorf("page lacks the decision or the remembered name")
		}
		// A second decision: the card keeps the history of both.
		res = b.postForm("/launches/crash-1/alarms/1/decide",
			url.Values{"verdict": {"dismiss"}, "name": {"bob"}, "reason": {"it was a drill"}}, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("second decision: %d", res.StatusCode)
		}
		doc := b.page("/launches/crash-1", 200)
		h := testid(doc, "alarm-history").Text()
		if !strings.Contains(h, "confirm by ada") || !strings.Contains(h, "dismiss by bob: it was a drill") {
			t.Errorf("alarm history %q", h)
		}
	})

	t.Run("DismissInPlaceWithHtmx", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		res := b.postForm("/launches/crash-1/alarms/1/decide",
			url.Values{"verdict": {"dismiss"}, "name": {"bob"}, "reason": {"injected <b>test</b> fault"}}, true)
		body := readBody(t, res)
		if res.StatusCode != 200 {
			t.Fatalf("answer %d: %s", res.StatusCode, body)
		}
		if !strings.Contains(body, `data-state="dismissed"`) || !strings.Contains(body, "injected &lt;b&gt;test&lt;/b&gt; fault") {
			t.Errorf("card is not the dismissed alarm with its escaped reason: %s", body)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if doc.Find(`#facts[hx-swap-oob="true"]`).Length() != 1 || doc.Find(`#timeline[hx-swap-oob="true"]`).Length() != 1 {
			t.Errorf("answer lacks the facts and timeline out of band: %s", body)
		}
		if st := doc.Find(`#launch-status`).Text(); st != "loading" {
			t.Errorf("status out of band %q, want loading", st)
		}
		if m := doc.Find(`[data-testid="timeline-alarm"]`).AttrOr("data-state", ""); m != "dismissed" {
			t.Errorf("timeline alarm marker %q, want dismissed", m)
		}
		if n := doc.Find(`[data-testid="launch-open-alarms"]`).Text(); n != "0" {
			t.Errorf("open alarms out of band %q, want 0", n)
		}
		if st := b.launch("crash-1").Status; st == "alarm" || st == "crashed" {
			t.Errorf("status %q after dismissing the only alarm", st)
		}
		a := b.alarm("crash-1", 1)
		if a.State != "dismissed" || a.Reason == nil || *a.Reason != "injected <b>test</b> fault" {
			t.Errorf("alarm %+v", a)
		}
	})

	t.Run("InvalidDecisionsAreExplained", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		res := b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"dismiss"}, "name": {"bob"}}, true)
		body := readBody(t, res)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "say why this is not a real failure") || !strings.Contains(body, `value="bob"`) {
			t.Errorf("dismiss without reason: %d %s", res.StatusCode, body)
		}
		res = b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"confirm"}}, false)
		body = readBody(t, res)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "enter your name") || !strings.Contains(body, "<html") {
			t.Errorf("confirm without name, no JS: %d", res.StatusCode)
		}
		if a := b.alarm("crash-1", 1); a.State != "open" {
			t.Errorf("an invalid decision changed the alarm: %+v", a)
		}
		res = b.postForm("/launches/crash-1/alarms/9/decide", url.Values{"verdict": {"confirm"}, "name": {"x"}}, false)
		if res.StatusCode != 404 {
			t.Errorf("unknown alarm: %d", res.StatusCode)
		}
	})

	t.Run("CrossOriginPostIsRefused", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		req, _ := http.NewRequest("POST", b.url+"/launches/crash-1/alarms/1/decide",
			strings.NewReader("verdict=confirm&name=mallory"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("cross-site post: %d", res.StatusCode)
		}
		if a := b.alarm("crash-1", 1); a.State != "open" {
			t.Errorf("a cross-site post changed the alarm")
		}
	})
}

// TestReviewerNameIsRememberedWhole: a name with letters beyond ASCII or
// quotes comes back from the cookie as typed, so the next decision records
// the same person.
func TestReviewerNameIsRememberedWhole(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
	for _, name := range []string{"Zoë Müller", `ada "the reviewer"; ok`, "李雷"} {
		res := b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"confirm"}, "name": {name}}, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("decide: %d", res.StatusCode)
		}
		var remembered *http.Cookie
		for _, c := range res.Cookies() {
			if c.Name == "lw_reviewer" {
				remembered = c
			}
		}
		if remembered == nil {
			t.Fatalf("%q: no reviewer cookie", name)
		}
		req, _ := http.NewRequest("GET", b.url+"/launches/crash-1", nil)
		req.AddCookie(remembered)
		page, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(page.Body)
		page.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := testid(doc, "reviewer-name").First().AttrOr("value", ""); got != name {
			t.Errorf("name %q is prefilled as %q", name, got)
		}
	}
}
