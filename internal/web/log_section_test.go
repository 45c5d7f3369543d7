package web_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func TestLogSection(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var sb strings.Builder
	for i := 1; i <= 3000; i++ {
		fmt.Fprintf(&sb, "[2026-11-29 10:00:%02d] step %d of the warmup\n", i%60, i)
		if i%1000 == 0 {
			fmt.Fprintf(&sb, "[2026-11-29 10:00:%02d] WARNING Kernel cache miss %d\n", i%60, i)
		}
	}
	b.postText("/api/v1/launches/big/lines?server=sglang", sb.String())
	b.postText("/api/v1/launches/big/lines", crashingLog)
	section := func(path string, status int) *goquery.Document {
		t.Helper()
		r := b.do("GET", path, "", nil, "HX-Request", "true", "HX-Target", "log-section")
		if r.status != status {
			t.Fatalf("GET %s as the log section: %d, want %d: %.300s", path, r.status, status, r.body)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.body)))
		must(t, err)
		return doc
	}

	t.Run("SearchAnswersTheSectionAlone", func(t *testing.T) {
		t.Parallel()
		doc := section("/launches/big?q=kernel+cache+miss", 200)
		if testid(doc, "timeline").Length() != 0 || testid(doc, "alarm-card").Length() != 0 || testid(doc, "log-section").Length() != 1 {
			t.Error("the log section came with the rest of the page")
		}
		var seqs []string
		for _, ln := range testid(doc, "log-line").EachIter() {
			seqs = append(seqs, ln.AttrOr("data-seq", ""))
		}
		// Matches 1,000 lines apart, over the whole launch, in one window.
		if strings.Join(seqs, ",") != "1001,2002,3003" {
			t.Errorf("matches %v", seqs)
		}
		pos := strings.Join(strings.Fields(testid(doc, "log-position").First().Text()), " ")
		if !strings.Contains(pos, "3 matching, searched lines 1–") || testid(doc, "log-next").Length() != 0 {
			t.Errorf("position %q: the search should have read every line", pos)
		}
		doc = section("/launches/big?re=1&q="+url.QueryEscape("(unclosed"), 422)
		if testid(doc, "log-error").Length() != 1 || testid(doc, "timeline").Length() != 0 {
			t.Error("a bad search in the log section")
		}
	})

	t.Run("PagingLinksLoadTheSection", func(t *testing.T) {
		t.Parallel()
		doc := b.page("/launches/big?q=warmup", 200)
		next := testid(doc, "log-next").First()
		href := next.AttrOr("href", "")
		if href == "" || next.AttrOr("hx-get", "") != href || next.AttrOr("hx-target", "") != "#log-section" || next.AttrOr("hx-push-url", "") != "true" {
			t.Fatalf("next link %q hx-get %q target %q", href, next.AttrOr("hx-get", ""), next.AttrOr("hx-target", ""))
		}
		form := testid(doc, "log-filters")
		if form.AttrOr("hx-get", "") != "/launches/big" || form.AttrOr("hx-target", "") != "#log-section" {
			t.Errorf("the search form loads %q into %q", form.AttrOr("hx-get", ""), form.AttrOr("hx-target", ""))
		}
		doc = section(strings.TrimSuffix(href, "#log"), 200)
		if pos := testid(doc, "log-position").First().Text(); !strings.Contains(pos, "501–1000") {
			t.Errorf("second window of the search: %q", pos)
		}
	})

	t.Run("JumpToEachAlarm", func(t *testing.T) {
		t.Parallel()
		l := b.launch("big")
		links := testid(b.page("/launches/big", 200), "log-alarm-link")
		if l.Counts.Alarms == 0 || links.Length() != l.Counts.Alarms {
			t.Fatalf("%d alarm links for %d alarms", links.Length(), l.Counts.Alarms)
		}
		href := links.First().AttrOr("href", "")
		doc := b.page(strings.Split(href, "#")[0], 200)
		anchor := strings.TrimPrefix(href[strings.Index(href, "#"):], "#")
		if row := doc.Find("#" + anchor); row.Length() != 1 || !row.HasClass("in-alarm") {
			t.Errorf("alarm link %q does not land on the alarm's first line", href)
		}
	})

	t.Run("FollowLive", func(t *testing.T) {
		t.Parallel()
		last := b.page("/launches/big?before=999999", 200)
		if f := testid(last, "log-follow"); f.Length() != 1 || f.AttrOr("aria-pressed", "") != "true" {
			t.Error("the last window has no follow toggle")
		}
		first := b.page("/launches/big", 200)
		link := testid(first, "log-follow-link").AttrOr("href", "")
		if testid(first, "log-follow").Length() != 0 || !strings.HasPrefix(link, "/launches/big?before=") {
			t.Fatalf("first window: follow link %q", link)
		}
		doc := b.page(strings.TrimSuffix(link, "#log-end"), 200)
		if testid(doc, "log-follow").Length() != 1 || testid(doc, "log").AttrOr("data-live", "") != "big" {
			t.Error("the follow link does not lead to the window that follows")
		}
		if testid(b.page("/launches/big?before=999999&q=step", 200), "log-follow").Length() != 0 {
			t.Error("a search window follows the launch")
		}
	})
}
