package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// seedDecisions stores the export test's launches and decides them: an
// OOM confirmed (oom-1), the same OOM dismissed (oom-2), a probe's OOM
// suppressed by a rule (probe-1), and one left open (open-1).
func seedDecisions(t *testing.T, b *testBundle) {
	t.Helper()
	b.postText("/api/v1/launches/oom-1/lines?server=sglang&label.team=infra", exportOOM)
	b.postText("/api/v1/launches/oom-2/lines?server=sglang", exportOOM)
	b.postText("/api/v1/launches/probe-1/lines?server=vllm", exportProbe)
	b.postText("/api/v1/launches/open-1/lines?server=vllm", exportOOM)
	for _, k := range []string{"oom-1", "oom-2", "probe-1", "open-1"} {
		b.settled(k)
	}
	// Three reviewers, each signed in.
	bob := &http.Cookie{Name: "lw_session", Value: b.srv.Session(t, "bob", "reviewer")}
	cy := &http.Cookie{Name: "lw_session", Value: b.srv.Session(t, "cy", "reviewer")}
	b.postForm("/launches/oom-1/alarms/1/decide", url.Values{"verdict": {"confirm"}, "reason": {"tp=8 needs more memory"}}, false)
	b.postForm("/launches/oom-2/alarms/1/decide", url.Values{"verdict": {"dismiss"}, "reason": {"a test of the OOM path"}}, false, bob)
	res := b.postForm("/rules", url.Values{"matcher": {"substring"}, "pattern": {"(sizing probe)"}, "scope": {"server"},
		"server_value": {"vllm"}, "reason": {"the sizing probe runs out of memory on purpose"},
		"expiry": {"days"}, "expiry_days": {"30"}}, false, cy)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("rule: %d %s", res.StatusCode, readBody(t, res))
	}
}

// TestQualityPage: precision from decisions (confirmed ÷ confirmed or
// dismissed) overall and by kind, server and signature, and every rule's
// hits; the open alarm counts nowhere.
func TestQualityPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedDecisions(t, b)
	doc := b.page("/quality", http.StatusOK)
	row := func(table, key string) (string, string) {
		sel := testid(doc, "quality-"+table).Find(`tr[data-key="` + key + `"]`)
		if sel.Length() != 1 {
			t.Fatalf("%s table has no row %q:\n%s", table, key, testid(doc, "quality-"+table).Text())
		}
		return strings.TrimSpace(sel.Find(`[data-testid="quality-precision"]`).Text()),
			strings.Join(strings.Fields(sel.Find(`[data-testid="quality-counts"]`).Text()), " ")
	}
	for _, c := range []struct{ table, key, precision, counts string }{
		{"overall", "all", "0.50", "1 / 1 / 1"},
		{"kind", "oom", "0.50", "1 / 1 / 1"},
		{"server", "sglang", "0.50", "1 / 1 / 0"},
		{"server", "vllm", "–", "0 / 0 / 1"},
	} {
		if p, n := row(c.table, c.key); p != c.precision || n != c.counts {
			t.Errorf("%s %s: precision %q counts %q, want %q %q", c.table, c.key, p, n, c.precision, c.counts)
		}
	}
	sigs := testid(doc, "quality-signature").Find(`tr[data-testid="quality-row"]`)
	if sigs.Length() != 2 || !strings.Contains(sigs.First().Text(), "<size>") {
		t.Errorf("signatures:\n%s", sigs.Text())
	}
	rules := testid(doc, "quality-rule")
	if rules.Length() != 1 || strings.TrimSpace(rules.Find(`[data-testid="rule-hits"]`).Text()) != "1" ||
		!strings.Contains(rules.Text(), "(sizing probe)") || !strings.Contains(rules.Text(), "1 alarms") {
		t.Errorf("rules:\n%s", rules.Text())
	}
	if r := b.do("GET", "/quality?weeks=0", "", nil); r.status != http.StatusBadRequest {
		t.Errorf("weeks=0: %d", r.status)
	}
}
