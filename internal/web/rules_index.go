package web

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/review"
	"launchwatch/internal/views"
)

// rulesIndex answers GET /rules: every rule with its hits, the ones that
// never expire listed apart. It only reads: the alarms of expired rules are
// given back by the expiry worker (review.RunExpiry) at the expiry.
func (h *handler) rulesIndex(c echo.Context) error {
	v, err := review.LoadRules(c.Request().Context(), h.store, h.now())
	if err != nil {
		return err
	}
	p := views.RulesProps{}
	for _, e := range v.Rules {
		row := ruleRow(e)
		if e.ExpiresAt == nil {
			p.Never = append(p.Never, row)
		} else {
			p.Expiring = append(p.Expiring, row)
		}
	}
	return render(c, 200, views.Rules(p))
}

// ruleRow is the page's row of a rule.
func ruleRow(e review.RuleEntry) views.RuleRow {
	row := views.RuleRow{ID: e.ID, Matcher: e.Matcher, Pattern: e.Pattern, Scope: e.Scope, Author: e.Author,
		Reason: e.Reason, Created: e.CreatedAt, Expires: e.ExpiresAt, Hits: e.Hits, LastHit: e.LastHitAt,
		Stale: e.Stale, State: e.State}
	if e.Scope != "all" {
		row.Scope = e.Scope + " " + e.ScopeValue
	}
	if e.OverrideReason != nil {
		row.OverrideReason = *e.OverrideReason
	}
	if e.FromKey != "" {
		row.FromHref = "/launches/" + e.FromKey + "#alarm-" + strconv.Itoa(*e.FromAlarmNo)
	}
	for _, c := range e.History {
		line := views.Time(&c.At) + " " + c.Action + " by " + c.Actor
		if c.Reason != "" {
			line += ": " + c.Reason
		}
		row.History = append(row.History, line)
	}
	return row
}
