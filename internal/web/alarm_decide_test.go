package web_test

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"launchwatch/internal/review"
	"launchwatch/internal/store"
	"launchwatch/internal/web/webtest"
)

// postForm posts a form as a browser would (same origin), optionally as
// htmx, signed in as the test server's admin with the page's CSRF token
// unless cookies say otherwise (a cookie named lw_session replaces the
// admin's session; the form's csrf_token, when set, is kept).
func (b *testBundle) postForm(path string, form url.Values, htmx bool, cookies ...*http.Cookie) *http.Response {
	b.t.Helper()
	session := webtest.AdminSession
	for _, c := range cookies {
		if c.Name == "lw_session" {
			session = c.Value
		}
	}
	if form.Get("csrf_token") == "" && session != "" {
		form = maps.Clone(form)
		form.Set("csrf_token", b.csrfToken(session))
	}
	cookies = append([]*http.Cookie{{Name: "lw_session", Value: session}}, cookies...)
	req, err := http.NewRequest("POST", b.url+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	if htmx {
		req.Header.Set("HX-Request", "true")
	}
	seen := map[string]bool{}
	for i := len(cookies) - 1; i >= 0; i-- { // the last cookie of a name wins
		if c := cookies[i]; !seen[c.Name] {
			seen[c.Name] = true
			req.AddCookie(c)
		}
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
		res := b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"confirm"}}, false)
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/launches/crash-1#alarm-1" {
			t.Fatalf("answer %d, Location %q", res.StatusCode, res.Header.Get("Location"))
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
		// The page shows the decision by the signed-in user.
		if body := string(b.do("GET", "/launches/crash-1", "", nil).body); !strings.Contains(body, "confirmed by <strong>ada</strong>") {
			t.Errorf("page lacks the decision")
		}
		// A second decision by another reviewer: the card keeps the history
		// of both. Dismissing what a person confirmed needs an admin, so bob
		// is one.
		bob := &http.Cookie{Name: "lw_session", Value: b.srv.Session(t, "bob", "admin")}
		res = b.postForm("/launches/crash-1/alarms/1/decide",
			url.Values{"verdict": {"dismiss"}, "reason": {"it was a drill"}}, false, bob)
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
			url.Values{"verdict": {"dismiss"}, "reason": {"injected <b>test</b> fault"}}, true)
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
		res := b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"dismiss"}}, true)
		body := readBody(t, res)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "say why this is not a real failure") {
			t.Errorf("dismiss without reason: %d %s", res.StatusCode, body)
		}
		res = b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"maybe"}}, false)
		body = readBody(t, res)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "<html") {
			t.Errorf("an unknown verdict without JS: %d", res.StatusCode)
		}
		if a := b.alarm("crash-1", 1); a.State != "open" {
			t.Errorf("an invalid decision changed the alarm: %+v", a)
		}
		res = b.postForm("/launches/crash-1/alarms/9/decide", url.Values{"verdict": {"confirm"}}, false)
		if res.StatusCode != 404 {
			t.Errorf("unknown alarm: %d", res.StatusCode)
		}
	})

	t.Run("CrossOriginPostIsRefused", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		req, _ := http.NewRequest("POST", b.url+"/launches/crash-1/alarms/1/decide",
			strings.NewReader("verdict=confirm"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		req.AddCookie(&http.Cookie{Name: "lw_session", Value: webtest.AdminSession})
		req.Header.Set("X-CSRF-Token", b.csrfToken(webtest.AdminSession))
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

// TestDecisionsAreAttributedToTheSignedInUser: the decision records the
// signed-in user's name whole (letters beyond ASCII, quotes), and a name
// typed in the form counts for nothing.
func TestDecisionsAreAttributedToTheSignedInUser(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
	for _, name := range []string{"Zoë Müller", `ada "the reviewer"; ok`, "李雷"} {
		session := &http.Cookie{Name: "lw_session", Value: b.srv.Session(t, name, "reviewer")}
		res := b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"confirm"}, "name": {"mallory"}}, false, session)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("decide: %d", res.StatusCode)
		}
		if a := b.alarm("crash-1", 1); a.DecidedBy == nil || *a.DecidedBy != name {
			t.Errorf("decided by %v, want %q", a.DecidedBy, name)
		}
	}
	// A reviewer cannot dismiss what a person confirmed; an admin can.
	session := &http.Cookie{Name: "lw_session", Value: b.srv.Session(t, "rita", "reviewer")}
	res := b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"dismiss"}, "reason": {"drill"}}, false, session)
	if body := readBody(t, res); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "only an admin may dismiss it") {
		t.Errorf("a reviewer dismissing a confirmed alarm: %d %s", res.StatusCode, body)
	}
	if a := b.alarm("crash-1", 1); a.State != "confirmed" {
		t.Errorf("the refused dismissal changed the alarm: %+v", a)
	}
	res = b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"dismiss"}, "reason": {"drill"}}, false)
	if res.StatusCode != http.StatusSeeOther || b.alarm("crash-1", 1).State != "dismissed" {
		t.Errorf("an admin dismissing a confirmed alarm: %d", res.StatusCode)
	}
}
