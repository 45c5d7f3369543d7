package web

import (
	"errors"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
)

// contentSecurityPolicy allows scripts, styles and connections (fetch,
// htmx, the live websockets) from this server only: no inline script, no
// inline style, no eval, and no page may frame ours (clickjacking).
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// MaxFormBytes bounds the body of a review UI form post (decisions, notes,
// rules); larger bodies are answered 413. The ingest routes have their own
// limit (Config.MaxBodyBytes).
const MaxFormBytes = 1 << 20

// securityHeaders sets the headers every answer carries, pages, API and
// errors alike.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		return next(c)
	}
}

// readForm reads a UI form post before its handler runs: at most
// MaxFormBytes of body (413 beyond), a form that can be parsed (400
// otherwise) and whose values are valid UTF-8 without NUL bytes (400), so
// no handler meets bytes PostgreSQL would refuse.
func readForm(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.ContentLength > MaxFormBytes {
			return formTooLarge()
		}
		r.Body = http.MaxBytesReader(c.Response(), r.Body, MaxFormBytes)
		var err error
		if ct, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType)); ct == echo.MIMEMultipartForm {
			err = r.ParseMultipartForm(MaxFormBytes)
		} else {
			err = r.ParseForm()
		}
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			return formTooLarge()
		case err != nil:
			return echo.NewHTTPError(http.StatusBadRequest, "the form could not be read")
		}
		for _, vs := range r.Form {
			for _, v := range vs {
				if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
					return echo.NewHTTPError(http.StatusBadRequest, "the form is not valid UTF-8 text")
				}
			}
		}
		return next(c)
	}
}

func formTooLarge() error {
	return echo.NewHTTPError(http.StatusRequestEntityTooLarge, "a form is at most 1 MiB")
}
