package web_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestLaunchListSorts: the list's headings sort it (descending first,
// then ascending), keep the filters, and say so for screen readers; a
// receipt is shown relative on the server's clock, with the absolute time
// on hover; an unknown
// sort is a 400 that says what is allowed.
func TestLaunchListSorts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Written for this test: a launch with an alarm, one ready after 30 s,
	// one ready after 90 s, and one that is still loading.
	b.postText("/api/v1/launches/s-oom/lines?server=sglang", crashingLog)
	b.postText("/api/v1/launches/s-fast/lines?server=sglang",
		"[2026-11-30 10:00:00] Load weight begin.\n[2026-11-30 10:00:30] The server is fired up and ready to roll!\n")
	b.postText("/api/v1/launches/s-slow/lines?server=sglang",
		"[2026-11-30 10:00:00] Load weight begin.\n[2026-11-30 10:01:30] The server is fired up and ready to roll!\n")
	b.postText("/api/v1/launches/s-wait/lines?server=vllm", "[2026-11-30 10:00:00] Load weight begin.\n")
	b.settled("s-oom")

	keys := func(doc *goquery.Document) string {
		var ks []string
		testid(doc, "launch-row").Each(func(_ int, s *goquery.Selection) { ks = append(ks, s.AttrOr("data-key", "")) })
		return strings.Join(ks, " ")
	}
	if got := keys(b.page("/?sort=ready", 200)); got != "s-slow s-fast s-wait s-oom" && got != "s-slow s-fast s-oom s-wait" {
		t.Errorf("by time to ready, slowest first: %s", got)
	}
	if got := keys(b.page("/?sort=ready&dir=asc", 200)); !strings.HasPrefix(got, "s-fast s-slow") {
		t.Errorf("by time to ready, fastest first: %s", got)
	}
	if got := keys(b.page("/?sort=alarms", 200)); !strings.HasPrefix(got, "s-oom ") {
		t.Errorf("by open alarms: %s", got)
	}
	if got := keys(b.page("/?sort=key&dir=asc&server=sglang", 200)); got != "s-fast s-oom s-slow" {
		t.Errorf("by key within a server: %s", got)
	}
	doc := b.page("/?sort=ready&server=sglang", 200)
	link := testid(doc, "sort-ready")
	if href := link.AttrOr("href", ""); !strings.Contains(href, "dir=asc") || !strings.Contains(href, "server=sglang") {
		t.Errorf("the sorted column's heading links to %q, want the ascending order with the filter kept", href)
	}
	if link.AttrOr("aria-sort", "") != "descending" || testid(doc, "sort-key").AttrOr("aria-sort", "") != "none" {
		t.Errorf("aria-sort says %q", link.AttrOr("aria-sort", ""))
	}
	received := testid(doc, "received").First()
	// Relative to now, on the server's clock, which the title names.
	if !regexp.MustCompile(`^(just now|\d+[smh] ago)$`).MatchString(received.Text()) ||
		!strings.HasSuffix(received.AttrOr("title", ""), " UTC, server clock: when its first line arrived") {
		t.Errorf("receipt shown as %q (title %q), want relative with the absolute time on hover", received.Text(), received.AttrOr("title", ""))
	}
	if r := b.do("GET", "/?sort=color", "", nil); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "ready") {
		t.Errorf("an unknown sort: %d", r.status)
	}
	if r := b.do("GET", "/api/v1/launches?sort=ready", "", nil); r.status != http.StatusBadRequest {
		t.Errorf("sort on the API: %d, want 400", r.status)
	}
}
