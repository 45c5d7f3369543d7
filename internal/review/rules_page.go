package review

import (
	"context"
	"strings"
	"time"

	"launchwatch/internal/store"
)

// RulesView is the read model of the Rules page: every rule with its state,
// the launch it came from and its history, in three queries whatever the
// number of rules.
type RulesView struct {
	Rules []RuleEntry
}

// RuleEntry is one rule as the page shows it.
type RuleEntry struct {
	store.Rule
	State   string // enabled, disabled or expired
	FromKey string // the key of the launch whose dismissal made it, "" if none or gone
	History []RuleChange
}

// RuleChange is one audit event of a rule.
type RuleChange struct {
	At     time.Time
	Action string // create, update, disable ... (the audit action without "rule.")
	Actor  string
	Reason string // the reason given with the change, if any
}

// LoadRules reads the Rules page's model at time now.
func LoadRules(ctx context.Context, st *store.Store, now time.Time) (*RulesView, error) {
	rules, err := st.Rules(ctx)
	if err != nil {
		return nil, err
	}
	subjects := make([]string, len(rules))
	var from []int64
	for i, r := range rules {
		subjects[i] = RuleSubject(r.ID)
		if r.FromLaunchID != nil {
			from = append(from, *r.FromLaunchID)
		}
	}
	audit, err := st.AuditForSubjects(ctx, subjects)
	if err != nil {
		return nil, err
	}
	keys, err := st.LaunchKeys(ctx, from)
	if err != nil {
		return nil, err
	}
	v := &RulesView{Rules: make([]RuleEntry, len(rules))}
	for i, r := range rules {
		e := RuleEntry{Rule: r, State: "enabled"}
		switch {
		case !r.Enabled:
			e.State = "disabled"
		case !r.InForce(now):
			e.State = "expired"
		}
		if r.FromLaunchID != nil && r.FromAlarmNo != nil {
			e.FromKey = keys[*r.FromLaunchID]
		}
		for _, a := range audit[subjects[i]] {
			e.History = append(e.History, RuleChange{At: a.At, Action: strings.TrimPrefix(a.Action, "rule."), Actor: a.Actor, Reason: changeReason(a.Detail)})
		}
		v.Rules[i] = e
	}
	return v, nil
}

// changeReason is the reason an audit event of a rule gives: its own, or
// the one its new version carries.
func changeReason(detail map[string]any) string {
	if r, _ := detail["reason"].(string); r != "" {
		return r
	}
	if after, _ := detail["after"].(map[string]any); after != nil {
		r, _ := after["reason"].(string)
		return r
	}
	return ""
}
