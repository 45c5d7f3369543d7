package web

import (
	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/review"
)

// ruleUpdate answers POST /rules/{id}: the edited rule is saved under the
// same checks as a new one, and what it suppresses follows the edit.
func (h *handler) ruleUpdate(c echo.Context) error {
	id, err := ruleID(c)
	if err != nil {
		return err
	}
	form, err := c.FormParams()
	if err != nil {
		return decode.BadRequest("the form could not be read")
	}
	p, d, err := h.ruleForm(c, form)
	if err != nil {
		return err
	}
	p.EditID = id
	pv, err := review.UpdateRule(c.Request().Context(), h.store, id, d)
	return ruleSaved(c, p, d, id, pv, err)
}
