package review_test

import (
	"errors"
	"strings"
	"testing"

	"launchwatch/internal/review"
)

// TestRuleDraftValidateRefusesBlindingMatchers: a matcher that matches
// (nearly) every line is refused with the reason; rules for one message
// are not.
func TestRuleDraftValidateRefusesBlindingMatchers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		matcher, pattern string
		refused          bool
		why              string // a part of the reason
	}{
		{"regex", ".*", true, "empty string"},
		{"regex", "^", true, "empty string"},
		{"regex", "$", true, "empty string"},
		{"regex", "x?", true, "empty string"},
		{"regex", "(?:)", true, "empty string"},
		{"regex", ".+", true, "ordinary log lines"},
		{"regex", `\w`, true, "ordinary log lines"},
		{"regex", "error", true, "error lines"},
		{"regex", "(?i)ERROR", true, "error lines"},
		{"regex", "^INFO", true, "ordinary log lines"},
		{"substring", "error", true, "error lines"},
		{"substring", "INFO", true, "ordinary log lines"},
		{"substring", "e", true, "ordinary log lines"},
		{"substring", "failed", true, "error lines"},
		{"substring", "  ", true, "empty"},
		{"template", "", true, "empty"},

		{"substring", "CUDA out of memory", false, ""},
		{"substring", "probe kernel", false, ""},
		{"substring", "NCCL WARN", false, ""},
		{"substring", "Traceback", false, ""},
		{"regex", "CUDA out of memory|probe", false, ""},
		{"regex", `^NCCL WARN Call to ibv_reg_mr failed`, false, ""},
		{"template", "KeyError: <str>", false, ""},
		{"template", "a", false, ""},
	} {
		t.Run(tc.matcher+"_"+tc.pattern, func(t *testing.T) {
			t.Parallel()
			d := review.RuleDraft{Matcher: tc.matcher, Pattern: tc.pattern, Scope: "all", Reason: "noise", Author: "ada"}
			err := d.Validate()
			var inv *review.InvalidError
			if !tc.refused {
				if err != nil {
					t.Fatalf("Validate() = %v, want the rule accepted", err)
				}
				return
			}
			if !errors.As(err, &inv) || !strings.Contains(inv.Fields["pattern"], tc.why) {
				t.Fatalf("Validate() = %v, want the pattern refused with a reason about %q", err, tc.why)
			}
		})
	}
}
