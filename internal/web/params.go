package web

import (
	"math"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
)

// launchKey reads and checks the {key} path parameter.
func launchKey(c echo.Context) (string, error) {
	return decode.LaunchKeyParam(c.Param("key"))
}

// alarmNo reads the alarm number of the route's {no}.
func alarmNo(c echo.Context) (int, error) {
	no, err := strconv.Atoi(c.Param("no"))
	if err != nil || no < 1 || no > math.MaxInt32 {
		return 0, decode.BadRequest("alarm number %q is not valid", c.Param("no"))
	}
	return no, nil
}
