package web

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/ingest"
	"launchwatch/internal/store"
)

// launchKeyPattern is what a launch key may look like (shared with the
// shipper protocols, which map stream labels to keys).
var launchKeyPattern = ingest.LaunchKeyPattern

// maxLabels bounds the labels one request may set.
const maxLabels = 32

var (
	serverPattern   = ingest.ServerPattern
	labelKeyPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,62}$`)
)

func badParam(format string, args ...any) error {
	return &ingest.InputError{Status: 400, Message: fmt.Sprintf(format, args...)}
}

// launchKey reads and checks the {key} path parameter.
func launchKey(c echo.Context) (string, error) {
	key, err := url.PathUnescape(c.Param("key"))
	if err != nil || !launchKeyPattern.MatchString(key) {
		return "", badParam("launch key %q is not valid: use 1 to 200 letters, digits and . _ : @ + = -, starting with a letter or digit", c.Param("key"))
	}
	return key, nil
}

// alarmNo reads the alarm number of the route's {no}.
func alarmNo(c echo.Context) (int, error) {
	no, err := strconv.Atoi(c.Param("no"))
	if err != nil || no < 1 || no > math.MaxInt32 {
		return 0, badParam("alarm number %q is not valid", c.Param("no"))
	}
	return no, nil
}

// launchAttrs reads server, host, name, tz and label.K=V query parameters.
func launchAttrs(q url.Values) (store.LaunchAttrs, error) {
	a := store.LaunchAttrs{
		Server: strings.ToLower(strings.TrimSpace(q.Get("server"))),
		Host:   strings.TrimSpace(q.Get("host")),
		Name:   strings.TrimSpace(q.Get("name")),
		TZ:     strings.TrimSpace(q.Get("tz")),
	}
	if a.TZ != "" {
		if _, err := ingest.ParseTZ(a.TZ); err != nil || len(a.TZ) > 64 {
			return a, badParam("tz %q is not valid: use an IANA zone name (Europe/Berlin) or an offset such as +02:00", a.TZ)
		}
	}
	if a.Server != "" && !serverPattern.MatchString(a.Server) {
		return a, badParam("server %q is not valid: use a short name such as sglang, vllm or tgi", a.Server)
	}
	for field, v := range map[string]string{"host": a.Host, "name": a.Name} {
		if len(v) > 200 || !utf8.ValidString(v) || strings.ContainsAny(v, "\x00\n\r") {
			return a, badParam("%s must be at most 200 bytes of text on one line", field)
		}
	}
	for k, vs := range q {
		name, ok := strings.CutPrefix(k, "label.")
		if !ok {
			continue
		}
		if !labelKeyPattern.MatchString(name) {
			return a, badParam("label name %q is not valid: use letters, digits, _ . -", name)
		}
		v := vs[len(vs)-1]
		if len(v) > 200 || !utf8.ValidString(v) || strings.ContainsAny(v, "\x00\n\r") {
			return a, badParam("label %s must be at most 200 bytes of text on one line", name)
		}
		if a.Labels == nil {
			a.Labels = map[string]string{}
		}
		if len(a.Labels) == maxLabels {
			return a, badParam("at most %d labels per batch", maxLabels)
		}
		a.Labels[name] = v
	}
	return a, nil
}

// intParam reads an optional integer query parameter in [min, max].
func intParam(q url.Values, name string, def, min, max int64) (int64, error) {
	s := q.Get(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < min || n > max {
		return 0, badParam("%s must be an integer from %d to %d, got %q", name, min, max, s)
	}
	return n, nil
}
