package web_test

import (
	"net/http"
	"strings"
	"testing"

	"launchwatch/internal/web/webtest"
)

// TestSignatureSuggestions: when a probe or an exit proves what the log
// did not say, the launch page proposes a signature from the nearest
// candidate line, and one click opens the teach form with its preview.
func TestSignatureSuggestions(t *testing.T) {
	t.Parallel()
	b := setup(t)

	// A health probe passed; no readiness line was recognised.
	b.postText("/api/v1/launches/acme-p/lines?server=acme-serve", acmeLoading)
	b.apiJSON("POST", "/api/v1/launches/acme-p/health", webtest.AdminToken, `{"ok":true,"detail":"GET /health 200"}`, 200)
	doc := b.page("/launches/acme-p", 200)
	s := testid(doc, "suggestion")
	if s.Length() != 1 || s.AttrOr("data-meaning", "") != "ready" || !strings.Contains(s.Text(), "engine warm") ||
		!strings.Contains(s.Text(), "line 4") {
		t.Fatalf("suggestion %q", s.Text())
	}
	href := s.Find(`[data-testid="suggestion-teach"]`).AttrOr("href", "")
	form := b.page(href, 200)
	if v := testid(form, "signature-pattern").AttrOr("value", ""); v != acmeReadyTemplate {
		t.Errorf("the suggestion's form has pattern %q", v)
	}
	if testid(form, "meaning-ready").AttrOr("checked", "no") == "no" {
		t.Error("the suggestion's form is not for a ready signature")
	}
	if n := testid(form, "backtest-lines").Text(); n != "1" {
		t.Errorf("the suggestion's preview matches %q lines, want 1", n)
	}

	// The process died; no fatal alarm was raised.
	lines := strings.SplitAfter(acmeLoading, "\n")
	b.postText("/api/v1/launches/acme-d/lines?server=acme-serve", strings.Join(lines[:3], "")+acmeFatalLine+"\n2026-11-29 10:01:41 acme-serve: bye\n")
	b.apiJSON("POST", "/api/v1/launches/acme-d/exit", webtest.AdminToken, `{"code":3}`, 200)
	doc = b.page("/launches/acme-d", 200)
	s = testid(doc, "suggestion")
	if s.Length() != 1 || s.AttrOr("data-meaning", "") != "fatal" || !strings.Contains(s.Text(), "lost its heartbeat") ||
		!strings.Contains(s.Text(), "exited with code 3") {
		t.Fatalf("suggestion %q", s.Text())
	}
	form = b.page(s.Find(`[data-testid="suggestion-teach"]`).AttrOr("href", ""), 200)
	if testid(form, "meaning-fatal").AttrOr("checked", "no") == "no" || testid(form, "backtest-lines").Text() != "1" {
		t.Errorf("the fatal suggestion's form: %s", testid(form, "signature-backtest").Text())
	}

	// Nothing to suggest: a healthy launch, an operator's stop.
	b.postText("/api/v1/launches/ok-1/lines?server=sglang", healthyLog)
	b.apiJSON("POST", "/api/v1/launches/ok-1/health", webtest.AdminToken, `{"ok":true}`, 200)
	if n := testid(b.page("/launches/ok-1", 200), "suggestion").Length(); n != 0 {
		t.Errorf("%d suggestions on a launch whose log said it was ready", n)
	}
	b.postText("/api/v1/launches/stop-1/lines?server=acme-serve", acmeLoading)
	b.apiJSON("POST", "/api/v1/launches/stop-1/exit", webtest.AdminToken, `{"signal":"SIGTERM","requested":true}`, 200)
	if n := testid(b.page("/launches/stop-1", 200), "suggestion").Length(); n != 0 {
		t.Errorf("%d suggestions on a launch its operator stopped", n)
	}
	if r := b.do("GET", "/launches/acme-p?teach=x", "", nil); r.status != http.StatusBadRequest {
		t.Errorf("a bad teach line: %d", r.status)
	}
}
