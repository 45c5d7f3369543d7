package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"launchwatch/internal/web/webtest"
)

// TestSignaturesPage lists the taught signatures like the Rules page: hits,
// the launches affected, author, history; disabling one is a form.
func TestSignaturesPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if doc := b.page("/signatures", 200); testid(doc, "no-signatures").Length() != 1 {
		t.Error("an empty list says nothing")
	}
	b.postText("/api/v1/launches/acme-1/lines?server=acme-serve", acmeLoading)
	b.postText("/api/v1/launches/acme-2/lines?server=acme-serve", acmeLoading)
	b.apiJSON("POST", "/api/v1/signatures", webtest.AdminToken, signatureBody(map[string]any{"meaning": "ready",
		"matcher": "template", "pattern": acmeReadyTemplate, "scope": "server", "scope_value": "acme-serve",
		"reason": "warm <workers> answer", "apply_to_stored": true, "from_launch": "acme-1", "from_seq": 4}), 201)
	doc := b.page("/signatures", 200)
	row := testid(doc, "signature-row")
	if row.Length() != 1 || row.Find(`[data-testid="signature-hits"]`).Text() != "2" ||
		row.Find(`[data-testid="signature-launches"]`).Text() != "2" || !strings.Contains(row.Text(), "warm <workers> answer") ||
		!strings.Contains(row.Text(), "server acme-serve") || !strings.Contains(row.Text(), acmeReadyTemplate) {
		t.Fatalf("row %q", row.Text())
	}
	if h := row.Find(`[data-testid="signature-history"]`).Text(); !strings.Contains(h, "create by token:bootstrap") ||
		!strings.Contains(h, "apply by token:bootstrap: 2 stored launch(es) reclassified") {
		t.Errorf("history %q", h)
	}
	if from := row.Find(`a:contains("taught from this line")`).AttrOr("href", ""); from != "/launches/acme-1?after=0#L4" {
		t.Errorf("taught-from link %q", from)
	}
	if n := row.Find(`a[href="/launches/acme-2"]`).Length(); n != 1 {
		t.Errorf("the affected launches are not linked (%d)", n)
	}
	res := b.postForm("/signatures/1/toggle", url.Values{"enabled": {"0"}}, false)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/signatures#signature-1" {
		t.Fatalf("disable: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	row = testid(b.page("/signatures", 200), "signature-row")
	if row.AttrOr("data-state", "") != "disabled" || !strings.Contains(row.Find(`[data-testid="signature-history"]`).Text(), "disable by ada") {
		t.Errorf("after disabling: %q", row.Text())
	}
	// Disabled, it judges no new line.
	b.postText("/api/v1/launches/acme-3/lines?server=acme-serve", acmeLoading)
	if st := b.launch("acme-3").Status; st != "loading" {
		t.Errorf("acme-3 %s with the signature disabled", st)
	}
	// The form refuses what is wrong, with the reasons in place.
	form := url.Values{"meaning": {"ready"}, "matcher": {"regex"}, "pattern": {".*"}, "scope": {"server"},
		"server_value": {"acme-serve"}, "reason": {"x"}}
	res = b.postForm("/signatures", form, false)
	if body := readBody(t, res); res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `data-testid="form-error"`) {
		t.Errorf("a catch-all from the form: %d", res.StatusCode)
	}
	if r := b.do("GET", "/signatures/new?launch=acme-1&seq=99", "", nil); r.status != http.StatusNotFound {
		t.Errorf("teaching a line that does not exist: %d", r.status)
	}
	if r := b.do("GET", "/signatures/new?launch=acme-1&seq=x", "", nil); r.status != http.StatusBadRequest {
		t.Errorf("teaching line x: %d", r.status)
	}
	if r := b.do("GET", "/signatures/preview?meaning=ready&matcher=regex&pattern=%28&scope=server&server_value=acme-serve", "", nil); r.status != 200 ||
		!strings.Contains(string(r.body), "pattern") {
		t.Errorf("a preview of a bad regex: %d %s", r.status, r.body)
	}
	// Log text and what people typed are rendered escaped everywhere.
	b.postText("/api/v1/launches/xss-1/lines?server=acme-serve", "<script>alert(1)</script> acme-serve up <b>now</b>\n")
	b.apiJSON("POST", "/api/v1/signatures", webtest.AdminToken, signatureBody(map[string]any{"meaning": "ready",
		"matcher": "substring", "pattern": "<script>alert(1)</script> acme", "scope": "server", "scope_value": "acme-serve",
		"reason": "<img src=x onerror=alert(2)>", "from_launch": "xss-1", "from_seq": 1}), 201)
	for _, path := range []string{"/signatures", "/signatures/new?launch=xss-1&seq=1&preview=1", "/launches/xss-1"} {
		r := b.do("GET", path, "", nil)
		if body := string(r.body); r.status != 200 || strings.Contains(body, "<script>alert") || strings.Contains(body, "<img src=x") ||
			strings.Contains(body, "<b>now") {
			t.Errorf("%s renders log text or a reason unescaped (%d)", path, r.status)
		}
	}
	// The launch page offers Reclassify; its preview and apply.
	doc = b.page("/launches/acme-3/reclassify", 200)
	if testid(doc, "reclassify-from").Text() != "loading" || testid(doc, "reclassify-to").Text() != "loading" {
		t.Errorf("reclassify page: %q", testid(doc, "reclassify-preview").Text())
	}
	res = b.postForm("/launches/acme-3/reclassify", url.Values{}, false)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/launches/acme-3" {
		t.Errorf("apply: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	if j := testid(b.page("/launches/acme-3", 200), "judged-by").Text(); !strings.Contains(j, "reclassified") {
		t.Errorf("the launch page does not say it was reclassified: %q", j)
	}
}
