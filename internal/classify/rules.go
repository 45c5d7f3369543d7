package classify

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Rule matchers.
const (
	MatchTemplate  = "template"  // Pattern equals the alarm's Template (or its Fingerprint)
	MatchSubstring = "substring" // Pattern occurs in the alarm's Headline, ignoring ASCII case
	MatchRegex     = "regex"     // Pattern (RE2) matches the alarm's Headline
)

// Rule is a suppression rule: alarms it matches are suppressed. Scope narrows
// where it applies: Server (a server family such as "sglang"; "" = every
// launch) and Labels (the launch must carry every K=V; nil = any launch),
// and optionally one alarm Kind. Enabled, expiry and hit counting belong to
// the caller, which passes only the rules in force.
type Rule struct {
	ID      int64
	Matcher string // template | substring | regex
	Pattern string
	Server  string            // scope: only launches of this server family; "" = all
	Labels  map[string]string // scope: only launches carrying all these labels
	Kind    AlarmKind         // scope: only alarms of this kind; "" = any
}

// Validate reports why a rule can never match, nil if it is usable.
func (r Rule) Validate() error {
	if strings.TrimSpace(r.Pattern) == "" {
		return errors.New("classify: rule pattern is empty")
	}
	switch r.Matcher {
	case MatchTemplate, MatchSubstring:
	case MatchRegex:
		if _, err := regexp.Compile(r.Pattern); err != nil {
			return fmt.Errorf("classify: rule regex: %w", err)
		}
	default:
		return fmt.Errorf("classify: unknown rule matcher %q (want template, substring or regex)", r.Matcher)
	}
	return nil
}

// RuleSet is a compiled list of rules, for matching many alarms.
type RuleSet struct {
	rules []Rule
	res   []*regexp.Regexp
}

// CompileRules compiles rules in order. Invalid rules are reported together
// and left out of the set, which still holds the valid ones.
func CompileRules(rules []Rule) (*RuleSet, error) {
	rs := &RuleSet{}
	var errs []error
	for _, r := range rules {
		if err := r.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("rule %d: %w", r.ID, err))
			continue
		}
		var re *regexp.Regexp
		if r.Matcher == MatchRegex {
			re = regexp.MustCompile(r.Pattern)
		}
		rs.rules = append(rs.rules, r)
		rs.res = append(rs.res, re)
	}
	return rs, errors.Join(errs...)
}

// Match returns the first rule, in the order given, that suppresses alarm a
// of a launch of the given server family and labels.
func (rs *RuleSet) Match(a Alarm, server string, labels map[string]string) (ruleID int64, ok bool) {
	for i, r := range rs.rules {
		if r.matches(a, server, labels, rs.res[i]) {
			return r.ID, true
		}
	}
	return 0, false
}

// MatchRules is the one-shot form of CompileRules and Match; invalid rules
// never match.
func MatchRules(rules []Rule, a Alarm, server string, labels map[string]string) (ruleID int64, ok bool) {
	rs, _ := CompileRules(rules)
	return rs.Match(a, server, labels)
}

func (r Rule) matches(a Alarm, server string, labels map[string]string, re *regexp.Regexp) bool {
	if r.Server != "" && !strings.EqualFold(r.Server, server) {
		return false
	}
	for k, v := range r.Labels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	if r.Kind != "" && r.Kind != a.Kind {
		return false
	}
	switch r.Matcher {
	case MatchTemplate:
		p := strings.TrimSpace(r.Pattern)
		return p == a.Template || p == a.Fingerprint || p == Template(a.Headline)
	case MatchSubstring:
		return strings.Contains(strings.ToLower(a.Headline), strings.ToLower(r.Pattern))
	case MatchRegex:
		return re != nil && re.MatchString(a.Headline)
	}
	return false
}
