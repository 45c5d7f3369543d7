package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/review"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// ruleForm is the rule form as the browser submits it after "Suppress similar".
func ruleForm(b *testBundle, launch string) url.Values {
	b.t.Helper()
	doc := b.page("/rules/new?launch="+launch+"&alarm=1", 200)
	form := url.Values{}
	for _, in := range doc.Find(`[data-testid="rule-form"] input`).EachIter() {
		name, _ := in.Attr("name")
		typ := in.AttrOr("type", "text")
		if (typ == "radio" || typ == "checkbox") && in.AttrOr("checked", "none") == "none" {
			continue
		}
		form.Set(name, in.AttrOr("value", ""))
	}
	form.Set("matcher", doc.Find(`select[name="matcher"] option[selected]`).AttrOr("value", ""))
	return form
}

func TestRules(t *testing.T) {
	t.Parallel()

	t.Run("SuppressSimilarEverywhereAndAtIngest", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/ok-1/lines?server=sglang", falseAlarmLog)
		b.postText("/api/v1/launches/ok-2/lines?server=sglang", falseAlarmLog)
		b.postText("/api/v1/launches/vllm-1/lines?server=vllm", falseAlarmLog)
		res := b.postForm("/launches/ok-1/alarms/1/decide",
			url.Values{"verdict": {"dismiss"}, "reason": {"optional probe, harmless"}}, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("dismiss: %d", res.StatusCode)
		}

		form := ruleForm(b, "ok-1")
		if form.Get("pattern") != "RuntimeError: probe kernel unavailable on this GPU (sm_90), code <num>" ||
			form.Get("scope") != "server" || form.Get("server_value") != "sglang" ||
			form.Get("reason") != "optional probe, harmless" || form.Get("matcher") != "template" {
			t.Fatalf("form not prefilled from the alarm: %v", form)
		}
		form.Set("preview", "1")
		doc := b.page("/rules/new?"+form.Encode(), 200)
		if o, d := testid(doc, "preview-open").Text(), testid(doc, "preview-dismissed").Text(); o != "1" || d != "1" {
			t.Errorf("preview: %s open, %s dismissed; want 1 and 1 (the vllm launch is out of scope)", o, d)
		}
		frag := b.do("GET", "/rules/preview?"+form.Encode(), "", nil)
		if frag.status != 200 || !strings.Contains(string(frag.body), `data-testid="preview-total">2<`) || strings.Contains(string(frag.body), "<html") {
			t.Errorf("htmx preview fragment: %d %s", frag.status, frag.body)
		}

		form.Del("preview")
		res = b.postForm("/rules", form, false)
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/rules#rule-") {
			t.Fatalf("save: %d %s", res.StatusCode, readBody(t, res))
		}
		if a := b.alarm("ok-2", 1); a.State != "suppressed" || a.RuleID == nil {
			t.Errorf("ok-2's alarm %+v, want suppressed by the rule", a)
		}
		if st := b.launch("ok-2").Status; st != "ready" {
			t.Errorf("ok-2 status %q, want ready once its only alarm is suppressed", st)
		}
		if a := b.alarm("ok-1", 1); a.State != "dismissed" {
			t.Errorf("the person's dismissal was replaced: %+v", a)
		}
		if a := b.alarm("vllm-1", 1); a.State != "open" {
			t.Errorf("an alarm out of the rule's scope changed: %+v", a)
		}
		audit, err := b.store.AuditFor(context.Background(), review.RuleSubject(*b.alarm("ok-2", 1).RuleID))
		if err != nil || len(audit) != 1 || audit[0].Action != "rule.create" || audit[0].Actor != "ada" {
			t.Errorf("audit %+v %v", audit, err)
		}

		// The same false alarm in a new launch never opens.
		b.postText("/api/v1/launches/ok-3/lines?server=sglang", falseAlarmLog)
		if l := b.launch("ok-3"); l.Counts.OpenAlarms != 0 || l.Status != "ready" {
			t.Errorf("ok-3: %d open alarms, status %s", l.Counts.OpenAlarms, l.Status)
		}
		doc = b.page("/launches/ok-3", 200)
		if testid(doc, "alarm-card").Length() != 0 || testid(doc, "show-suppressed").Length() != 1 {
			t.Error("a suppressed alarm is shown by default, or its filter is missing")
		}
		doc = b.page("/launches/ok-3?suppressed=1", 200)
		if card := testid(doc, "alarm-card"); card.AttrOr("data-state", "") != "suppressed" || !strings.Contains(card.Text(), "suppressed by rule") {
			t.Errorf("suppressed alarm under the filter: %q", card.Text())
		}

		// Errors only hides the suppressed alarm's lines unless asked for.
		doc = b.page("/launches/ok-3?errors=1", 200)
		if n := testid(doc, "log").Find(`.in-alarm`).Length(); n != 0 {
			t.Errorf("errors only shows %d lines of the suppressed alarm", n)
		}
		doc = b.page("/launches/ok-3?errors=1&suppressed=1", 200)
		if n := testid(doc, "log").Find(`.in-alarm`).Length(); n != 4 {
			t.Errorf("errors only with suppressed shows %d lines of the alarm, want 4", n)
		}

		doc = b.page("/rules", 200)
		row := testid(doc, "rule-row")
		if row.Length() != 1 || row.Find(`[data-testid="rule-hits"]`).Text() != "2" || !strings.Contains(row.Text(), "optional probe, harmless") {
			t.Errorf("rules list: %q", row.Text())
		}
		if h := row.Find(`[data-testid="rule-history"]`).Text(); !strings.Contains(h, "create by ada") {
			t.Errorf("rule history %q", h)
		}
		if from := row.Find(`a:contains("from this alarm")`).AttrOr("href", ""); from != "/launches/ok-1#alarm-1" {
			t.Errorf("rule links to its alarm as %q", from)
		}
		if testid(doc, "rules-expiring").Length() != 1 || testid(doc, "rules-never").Length() != 0 {
			t.Error("a rule without 'never' is not listed with the expiring rules")
		}

		// Disabling re-opens what it suppressed; the person's dismissal stays.
		id := row.AttrOr("data-rule", "")
		res = b.postForm("/rules/"+id+"/toggle", url.Values{"enabled": {"0"}}, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("disable: %d", res.StatusCode)
		}
		for _, key := range []string{"ok-2", "ok-3"} {
			if a := b.alarm(key, 1); a.State != "open" || a.RuleID != nil {
				t.Errorf("%s's alarm after disabling: %+v", key, a)
			}
			// The probe's traceback came before the server became
			// ready, so it is an open alarm of a ready launch, not fatal.
			if l := b.launch(key); l.Counts.OpenAlarms != 1 || l.Status != "ready" {
				t.Errorf("%s after disabling: %d open alarms, status %q; want 1 and ready", key, l.Counts.OpenAlarms, l.Status)
			}
		}
		if a := b.alarm("ok-1", 1); a.State != "dismissed" {
			t.Errorf("disabling touched a person's decision: %+v", a)
		}
		// Enabling it again suppresses them again; the why is recorded and shown.
		res = b.postForm("/rules/"+id+"/toggle", url.Values{"enabled": {"1"},
			"reason": {"the probe is noisy again"}}, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("enable: %d", res.StatusCode)
		}
		if h := testid(b.page("/rules", 200), "rule-history").Text(); !strings.Contains(h, "enable by ada: the probe is noisy again") ||
			!strings.Contains(h, "create by ada: optional probe, harmless") {
			t.Errorf("rule history %q lacks why it was created and enabled", h)
		}
		for _, key := range []string{"ok-2", "ok-3"} {
			if a := b.alarm(key, 1); a.State != "suppressed" {
				t.Errorf("%s's alarm after enabling: %+v", key, a)
			}
		}
	})

	t.Run("RuleThatHidesConfirmedAlarmNeedsOverride", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		b.postText("/api/v1/launches/crash-2/lines?server=sglang", crashingLog)
		b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"confirm"}}, false)

		form := url.Values{"matcher": {"substring"}, "pattern": {"CUDA out of memory"}, "scope": {"all"},
			"expiry": {"never"}, "reason": {"OOMs are noise"}}
		res := b.postForm("/rules", form, false)
		body := readBody(t, res)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "would hide 1 confirmed alarm") ||
			!strings.Contains(body, `data-testid="preview-hides-confirmed"`) {
			t.Fatalf("rule hiding a confirmed alarm: %d", res.StatusCode)
		}
		if a := b.alarm("crash-2", 1); a.State != "open" {
			t.Fatalf("a refused rule suppressed an alarm: %+v", a)
		}
		form.Set("override", "1")
		res = b.postForm("/rules", form, false)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(readBody(t, res), "say why this rule may hide") {
			t.Fatalf("override without reason: %d", res.StatusCode)
		}
		form.Set("override_reason", "test cluster, OOMs expected")
		res = b.postForm("/rules", form, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("override with reason: %d %s", res.StatusCode, readBody(t, res))
		}
		if a := b.alarm("crash-1", 1); a.State != "confirmed" {
			t.Errorf("the rule changed a confirmed alarm: %+v", a)
		}
		if a := b.alarm("crash-2", 1); a.State != "suppressed" {
			t.Errorf("crash-2's open alarm: %+v", a)
		}
		doc := b.page("/rules", 200)
		never := testid(doc, "rules-never")
		if never.Find(`[data-testid="rule-row"]`).Length() != 1 || !strings.Contains(never.Text(), "test cluster, OOMs expected") {
			t.Errorf("never-expiring rule with its override not listed apart: %q", never.Text())
		}
	})

	t.Run("RuleNeedsReasonAndValidPattern", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		res := b.postForm("/rules", url.Values{"matcher": {"regex"}, "pattern": {"("}, "scope": {"label"},
			"label_value": {"team"}}, false)
		body := readBody(t, res)
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("invalid rule: %d", res.StatusCode)
		}
		for _, want := range []string{"rule regex", "give the label as name=value", "a rule needs a reason"} {
			if !strings.Contains(body, want) {
				t.Errorf("answer lacks %q", want)
			}
		}
	})

	t.Run("EditWithPreviewMovesWhatItSuppresses", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/ok-1/lines?server=sglang", falseAlarmLog)
		b.postText("/api/v1/launches/vllm-1/lines?server=vllm", falseAlarmLog)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		b.postForm("/launches/crash-1/alarms/1/decide", url.Values{"verdict": {"confirm"}}, false)
		res := b.postForm("/rules", url.Values{"matcher": {"substring"}, "pattern": {"probe kernel"}, "scope": {"server"},
			"server_value": {"sglang"}, "reason": {"probe noise"}, "expiry": {"days"}, "expiry_days": {"7"}}, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("save: %d", res.StatusCode)
		}
		id := strings.TrimPrefix(res.Header.Get("Location"), "/rules#rule-")
		if a := b.alarm("ok-1", 1); a.State != "suppressed" {
			t.Fatalf("ok-1 %+v", a)
		}

		doc := b.page("/rules/"+id+"/edit", 200)
		if v := doc.Find(`input[name="pattern"]`).AttrOr("value", ""); v != "probe kernel" {
			t.Errorf("edit form pattern %q", v)
		}
		if v := doc.Find(`input[name="expiry_days"]`).AttrOr("value", ""); v != "7" {
			t.Errorf("edit form shows %q days left, want 7", v)
		}
		if n := testid(doc, "preview-total").Text(); n != "1" {
			t.Errorf("edit preview total %q, want 1 (ok-1, held by the rule)", n)
		}

		res = b.postForm("/rules/"+id, url.Values{"matcher": {"regex"}, "pattern": {"CUDA out of memory|probe"},
			"scope": {"all"}, "reason": {"probe noise"}}, false)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(readBody(t, res), "would hide 1 confirmed") {
			t.Fatalf("an edit hiding a confirmed alarm: %d", res.StatusCode)
		}
		res = b.postForm("/rules/"+id, url.Values{"matcher": {"substring"}, "pattern": {"probe kernel"},
			"scope": {"server"}, "server_value": {"vllm"}, "reason": {"probe noise on vLLM only"}}, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("edit: %d %s", res.StatusCode, readBody(t, res))
		}
		if a := b.alarm("ok-1", 1); a.State != "open" {
			t.Errorf("ok-1 out of the edited scope: %+v", a)
		}
		if a := b.alarm("vllm-1", 1); a.State != "suppressed" {
			t.Errorf("vllm-1 in the edited scope: %+v", a)
		}
		if a := b.alarm("crash-1", 1); a.State != "confirmed" {
			t.Errorf("crash-1: %+v", a)
		}
		n, _ := strconv.ParseInt(id, 10, 64)
		audit, err := b.store.AuditFor(context.Background(), review.RuleSubject(n))
		if err != nil || len(audit) != 2 || audit[1].Action != "rule.update" || audit[1].Actor != "ada" {
			t.Errorf("audit %+v %v", audit, err)
		}
		doc = b.page("/rules", 200)
		if row := testid(doc, "rule-row"); row.Find(`[data-testid="rule-hits"]`).Text() != "2" || !strings.Contains(row.Text(), "server vllm") {
			t.Errorf("rule row after the edit: %q", row.Text())
		}
	})

	t.Run("ExpiryReopensAndStaleRulesAreMarked", func(t *testing.T) {
		t.Parallel()
		// The server's clock is the test's: the rule expires when the test
		// moves it 31 days on, and the expiry worker wakes for it.
		fake := clock.NewFake(time.Now())
		srv := webtest.Start(t, web.Config{}, webtest.WithClock(fake))
		b := &testBundle{t: t, url: srv.URL, store: srv.Store, srv: srv}
		b.postText("/api/v1/launches/ok-1/lines?server=sglang", falseAlarmLog)
		res := b.postForm("/rules", url.Values{"matcher": {"substring"}, "pattern": {"probe kernel"}, "scope": {"all"},
			"reason": {"probe noise"}}, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("save: %d", res.StatusCode)
		}
		id := strings.TrimPrefix(res.Header.Get("Location"), "/rules#rule-")
		var expires time.Time
		must(t, b.store.Pool().QueryRow(context.Background(), `SELECT expires_at FROM rules WHERE id = $1`, id).Scan(&expires))
		if d := time.Until(expires); d < 29*24*time.Hour || d > 31*24*time.Hour {
			t.Errorf("a rule without 'never' expires in %v, want 30 days", d)
		}
		// 50 launches later without a hit, the rule is stale.
		for i := range 50 {
			b.postText(fmt.Sprintf("/api/v1/launches/other-%d/lines", i), "hello\n")
		}
		doc := b.page("/rules", 200)
		if testid(doc, "rule-stale").Length() != 1 {
			t.Error("a rule that matched nothing in the last 50 launches is not marked stale")
		}
		// Once it expires, what it suppressed is open again.
		fake.Advance(31 * 24 * time.Hour)
		// The expiry worker gives the alarms back; pages only read.
		waitFor(t, 10*time.Second, "the expiry worker to give the alarm back", func() bool {
			return b.alarm("ok-1", 1).State == "open"
		})
		doc = b.page("/rules", 200)
		if st := testid(doc, "rule-row").AttrOr("data-state", ""); st != "expired" {
			t.Errorf("rule state %q, want expired", st)
		}
		if a := b.alarm("ok-1", 1); a.State != "open" {
			t.Errorf("alarm of an expired rule: %+v", a)
		}
		if l := b.launch("ok-1"); l.Counts.OpenAlarms != 1 || l.Status != "ready" {
			t.Errorf("after the rule expired: %d open alarms, status %q; want 1 and ready", l.Counts.OpenAlarms, l.Status)
		}
		// Disabling and enabling an expired rule does not bring it back in force.
		for _, enabled := range []string{"0", "1"} {
			if res := b.postForm("/rules/"+id+"/toggle", url.Values{"enabled": {enabled}}, false); res.StatusCode != http.StatusSeeOther {
				t.Fatalf("toggle enabled=%s: %d", enabled, res.StatusCode)
			}
		}
		if a := b.alarm("ok-1", 1); a.State != "open" {
			t.Errorf("enabling an expired rule suppressed an alarm: %+v", a)
		}

		t.Run("StaleCountsOnlyLaunchesInScope", func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			// A rule for vLLM is not stale after 50 SGLang launches, and is
			// after 50 vLLM launches without a hit.
			res := b.postForm("/rules", url.Values{"matcher": {"substring"}, "pattern": {"some vllm noise"}, "scope": {"server"},
				"server_value": {"vllm"}, "reason": {"vllm noise"}}, false)
			if res.StatusCode != http.StatusSeeOther {
				t.Fatalf("save the vllm rule: %d", res.StatusCode)
			}
			for i := range 50 {
				b.postText(fmt.Sprintf("/api/v1/launches/sg-%d/lines?server=sglang", i), "hello\n")
			}
			if testid(b.page("/rules", 200), "rule-stale").Length() != 0 {
				t.Error("a vllm rule is marked stale after 50 launches of another server")
			}
			for i := range 50 {
				b.postText(fmt.Sprintf("/api/v1/launches/vl-%d/lines?server=vllm", i), "hello\n")
			}
			if testid(b.page("/rules", 200), "rule-stale").Length() != 1 {
				t.Error("a vllm rule is not marked stale after 50 vllm launches without a hit")
			}
		})
	})
}

