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

// signatureToggle answers POST /signatures/{id}/toggle with enabled=1 or
// 0: the signature applies, or no longer applies, to the lines ingested
// from now on.
func (h *handler) signatureToggle(c echo.Context) error {
	id, err := signatureID(c)
	if err != nil {
		return err
	}
	if _, err := formText(c); err != nil {
		return err
	}
	enabled := c.FormValue("enabled") == "1"
	err = review.UpdateSignature(c.Request().Context(), h.store, id, review.SignaturePatch{Enabled: &enabled,
		Actor: actorName(c), Admin: principalOf(c).level == auth.Admin})
	var invalid *review.InvalidError
	if errors.As(err, &invalid) {
		return &echo.HTTPError{Code: http.StatusUnprocessableEntity, Message: cmp.Or(invalid.Fields["name"], invalid.Fields["enabled"])}
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/signatures#signature-"+strconv.FormatInt(id, 10))
}
