package web

import (
	"github.com/labstack/echo/v4"

	"launchwatch/internal/views"
)

// signaturePreview answers GET /signatures/preview with the backtest
// fragment, for htmx; an invalid draft gives its first error.
func (h *handler) signaturePreview(c echo.Context) error {
	_, d, err := h.signatureForm(c, c.QueryParams())
	if err != nil {
		return err
	}
	pv, errs, err := h.signaturePreviewProps(c, d)
	if err != nil {
		return err
	}
	if pv == nil {
		return render(c, 200, views.FieldErrors(errs))
	}
	return render(c, 200, views.SignaturePreview(*pv))
}
