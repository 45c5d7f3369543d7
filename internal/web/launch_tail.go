package web

import (
	"math"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/store"
	"launchwatch/internal/timeline"
	"launchwatch/internal/views"
)

// launchTail answers GET /launches/{key}/tail?after=SEQ for a page that
// follows its launch (static/live.js): the lines after SEQ, up to one
// window, rendered like the page's own, and out of band the header and the
// timeline.
func (h *handler) launchTail(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	after, err := decode.IntParam(c.QueryParams(), "after", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	p, err := h.launchPage(c, key, logQuery{filter: store.LineFilter{After: after, Limit: logWindow}}, timeline.Cards{})
	if err != nil {
		return err
	}
	return render(c, 200, views.LiveUpdate(p))
}