// TestUIMalformedInputIs4xx: text the database cannot store (NUL bytes,
// invalid UTF-8) or numbers out of range in a UI query or form are the
// client's mistake, answered 4xx with a message, never a 500.
func TestUIMalformedInputIs4xx(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/ok-1/lines?server=sglang&label.team=infra", falseAlarmLog)
	rule := url.Values{"matcher": {"template"}, "pattern": {"a"}, "scope": {"all"}, "reason": {"r"}}
	with := func(k, v string) url.Values {
		f := url.Values{}
		for key, vs := range rule {
			f[key] = vs
		}
		f.Set(k, v)
		return f
	}
	for _, p := range []string{
		"/?q=%00", "/?label=team=%00", "/?label=team=%ff",
		"/rules/preview?matcher=template&pattern=%00", "/rules/preview?matcher=template&pattern=%ff",
		"/rules/preview?matcher=substring&pattern=a&scope=label&label_value=a=%00",
		"/rules/preview?matcher=substring&pattern=a&scope=server&server_value=%00",
		"/rules/new?matcher=substring&pattern=a&scope=label&label_value=a%3D%00&preview=1",
		"/rules/new?launch=%00&alarm=1", "/rules/new?launch=ok-1&alarm=99999999999",
	} {
		if r := b.do("GET", p, "", nil); r.status < 400 || r.status >= 500 {
			t.Errorf("GET %s: %d, want 4xx", p, r.status)
		}
	}
	for _, f := range []struct {
		path string
		form url.Values
	}{
		{"/launches/ok-1/annotations", url.Values{"body": {"\xff"}}},
		{"/launches/ok-1/alarms/1/decide", url.Values{"verdict": {"dismiss"}, "name": {"\xff"}, "reason": {"x"}}},
		{"/launches/ok-1/alarms/1/decide", url.Values{"verdict": {"dismiss"}, "reason": {"\xff"}}},
		{"/rules", with("pattern", "a\x00")},
		{"/rules", with("reason", "r\x00")},
		{"/rules", with("reason", "\xff")},
		{"/rules", url.Values{"matcher": {"template"}, "pattern": {"a"}, "scope": {"label"}, "label_value": {"a=\x00"}, "reason": {"r"}}},
		{"/rules", with("alarm", "99999999999")},
		{"/rules", with("expiry_days", "0")}, // not silently 30 days
		{"/review/decide", url.Values{"verdict": {"dismiss"}, "reason": {"r"}, "fingerprint": {"\x00"}}},
	} {
		if f.path == "/rules" && f.form.Get("alarm") != "" {
			f.form.Set("launch", "ok-1")
		}
		res := b.postForm(f.path, f.form, false)
		if res.StatusCode < 400 || res.StatusCode >= 500 {
			t.Errorf("POST %s %s: %d, want 4xx", f.path, f.form.Encode(), res.StatusCode)
		}
	}
}

