package web

import (
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
