package review_test

import (
	"errors"
	"testing"

	"launchwatch/internal/review"
)

func TestRuleDraftValidate(t *testing.T) {
	t.Parallel()
	ok := review.RuleDraft{Matcher: "template", Pattern: "KeyError: <str>", Scope: "all", Reason: "noise", Author: "ada"}
	for _, tc := range []struct {
		name    string
		edit    func(*review.RuleDraft)
		invalid []string
	}{
		{"Valid", func(*review.RuleDraft) {}, nil},
		{"ServerScope", func(d *review.RuleDraft) { d.Scope, d.ScopeValue = "server", "sglang" }, nil},
		{"LabelScope", func(d *review.RuleDraft) { d.Scope, d.ScopeValue = "label", "team=infer" }, nil},
		{"NeverExpires", func(d *review.RuleDraft) { d.Expiry = "never" }, nil},
		{"SevenDays", func(d *review.RuleDraft) { d.Expiry, d.ExpiryDays = "days", 7 }, nil},
		{"ReasonRequired", func(d *review.RuleDraft) { d.Reason = " " }, []string{"reason"}},
		{"AuthorRequired", func(d *review.RuleDraft) { d.Author = "" }, []string{"name"}},
		{"EmptyPattern", func(d *review.RuleDraft) { d.Pattern = "" }, []string{"pattern"}},
		{"BadRegex", func(d *review.RuleDraft) { d.Matcher, d.Pattern = "regex", "(" }, []string{"pattern"}},
		{"UnknownMatcher", func(d *review.RuleDraft) { d.Matcher = "glob" }, []string{"pattern"}},
		{"LabelNeedsValue", func(d *review.RuleDraft) { d.Scope, d.ScopeValue = "label", "team" }, []string{"scope"}},
		{"ServerNeedsName", func(d *review.RuleDraft) { d.Scope, d.ScopeValue = "server", "" }, []string{"scope"}},
		{"DaysInRange", func(d *review.RuleDraft) { d.Expiry, d.ExpiryDays = "days", 400 }, []string{"expiry"}},
		{"OverrideNeedsReason", func(d *review.RuleDraft) { d.Override = true }, []string{"override"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := ok
			tc.edit(&d)
			err := d.Validate()
			var inv *review.InvalidError
			if len(tc.invalid) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			if !errors.As(err, &inv) || len(inv.Fields) != len(tc.invalid) {
				t.Fatalf("Validate() = %v, want messages for %v", err, tc.invalid)
			}
			for _, f := range tc.invalid {
				if inv.Fields[f] == "" {
					t.Errorf("no message for %s: %v", f, inv.Fields)
				}
			}
		})
	}
}
