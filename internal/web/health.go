package web

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// healthz answers while the process runs: a liveness probe.
func (h *handler) healthz(c echo.Context) error {
	return c.String(http.StatusOK, "ok\n")
}

// readyTimeout is how long readyz waits for the database.
const readyTimeout = 2 * time.Second

// readyz answers 200 only when the database answers within readyTimeout: a
// readiness probe. It says which way it failed: a database that refuses or
// drops connections, or one that hangs (ingest answers 503 meanwhile).
func (h *handler) readyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), readyTimeout)
	defer cancel()
	err := h.store.Ping(ctx)
	if err == nil {
		return c.String(http.StatusOK, "ok\n")
	}
	h.log.Warn("readiness check failed", "error", err.Error())
	c.Response().Header().Set(echo.HeaderRetryAfter, retryAfterSeconds)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return c.String(http.StatusServiceUnavailable, "database does not answer (no reply within "+readyTimeout.String()+"): ingest answers 503\n")
	}
	return c.String(http.StatusServiceUnavailable, "database unreachable: ingest answers 503\n")
}
