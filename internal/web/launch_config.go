package web

import (
	"github.com/labstack/echo/v4"

	"launchwatch/internal/views"
)

// launchConfig answers GET /launches/{key}/config with the launch's whole
// merged configuration: the table alone for htmx (the launch page swaps it
// in for its first keys), a page of its own otherwise.
func (h *handler) launchConfig(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	l, err := h.store.LaunchByKey(c.Request().Context(), key)
	if err != nil {
		return err
	}
	p := views.LaunchProps{Key: l.Key, Config: sortedKV(l.Config)}
	c.Response().Header().Add("Vary", "HX-Request")
	if c.Request().Header.Get("HX-Request") == "true" {
		return render(c, 200, views.ConfigTable(p.Config))
	}
	return render(c, 200, views.LaunchConfig(p))
}
