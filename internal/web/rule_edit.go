package web

import (
	"math"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/review"
	"launchwatch/internal/views"
)

func ruleID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, decode.BadRequest("rule %q is not valid", c.Param("id"))
	}
	return id, nil
}

// ruleEdit answers GET /rules/{id}/edit: the rule's form, filled from the
// rule, or as submitted with ?preview=1, with the same preview as a new rule.
func (h *handler) ruleEdit(c echo.Context) error {
	id, err := ruleID(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	if q.Get("preview") != "1" {
		r, err := h.store.RuleByID(c.Request().Context(), id)
		if err != nil {
			return err
		}
		q = url.Values{"matcher": {r.Matcher}, "pattern": {r.Pattern}, "scope": {r.Scope}, "reason": {r.Reason},
			"expiry": {"days"}}
		switch r.Scope {
		case "server":
			q.Set("server_value", r.ScopeValue)
		case "label":
			q.Set("label_value", r.ScopeValue)
		}
		if r.ExpiresAt == nil {
			q.Set("expiry", "never")
		} else {
			left := int(math.Ceil(time.Until(*r.ExpiresAt).Hours() / 24))
			q.Set("expiry_days", strconv.Itoa(max(1, left)))
		}
		if r.OverrideReason != nil {
			q.Set("override", "1")
			q.Set("override_reason", *r.OverrideReason)
		}
	}
	p, d, err := h.ruleForm(c, q)
	if err != nil {
		return err
	}
	p.EditID = id
	pv, err := review.PreviewRule(c.Request().Context(), h.store, d)
	if err != nil {
		return err
	}
	p.Preview = previewProps(pv)
	return render(c, 200, views.RuleForm(p))
}
