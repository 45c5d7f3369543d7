package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/incident"
)

// maxIncidentJSON bounds an incident API request body.
const maxIncidentJSON = 1 << 20

// pathID reads a positive integer path parameter (an incident, note or
// action item id).
func pathID(c echo.Context, name string) (int64, error) {
	id, err := strconv.ParseInt(c.Param(name), 10, 64)
	if err != nil || id < 1 {
		return 0, decode.BadRequest("%s must be a positive number, got %q", name, c.Param(name))
	}
	return id, nil
}

// incidentActor is who an incident change is attributed to: the request's
// user (actorName), never a name typed into the change itself.
func incidentActor(c echo.Context) string {
	if a := actorName(c); a != "" {
		return a
	}
	return "anonymous"
}

// incidentInput turns the incident package's validation error into a
// client error with status (400 for the API, 422 for forms); other errors
// pass unchanged.
func incidentInput(err error, status int) error {
	var invalid *incident.InvalidError
	if errors.As(err, &invalid) {
		return &decode.InputError{Status: status, Message: invalid.Message()}
	}
	return err
}

// decodeJSON reads a JSON API body into v: application/json only (415),
// at most maxIncidentJSON bytes (413), one object with known fields only
// (400, saying what is wrong), so a typo never passes silently.
func decodeJSON(c echo.Context, v any) error {
	r := c.Request()
	if ct, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType)); ct != echo.MIMEApplicationJSON {
		return &decode.InputError{Status: http.StatusUnsupportedMediaType, Message: "send Content-Type: application/json"}
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Response(), r.Body, maxIncidentJSON))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return &decode.InputError{Status: http.StatusRequestEntityTooLarge, Message: "a request body is at most 1 MiB"}
	case err != nil:
		return decode.BadRequest("the body could not be read")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decode.BadRequest("the body is not a valid JSON object of this request: %s", jsonProblem(err))
	}
	if dec.More() {
		return decode.BadRequest("the body holds more than one JSON value")
	}
	return nil
}

// jsonProblem says what is wrong with a JSON body without echoing it.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return "syntax error at byte " + strconv.FormatInt(syntax.Offset, 10)
	case errors.As(err, &typ):
		return "field " + strconv.Quote(typ.Field) + " must be " + typ.Type.String()
	case errors.Is(err, io.EOF):
		return "empty body"
	}
	return err.Error() // "json: unknown field \"x\"" and the like name the field, not the data
}
