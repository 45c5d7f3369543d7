package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/views"
)

// postmortemMarkdown answers GET /incidents/{id}/postmortem.md: the same
// document as Markdown, its links absolute so they work outside the app.
func (h *handler) postmortemMarkdown(c echo.Context) error {
	doc, id, err := h.postmortem(c, h.baseURL(c))
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition,
		`inline; filename="incident-`+strconv.FormatInt(id, 10)+`-postmortem.md"`)
	return c.Blob(http.StatusOK, "text/markdown; charset=utf-8", []byte(views.PostmortemMarkdown(doc)))
}
