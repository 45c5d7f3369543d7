package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"launchwatch/internal/review"
)

func TestReview(t *testing.T) {
	t.Parallel()

	t.Run("GroupsByFingerprintAndBulkDismiss", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/ok-1/lines?server=sglang", falseAlarmLog)
		b.postText("/api/v1/launches/ok-2/lines?server=sglang", falseAlarmLog)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		doc := b.page("/review", 200)
		groups := testid(doc, "review-group")
		if groups.Length() != 2 {
			t.Fatalf("%d groups, want 2", groups.Length())
		}
		fp := b.alarm("ok-1", 1).Fingerprint
		group := doc.Find(`[data-testid="review-group"][data-fingerprint="` + fp + `"]`)
		if n := group.Find(`[data-testid="group-alarms"]`).Text(); n != "2" || !strings.Contains(group.Text(), "in 2 launches") {
			t.Errorf("false alarm group: %s alarms: %q", n, group.Text())
		}

		res := b.postForm("/review/decide", url.Values{"fingerprint": {fp}, "verdict": {"dismiss"}}, false)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(readBody(t, res), "say why") {
			t.Errorf("bulk dismiss without reason: %d", res.StatusCode)
		}
		res = b.postForm("/review/decide", url.Values{"fingerprint": {fp}, "verdict": {"dismiss"},
			"reason": {"optional probe"}}, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("bulk dismiss: %d %s", res.StatusCode, readBody(t, res))
		}
		for _, key := range []string{"ok-1", "ok-2"} {
			if a := b.alarm(key, 1); a.State != "dismissed" || a.Reason == nil || *a.Reason != "optional probe" {
				t.Errorf("%s alarm %+v", key, a)
			}
			if st := b.launch(key).Status; st != "ready" {
				t.Errorf("%s status %q, want ready", key, st)
			}
			audit, err := b.store.AuditFor(context.Background(), review.Subject(key, 1))
			if err != nil || len(audit) != 1 || audit[0].Action != "alarm.dismiss" {
				t.Errorf("%s audit %+v %v", key, audit, err)
			}
		}
		if a := b.alarm("crash-1", 1); a.State != "open" {
			t.Errorf("another group was decided: %+v", a)
		}
		doc = b.page(res.Header.Get("Location"), 200)
		if href := testid(doc, "bulk-rule").AttrOr("href", ""); href != "/rules/new?launch=ok-1&alarm=1" {
			t.Errorf("bulk dismissal offers the rule %q", href)
		}
		if testid(doc, "review-group").Length() != 1 || !strings.Contains(testid(doc, "review-done").Text(), "2 alarms dismissed") {
			t.Errorf("queue after the bulk dismissal: %d groups, %q", testid(doc, "review-group").Length(), testid(doc, "review-done").Text())
		}
	})
}
