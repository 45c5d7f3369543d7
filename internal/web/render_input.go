package web

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
)

// checkText refuses query or form values that no text column can hold:
// invalid UTF-8 and NUL bytes. The database would reject them with an
// error that is the client's mistake, not a 500.
func checkText(v url.Values) error {
	for k, vs := range v {
		for _, s := range vs {
			if !utf8.ValidString(k) || !utf8.ValidString(s) || strings.ContainsRune(k, 0) || strings.ContainsRune(s, 0) {
				return decode.BadRequest("%s must be text (UTF-8 without NUL bytes)", strings.ToValidUTF8(strings.ReplaceAll(k, "\x00", ""), "?"))
			}
		}
	}
	return nil
}

// formText reads a posted form and checks its text like checkText.
func formText(c echo.Context) (url.Values, error) {
	form, err := c.FormParams()
	if err != nil {
		return nil, decode.BadRequest("the form could not be read")
	}
	return form, checkText(form)
}
