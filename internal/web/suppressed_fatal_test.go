package web_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"launchwatch/internal/review"
)

// TestSuppressedFatalStaysVisible: a fatal-looking alarm that a rule
// suppresses at ingest leaves the launch's status alone, but the launch
// page and the launch API still say so.
func TestSuppressedFatalStaysVisible(t *testing.T) {
	t.Parallel()
	b := setup(t)
	id, _, err := review.SaveRule(context.Background(), b.store, review.RuleDraft{Matcher: "substring",
		Pattern: "CUDA out of memory", Scope: "all", Reason: "expected in the probe", Author: "ada", Admin: true})
	if err != nil {
		t.Fatal(err)
	}
	b.postText("/api/v1/launches/sf-1/lines?server=sglang",
		"Traceback (most recent call last):\n  File \"s.py\", line 3, in run\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB\n")
	b.postText("/api/v1/launches/sf-2/lines?server=sglang", "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n")

	var l struct {
		Status          string `json:"status"`
		SuppressedFatal []struct {
			No       int    `json:"no"`
			RuleID   int64  `json:"rule_id"`
			Headline string `json:"headline"`
			Settled  bool   `json:"settled"`
		} `json:"suppressed_fatal"`
	}
	r := b.do("GET", "/api/v1/launches/sf-1", "", nil) // waits for the alarm to settle
	if err := json.Unmarshal(r.body, &l); err != nil {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if l.Status == "alarm" || len(l.SuppressedFatal) != 1 || l.SuppressedFatal[0].No != 1 || l.SuppressedFatal[0].RuleID != id ||
		!l.SuppressedFatal[0].Settled || !strings.HasPrefix(l.SuppressedFatal[0].Headline, "torch.OutOfMemoryError") {
		t.Errorf("launch API: %s", r.body)
	}
	doc := b.page("/launches/sf-1", 200)
	if got := strings.Join(strings.Fields(testid(doc, "suppressed-fatal").Text()), " "); !strings.HasPrefix(got, "1 fatal-looking alarm suppressed by rule #"+itoa(id)+".") {
		t.Errorf("launch page says %q", got)
	}

	if r := b.do("GET", "/api/v1/launches/sf-2", "", nil); !strings.Contains(string(r.body), `"suppressed_fatal":[]`) {
		t.Errorf("a launch without one: %s", r.body)
	}
	if doc := b.page("/launches/sf-2", 200); testid(doc, "suppressed-fatal").Length() != 0 {
		t.Errorf("a launch without one shows the note")
	}
}
