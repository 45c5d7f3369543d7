package review_test

import (
	"errors"
	"strings"
	"testing"

	"launchwatch/internal/review"
)

func TestDecisionValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		d       review.Decision
		invalid []string // fields with a message
	}{
		{"ConfirmWithName", review.Decision{Verdict: "confirm", Actor: " ada "}, nil},
		{"DismissWithReason", review.Decision{Verdict: "dismiss", Actor: "ada", Reason: "test fault"}, nil},
		{"DismissNeedsReason", review.Decision{Verdict: "dismiss", Actor: "ada", Reason: "  "}, []string{"reason"}},
		{"NameNeeded", review.Decision{Verdict: "confirm"}, []string{"name"}},
		{"NameOnOneLine", review.Decision{Verdict: "confirm", Actor: "a\nb"}, []string{"name"}},
		{"NameNotTooLong", review.Decision{Verdict: "confirm", Actor: strings.Repeat("a", 81)}, []string{"name"}},
		{"ReasonNotTooLong", review.Decision{Verdict: "confirm", Actor: "a", Reason: strings.Repeat("r", 1001)}, []string{"reason"}},
		{"UnknownVerdict", review.Decision{Verdict: "maybe", Actor: "a"}, []string{"verdict"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.d.Validate()
			var inv *review.InvalidError
			if len(tc.invalid) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				if tc.d.Actor != strings.TrimSpace(tc.d.Actor) {
					t.Errorf("name not trimmed: %q", tc.d.Actor)
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
