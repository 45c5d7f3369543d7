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

// signatureCreate answers POST /signatures: it backtests and saves the
// signature (and with apply_to_stored reclassifies the launches its
// backtest lists), then shows it on /signatures; a refused one is the form
// again with its errors and backtest (422, or 403 for what only an admin
// may do).
func (h *handler) signatureCreate(c echo.Context) error {
	form, err := c.FormParams()
	if err != nil {
		return decode.BadRequest("the form could not be read")
	}
	p, d, err := h.signatureForm(c, form)
	if err != nil {
		return err
	}
	res, err := review.SaveSignature(c.Request().Context(), h.store, h.pipe, d, h.backtestOptions())
	var invalid *review.InvalidError
	var forbidden *review.ForbiddenError
	if res != nil && res.Preview != nil {
		p.Preview = signaturePreviewView(res.Preview)
	}
	switch {
	case errors.As(err, &forbidden):
		p.Errors = map[string]string{"apply": forbidden.Reason}
		if d.Scope == "all" {
			p.Errors = map[string]string{"scope": forbidden.Reason}
		}
		return render(c, http.StatusForbidden, views.SignatureForm(p))
	case errors.As(err, &invalid):
		p.Errors = invalid.Fields
		return render(c, http.StatusUnprocessableEntity, views.SignatureForm(p))
	case err != nil:
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/signatures#signature-"+strconv.FormatInt(res.ID, 10))
}
