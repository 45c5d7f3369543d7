package web

import (
	"math"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/review"
	"launchwatch/internal/store"
)

// ruleRequest is a rule in POST /api/v1/rules, named like the form's
// fields, for teams that keep their rules in a repository.
type ruleRequest struct {
	Matcher        string `json:"matcher"` // template, substring or regex
	Pattern        string `json:"pattern"`
	Scope          string `json:"scope"` // all, server or label
	ScopeValue     string `json:"scope_value"`
	Reason         string `json:"reason"`
	Expiry         string `json:"expiry"`      // days (the default) or never
	ExpiryDays     *int   `json:"expiry_days"` // with days; 30 when absent
	Override       bool   `json:"override"`    // hide confirmed alarms anyway (admins)
	OverrideReason string `json:"override_reason"`
	// Preview asks what the rule would match without saving it.
	Preview bool `json:"preview"`
}

// ruleJSON is a rule in the API.
type ruleJSON struct {
	ID             int64      `json:"id"`
	Matcher        string     `json:"matcher"`
	Pattern        string     `json:"pattern"`
	Scope          string     `json:"scope"`
	ScopeValue     string     `json:"scope_value"`
	Reason         string     `json:"reason"`
	Author         string     `json:"author"`
	Enabled        bool       `json:"enabled"`
	ExpiresAt      *time.Time `json:"expires_at"`
	OverrideReason *string    `json:"override_reason"`
	Hits           int64      `json:"hits"`
	LastHitAt      *time.Time `json:"last_hit_at"`
	CreatedAt      time.Time  `json:"created_at"`
}

func toRuleJSON(r store.Rule) ruleJSON {
	return ruleJSON{ID: r.ID, Matcher: r.Matcher, Pattern: r.Pattern, Scope: r.Scope, ScopeValue: r.ScopeValue,
		Reason: r.Reason, Author: r.Author, Enabled: r.Enabled, ExpiresAt: r.ExpiresAt, OverrideReason: r.OverrideReason,
		Hits: r.Hits, LastHitAt: r.LastHitAt, CreatedAt: r.CreatedAt}
}

// previewJSON counts what a rule matches, by the alarms' state.
type previewJSON struct {
	Open       int  `json:"open"`       // it suppresses these
	Dismissed  int  `json:"dismissed"`  // already judged false
	Confirmed  int  `json:"confirmed"`  // real failures it would hide
	Suppressed int  `json:"suppressed"` // already held by a rule
	Truncated  bool `json:"truncated"`
}

func toPreviewJSON(p *review.Preview) *previewJSON {
	if p == nil {
		return nil
	}
	return &previewJSON{Open: len(p.Open), Dismissed: len(p.Dismissed), Confirmed: len(p.Confirmed),
		Suppressed: len(p.Suppressed), Truncated: p.Truncated}
}

func (req ruleRequest) draft(c echo.Context) review.RuleDraft {
	d := review.RuleDraft{Matcher: req.Matcher, Pattern: req.Pattern, Scope: req.Scope, ScopeValue: req.ScopeValue,
		Reason: req.Reason, Author: actorName(c), Expiry: req.Expiry, Override: req.Override,
		OverrideReason: req.OverrideReason, Admin: principalOf(c).level == auth.Admin}
	if req.ExpiryDays != nil {
		d.ExpiryDays = *req.ExpiryDays
		if d.ExpiryDays == 0 {
			d.ExpiryDays = -1 // 0 would mean the default; Validate says what is wrong
		}
	}
	return d
}

// apiRulesList answers GET /api/v1/rules: every rule.
func (h *handler) apiRulesList(c echo.Context) error {
	rules, err := h.store.Rules(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]ruleJSON, 0, len(rules))
	for _, r := range rules {
		out = append(out, toRuleJSON(r))
	}
	return c.JSON(http.StatusOK, map[string]any{"rules": out})
}

// apiRuleCreate answers POST /api/v1/rules with the same checks and
// preview as the form: 201 with the rule's id and what it suppressed; with
// "preview": true, 200 and what it would match; 422 with the reasons (a
// blinding pattern, a rule that would hide confirmed alarms); 403 for what
// only an admin may do.
func (h *handler) apiRuleCreate(c echo.Context) error {
	var req ruleRequest
	if err := decodeTextJSON(c, &req); err != nil {
		return err
	}
	d := req.draft(c)
	ctx := c.Request().Context()
	if req.Preview {
		if err := d.Validate(); err != nil {
			return reviewError(c, err)
		}
		pv, err := review.PreviewRule(ctx, h.store, d)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"preview": toPreviewJSON(pv)})
	}
	id, pv, err := review.SaveRule(ctx, h.store, d)
	if err != nil {
		if invalid, ok := err.(*review.InvalidError); ok && pv != nil {
			return invalidWithPreview(c, invalid, pv)
		}
		return reviewError(c, err)
	}
	r, err := h.store.RuleByID(ctx, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, map[string]any{"id": id, "rule": toRuleJSON(r), "preview": toPreviewJSON(pv)})
}

// invalidWithPreview answers a refused rule with the preview that refused
// it, so a script sees which confirmed alarms it would hide.
func invalidWithPreview(c echo.Context, invalid *review.InvalidError, pv *review.Preview) error {
	body := fieldErrorsBody(invalid.Fields)
	body["preview"] = toPreviewJSON(pv)
	return c.JSON(http.StatusUnprocessableEntity, body)
}

// rulePatch is the body of PATCH /api/v1/rules/{id}; absent fields stay.
type rulePatch struct {
	Enabled    *bool  `json:"enabled"`
	Expiry     string `json:"expiry"` // days or never
	ExpiryDays *int   `json:"expiry_days"`
	Reason     string `json:"reason"` // why it is switched, for the audit log
}

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
		return badParam(`give "enabled", or a new "expiry" ("days" with "expiry_days", or "never")`)
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
