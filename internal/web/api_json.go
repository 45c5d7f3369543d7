package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// maxAPIJSONBytes bounds the body of the API's small JSON requests
// (tokens, rules, decisions).
const maxAPIJSONBytes = 64 << 10

// decodeJSON reads a small JSON object body into v: unknown fields, wrong
// types, trailing data and NUL characters (which PostgreSQL text cannot
// hold) are a 400 that says which.
func decodeJSON(c echo.Context, v any) error {
	data, err := io.ReadAll(io.LimitReader(c.Request().Body, maxAPIJSONBytes+1))
	if err != nil {
		return badParam("reading body: %v", err)
	}
	if len(data) > maxAPIJSONBytes {
		return echo.NewHTTPError(http.StatusRequestEntityTooLarge, "a JSON request body is at most 64 KiB")
	}
	if bytes.Contains(bytes.ToLower(data), []byte(`\u0000`)) {
		return badParam("the body holds a NUL character")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return badParam("%q has the wrong type (%s)", typeErr.Field, typeErr.Value)
		}
		return badParam("body is not the expected JSON object: %v", err)
	}
	if dec.More() {
		return badParam("body holds more than one JSON value")
	}
	return nil
}

// fieldErrorsBody is a 422 answer: a summary and the reason per field.
func fieldErrorsBody(errs map[string]string) map[string]any {
	msgs := make([]string, 0, len(errs))
	for _, f := range slices.Sorted(maps.Keys(errs)) {
		msgs = append(msgs, f+": "+errs[f])
	}
	return map[string]any{"error": strings.Join(msgs, "; "), "fields": errs}
}

// serverURL is the URL people reach this server at, for commands shown on
// pages: the public URL, else the one the browser is on.
func (h *handler) serverURL(c echo.Context) string {
	if u := h.cfg.PublicURL; u != nil {
		return strings.TrimSuffix(u.String(), "/")
	}
	scheme := "http"
	if c.Request().TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + c.Request().Host
}
