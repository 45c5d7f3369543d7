package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"launchwatch/internal/decode"
	"launchwatch/internal/review"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// errorBody is the JSON shape of every API error.
type errorBody struct {
	Error string `json:"error"`
}

// retryAfterSeconds is what a client is told to wait when the database is
// unavailable; shippers keep their lines and try again.
const retryAfterSeconds = "5"

// handleError is the one place an error becomes a response. Client mistakes
// get their own message; anything else is logged here, once, and the client
// sees a generic message, never the internal error text.
func (h *handler) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, msg := http.StatusInternalServerError, "internal error"
	var inputErr *decode.InputError
	var httpErr *echo.HTTPError
	var forbidden *review.ForbiddenError
	switch {
	case errors.As(err, &inputErr):
		status, msg = inputErr.Status, inputErr.Message
		if status == http.StatusTooManyRequests {
			c.Response().Header().Set(echo.HeaderRetryAfter, overloadRetryAfterSeconds)
		}
	case errors.Is(err, store.ErrNotFound):
		status, msg = http.StatusNotFound, "not found"
	case errors.As(err, &httpErr):
		status, msg = httpErr.Code, http.StatusText(httpErr.Code)
		if m, ok := httpErr.Message.(string); ok && m != "" {
			msg = m
		}
		if status == http.StatusUnauthorized {
			if wantsHTML(c) && c.Request().Method == http.MethodGet {
				// A person opening a page is sent to sign in and back.
				if err := c.Redirect(http.StatusSeeOther, "/login?next="+url.QueryEscape(c.Request().URL.RequestURI())); err != nil {
					h.log.Debug("writing error response", slog.String("error", err.Error()))
				}
				return
			}
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="launchwatch", Basic realm="launchwatch"`)
		}
	case errors.As(err, &forbidden):
		status, msg = http.StatusForbidden, forbidden.Reason
	case errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil:
		// The client went away; there is nobody to answer.
		return
	case store.IsUnavailable(err):
		status, msg = http.StatusServiceUnavailable, "database unavailable, retry later"
		c.Response().Header().Set(echo.HeaderRetryAfter, retryAfterSeconds)
		h.log.Warn("database unavailable", slog.String("error", err.Error()), requestGroup(c))
	default:
		h.log.Error("request failed", slog.String("error", err.Error()), requestGroup(c))
	}
	switch {
	case c.Request().Method == http.MethodHead:
		err = c.NoContent(status)
	case wantsHTML(c):
		err = render(c, status, views.ErrorPage(views.ErrorProps{Status: status, Title: http.StatusText(status), Message: msg}))
	default:
		err = c.JSON(status, errorBody{Error: msg})
	}
	if err != nil {
		h.log.Debug("writing error response", slog.String("error", err.Error()))
	}
}

// wantsHTML reports whether the request came from the review UI, whose
// errors are pages; the API, the shipper protocols and the health checks
// answer JSON.
func wantsHTML(c echo.Context) bool {
	p := c.Request().URL.Path
	for _, prefix := range []string{"/api/", "/loki/", "/otlp/", "/v1/"} {
		if strings.HasPrefix(p, prefix) {
			return false
		}
	}
	return p != "/healthz" && p != "/readyz" && p != "/metrics"
}

func requestGroup(c echo.Context) slog.Attr {
	r := c.Request()
	return slog.Group("request", slog.String("method", r.Method), slog.String("uri", r.RequestURI),
		slog.String("remote", c.RealIP()))
}

// logRequest logs every request: failures at Info so they are seen, the
// steady stream of successful ingest posts at Debug.
func (h *handler) logRequest(c echo.Context, v middleware.RequestLoggerValues) error {
	level := slog.LevelDebug
	if v.Status >= 400 {
		level = slog.LevelInfo
	}
	h.log.LogAttrs(c.Request().Context(), level, "request",
		slog.String("method", v.Method), slog.String("path", v.URIPath), slog.Int("status", v.Status),
		slog.Duration("latency", v.Latency))
	return nil
}

func (h *handler) logPanic(c echo.Context, err error, stack []byte) error {
	h.log.Error("panic in handler", slog.String("error", err.Error()), requestGroup(c),
		slog.String("stack", firstLines(string(stack), 12)))
	return fmt.Errorf("panic: %w", err)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