// TestRuleSaveSeesEveryStoredAlarm: the preview reads only the newest
// alarms, but saving a rule must see all of them: a confirmed alarm
// beyond the preview's reach still needs the override, and every open
// alarm it matches is suppressed at once.
func TestRuleSaveSeesEveryStoredAlarm(t *testing.T) {
	t.Parallel()
	b := setup(t)
	keyError := func(i int) string {
		return fmt.Sprintf("[2026-11-29 11:00:00] INFO step %d\nTraceback (most recent call last):\n  File \"x.py\", line 1, in f\nKeyError: 'k%d'\n", i, i)
	}
	b.postText("/api/v1/launches/old/lines?server=sglang", keyError(0))
	if res := b.postForm("/launches/old/alarms/1/decide", url.Values{"verdict": {"confirm"}}, false); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("confirm: %d", res.StatusCode)
	}
	var sb strings.Builder
	for i := range 5100 {
		sb.WriteString(keyError(i))
	}
	b.postText("/api/v1/launches/many/lines?server=sglang", sb.String())

	form := url.Values{"matcher": {"substring"}, "pattern": {"KeyError: 'k"}, "scope": {"all"}, "reason": {"noise"},
		"name": {"ada"}}
	if res := b.postForm("/rules", form, false); res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a rule matching a confirmed alarm beyond the preview was saved without override: %d", res.StatusCode)
	}
	form.Set("override", "1")
	form.Set("override_reason", "the old one was a test")
	if res := b.postForm("/rules", form, false); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save with override: %d %s", res.StatusCode, readBody(t, res))
	}
	if n := b.launch("many").Counts.OpenAlarms; n != 0 {
		t.Errorf("%d matching alarms are still open after saving the rule", n)
	}
	if a := b.alarm("old", 1); a.State != "confirmed" {
		t.Errorf("the confirmed alarm became %q", a.State)
	}
}
