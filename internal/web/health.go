package web

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// healthz answers while the process runs: a liveness probe.
func (h *handler) healthz(c echo.Context) error {
	return c.String(http.StatusOK, "ok\n")
}

// readyz answers 200 only when the database is reachable: a readiness probe.
func (h *handler) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 2*time.Second)
	defer cancel()
	if err := h.store.Ping(ctx); err != nil {
		h.log.Warn("readiness check failed", "error", err.Error())
		return c.String(http.StatusServiceUnavailable, "database unreachable\n")
	}
	return c.String(http.StatusOK, "ok\n")
}
