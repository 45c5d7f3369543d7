package web

import (
	"github.com/labstack/echo/v4"

	"launchwatch/internal/views"
)

// rulePreview answers GET /rules/preview with the preview fragment, for
// htmx.
func (h *handler) rulePreview(c echo.Context) error {
	_, d, err := h.ruleForm(c, c.QueryParams())
	if err != nil {
		return err
	}
	pp, err := h.rulePreviewProps(c, d)
	if err != nil {
		return err
	}
	return render(c, 200, views.RulePreview(*pp))
}
