package web

import (
	"math"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
)

// The input rules live in internal/decode, shared with the shipper
// protocols (which map stream labels to keys); these names keep the
// handlers short.
var (
	launchKeyPattern = launchid.KeyPattern
	serverPattern    = launchid.ServerPattern
	labelKeyPattern  = launchid.LabelKeyPattern
)

func badParam(format string, args ...any) error {
	return decode.BadRequest(format, args...)
}

// launchKey reads and checks the {key} path parameter.
func launchKey(c echo.Context) (string, error) {
	return decode.LaunchKeyParam(c.Param("key"))
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
func launchAttrs(q url.Values) (launchid.Attrs, error) { return decode.LaunchAttrs(q) }

// intParam reads an optional integer query parameter in [min, max].
func intParam(q url.Values, name string, def, min, max int64) (int64, error) {
	return decode.IntParam(q, name, def, min, max)
}
