package web

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
)

// decodeTextJSON is decodeJSON for bodies whose strings all go into
// PostgreSQL text (tokens, rules, decisions): a NUL character anywhere is
// a 400, never a database error.
func decodeTextJSON(c echo.Context, v any) error {
	if err := decodeJSON(c, v); err != nil {
		return err
	}
	if hasNUL(reflect.ValueOf(v)) {
		return decode.BadRequest("the body holds a NUL character, which text cannot hold")
	}
	return nil
}

// hasNUL reports whether a decoded request holds a NUL in any string.
func hasNUL(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return !v.IsNil() && hasNUL(v.Elem())
	case reflect.String:
		return strings.ContainsRune(v.String(), 0)
	case reflect.Struct:
		for i := range v.NumField() {
			if hasNUL(v.Field(i)) {
				return true
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if hasNUL(v.Index(i)) {
				return true
			}
		}
	}
	return false
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
