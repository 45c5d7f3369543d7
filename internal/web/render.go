package web

import (
	"fmt"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"
)

// render renders comp into a buffer and only then writes it, so the status
// code is always right and a failed render becomes a clean error page
// instead of half a page.
func render(c echo.Context, status int, comp templ.Component) error {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := comp.Render(c.Request().Context(), buf); err != nil {
		return fmt.Errorf("web: render: %w", err)
	}
	return c.HTMLBlob(status, buf.Bytes())
}
