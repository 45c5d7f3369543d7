package web

import (
	"math"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/decode"
	"launchwatch/internal/review"
)

// apiRuleUpdate answers PATCH /api/v1/rules/{id}: enable, disable, or a
// new expiry, with the same checks as the form; 200 with the rule.
func (h *handler) apiRuleUpdate(c echo.Context) error {
	id, err := ruleID(c)
	if err != nil {
		return err
	}
	var req rulePatch
	if err := decodeTextJSON(c, &req); err != nil {
		return err
	}
	if req.Enabled == nil && req.Expiry == "" && req.ExpiryDays == nil {
		return decode.BadRequest(`give "enabled", or a new "expiry" ("days" with "expiry_days", or "never")`)
	}
	ctx := c.Request().Context()
	admin := principalOf(c).level == auth.Admin
	if req.Expiry != "" || req.ExpiryDays != nil {
		old, err := h.store.RuleByID(ctx, id)
		if err != nil {
			return err
		}
		d := review.RuleDraft{Matcher: old.Matcher, Pattern: old.Pattern, Scope: old.Scope, ScopeValue: old.ScopeValue,
			Reason: old.Reason, Author: actorName(c), Expiry: req.Expiry, Admin: admin}
		if d.Expiry == "" {
			d.Expiry = "days"
		}
		if req.ExpiryDays != nil {
			d.ExpiryDays = *req.ExpiryDays
			if d.ExpiryDays == 0 {
				d.ExpiryDays = -1
			}
		} else if d.Expiry == "days" && old.ExpiresAt != nil {
			d.ExpiryDays = max(1, int(math.Ceil(old.ExpiresAt.Sub(h.now()).Hours()/24)))
		}
		if old.OverrideReason != nil {
			d.Override, d.OverrideReason = true, *old.OverrideReason
		}
		if _, err := review.UpdateRule(ctx, h.store, id, d); err != nil {
			return reviewError(c, err)
		}
	}
	if req.Enabled != nil {
		if err := review.SetRuleEnabled(ctx, h.store, id, *req.Enabled, actorName(c), req.Reason, admin, h.now()); err != nil {
			return reviewError(c, err)
		}
	}
	r, err := h.store.RuleByID(ctx, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, toRuleJSON(r))
}
