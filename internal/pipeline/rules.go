package pipeline

import (
	"cmp"
	"context"
	"slices"
	"time"

	"launchwatch/internal/classify"
)

// applyRules suppresses the batch's new or grown alarms that a suppression
// rule in force matches, so a false alarm a person already turned into a
// rule never alarms again. Alarms a person decided on are left alone.
func (b *batch) applyRules(ctx context.Context, server string, alarms []classify.Alarm) error {
	if len(alarms) == 0 {
		return nil
	}
	rs, err := b.rulesInForce(ctx)
	if err != nil || rs == nil {
		return err
	}
	labels := b.launch.Labels // read with the launch's row lock
	type hit struct {
		rule  int64
		alarm int
	}
	var hits []hit
	for _, a := range alarms {
		if id, ok := rs.Match(a, server, labels); ok {
			hits = append(hits, hit{id, a.ID})
		}
	}
	// Suppressing counts a hit on the rule's row: take those row locks in
	// rule order, so two batches hitting the same rules cannot deadlock.
	slices.SortFunc(hits, func(x, y hit) int { return cmp.Or(cmp.Compare(x.rule, y.rule), cmp.Compare(x.alarm, y.alarm)) })
	for _, h := range hits {
		if _, err := b.tx.SuppressByRule(ctx, b.launch.ID, h.alarm, h.rule); err != nil {
			return err
		}
	}
	return nil
}

// rulesInForce compiles the suppression rules in force now, nil when there
// is none.
func (b *batch) rulesInForce(ctx context.Context) (*classify.RuleSet, error) {
	rules, err := b.tx.RulesInForce(ctx)
	if err != nil || len(rules) == 0 {
		return nil, err
	}
	crs := make([]classify.Rule, 0, len(rules))
	now := time.Now()
	for i := range rules {
		if rules[i].InForce(now) {
			crs = append(crs, rules[i].Classify())
		}
	}
	rs, _ := classify.CompileRules(crs) // invalid rules were refused when saved; any left never match
	return rs, nil
}
