package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/timeline"
)

// launchShow answers GET /api/v1/launches/{key}: status, phase, counts,
// times. A launch whose fatal alarm is settling is answered once it settled
// (at most the settle bound later), so a reader asking right after the last
// batch gets the verdict, not the status it is about to leave; ?wait=0
// answers at once, with "settling": true.
func (h *handler) launchShow(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	wait, err := decode.IntParam(c.QueryParams(), "wait", 1, 0, 1)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	l, err := h.store.LaunchByKey(ctx, key)
	if err != nil {
		return err
	}
	if wait == 1 {
		if l, _, err = h.pipe.AwaitSettled(ctx, l); err != nil {
			return err
		}
	}
	j, err := timeline.LoadLaunchJSON(ctx, h.store, l, h.pipe.Clock().Now(), h.cfg.SilentAfter)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, j)
}
