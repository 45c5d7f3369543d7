package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/review"
	"launchwatch/internal/views"
)

// ruleCreate answers POST /rules: it saves the rule and suppresses the open
// alarms it matches everywhere, then shows the rules page. A rule that
// would hide confirmed alarms is refused (422, with the preview) unless the
// author overrides it with a reason.
func (h *handler) ruleCreate(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return decode.BadRequest("the form could not be read")
	}
	p, d, err := h.ruleForm(c, form)
	if err != nil {
		return err
	}
	id, pv, err := review.SaveRule(c.Request().Context(), h.store, d)
	return ruleSaved(c, p, d, id, pv, err)
}

// ruleSaved answers a rule save or edit: the form again with its errors
// and preview (422), or back to the rule on /rules.
func ruleSaved(c echo.Context, p views.RuleFormProps, d review.RuleDraft, id int64, pv *review.Preview, err error) error {
	var invalid *review.InvalidError
	var forbidden *review.ForbiddenError
	switch {
	case errors.As(err, &forbidden):
		p.Errors = map[string]string{"scope": forbidden.Reason}
		return render(c, http.StatusForbidden, views.RuleForm(p))
	case errors.As(err, &invalid):
		p.Errors = invalid.Fields
		if pv != nil {
			p.Preview = previewProps(pv)
		}
		return render(c, http.StatusUnprocessableEntity, views.RuleForm(p))
	case err != nil:
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/rules#rule-"+strconv.FormatInt(id, 10))
}
