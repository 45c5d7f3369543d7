package web

import (
	"cmp"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/review"
)

// ruleToggle answers POST /rules/{id}/toggle with enabled=1 or 0 and the
// reviewer's name: disabling re-opens the alarms the rule suppressed that no
// person decided on; enabling suppresses matching open alarms again.
func (h *handler) ruleToggle(c echo.Context) error {
	id, err := ruleID(c)
	if err != nil {
		return err
	}
	if _, err := formText(c); err != nil {
		return err
	}
	enabled := c.FormValue("enabled") == "1"
	err = review.SetRuleEnabled(c.Request().Context(), h.store, id, enabled, actorName(c), c.FormValue("reason"),
		principalOf(c).level == auth.Admin, h.now())
	var invalid *review.InvalidError
	if errors.As(err, &invalid) {
		return &echo.HTTPError{Code: http.StatusUnprocessableEntity, Message: cmp.Or(invalid.Fields["name"], invalid.Fields["reason"])}
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/rules#rule-"+strconv.FormatInt(id, 10))
}
