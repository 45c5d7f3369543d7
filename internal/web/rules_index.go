package web

import (
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/review"
	"launchwatch/internal/views"
)

// rulesIndex answers GET /rules: every rule with its hits, the ones that
// never expire listed apart. It only reads: the alarms of expired rules are
// given back by the expiry worker (review.RunExpiry) at the expiry.
func (h *handler) rulesIndex(c echo.Context) error {
	ctx := c.Request().Context()
	rules, err := h.store.Rules(ctx)
	if err != nil {
		return err
	}
	p := views.RulesProps{}
	now := h.now()
	for _, r := range rules {
		row := views.RuleRow{ID: r.ID, Matcher: r.Matcher, Pattern: r.Pattern, Scope: r.Scope, Author: r.Author,
			Reason: r.Reason, Created: r.CreatedAt, Expires: r.ExpiresAt, Hits: r.Hits, LastHit: r.LastHitAt,
			Stale: r.Stale, State: "enabled"}
		if r.Scope != "all" {
			row.Scope = r.Scope + " " + r.ScopeValue
		}
		switch {
		case !r.Enabled:
			row.State = "disabled"
		case !r.InForce(now):
			row.State = "expired"
		}
		if r.OverrideReason != nil {
			row.OverrideReason = *r.OverrideReason
		}
		if r.FromLaunchID != nil && r.FromAlarmNo != nil {
			if l, err := h.store.LaunchByID(ctx, *r.FromLaunchID); err == nil {
				row.FromHref = "/launches/" + l.Key + "#alarm-" + strconv.Itoa(*r.FromAlarmNo)
			}
		}
		audit, err := h.store.AuditFor(ctx, review.RuleSubject(r.ID))
		if err != nil {
			return err
		}
		for _, e := range audit {
			line := views.Time(&e.At) + " " + strings.TrimPrefix(e.Action, "rule.") + " by " + e.Actor
			if r, _ := e.Detail["reason"].(string); r != "" {
				line += ": " + r
			} else if after, _ := e.Detail["after"].(map[string]any); after != nil {
				if r, _ := after["reason"].(string); r != "" {
					line += ": " + r
				}
			}
			row.History = append(row.History, line)
		}
		if r.ExpiresAt == nil {
			p.Never = append(p.Never, row)
		} else {
			p.Expiring = append(p.Expiring, row)
		}
	}
	return render(c, 200, views.Rules(p))
}
