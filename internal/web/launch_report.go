package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
)

// maxReportBytes bounds the small JSON bodies of process reports.
const maxReportBytes = 64 << 10

// signalPattern is what an exit signal looks like: SIGKILL, SIGSEGV ...
var signalPattern = regexp.MustCompile(`^SIG[A-Z0-9+-]{1,12}$`)

// launchHeartbeat answers POST /api/v1/launches/{key}/heartbeat: the
// shipper is alive even if the server prints nothing.
func (h *handler) launchHeartbeat(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	attrs, err := decode.LaunchAttrs(c.QueryParams())
	if err != nil {
		return err
	}
	ack, err := h.pipe.Heartbeat(c.Request().Context(), key, attrs)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ack)
}

// healthReport is the body of POST /api/v1/launches/{key}/health.
type healthReport struct {
	OK     *bool  `json:"ok"`
	Detail string `json:"detail"`
	// Age is how many seconds ago the probe ran, for a result delivered
	// late (from the shipper's spool); 0 when omitted.
	Age float64 `json:"age"`
}

// maxHealthAge bounds a health report's age: a spool kept for a year.
const maxHealthAge = 366 * 24 * time.Hour

// launchHealth records a health probe result of the launch's server.
func (h *handler) launchHealth(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	var r healthReport
	if err := decodeReport(c, &r); err != nil {
		return err
	}
	if r.OK == nil {
		return decode.BadRequest(`a health report needs "ok": true or false`)
	}
	if r.Age < 0 || r.Age > maxHealthAge.Seconds() {
		return decode.BadRequest(`"age" must be the seconds since the probe ran, from 0 to %d, got %v`, int(maxHealthAge.Seconds()), r.Age)
	}
	age := time.Duration(r.Age * float64(time.Second))
	ack, err := h.pipe.Health(c.Request().Context(), key, *r.OK, truncate(r.Detail, 500), age)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ack)
}

// exitReport is the body of POST /api/v1/launches/{key}/exit.
type exitReport struct {
	Code      *int   `json:"code"`
	Signal    string `json:"signal"`
	Requested bool   `json:"requested"` // the operator asked the process to stop
}

// launchExit records how the launch's process ended.
func (h *handler) launchExit(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	var r exitReport
	if err := decodeReport(c, &r); err != nil {
		return err
	}
	if r.Signal != "" && !signalPattern.MatchString(r.Signal) {
		return decode.BadRequest(`"signal" must be a signal name such as SIGKILL, got %q`, r.Signal)
	}
	if r.Code != nil && (*r.Code < 0 || *r.Code > 255) {
		return decode.BadRequest(`"code" must be an exit code from 0 to 255, got %d`, *r.Code)
	}
	ack, err := h.pipe.Exit(c.Request().Context(), key, r.Code, r.Signal, r.Requested)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, ack)
}

// decodeReport reads a small JSON object body into v.
func decodeReport(c echo.Context, v any) error {
	data, err := io.ReadAll(io.LimitReader(c.Request().Body, maxReportBytes+1))
	if err != nil {
		return decode.BadRequest("reading body: %v", err)
	}
	if len(data) > maxReportBytes {
		return decode.BadRequest("body larger than %d bytes", maxReportBytes)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return decode.BadRequest("%q has the wrong type (%s)", typeErr.Field, typeErr.Value)
		}
		return decode.BadRequest("body is not the expected JSON object: %v", err)
	}
	return nil
}

// truncate cuts s to at most n bytes of valid UTF-8 without NUL, which
// Postgres text cannot hold.
func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	if len(s) > n {
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "")
}
