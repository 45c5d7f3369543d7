package web

import (
	"launchwatch/internal/api"
	"launchwatch/internal/decode"
	"math"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/store"
)

const (
	defaultLinesLimit = 1000
	maxLinesLimit     = 10000
)

// linesList answers GET /api/v1/launches/{key}/lines?after=SEQ&limit=N with
// the lines after SEQ in order.
func (h *handler) linesList(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	after, err := decode.IntParam(q, "after", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	limit, err := decode.IntParam(q, "limit", defaultLinesLimit, 1, maxLinesLimit)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	l, err := h.store.LaunchByKey(ctx, key)
	if err != nil {
		return err
	}
	lines, err := h.store.Lines(ctx, l.ID, after, int(limit)+1)
	if err != nil {
		return err
	}
	page := api.LinesPage{Launch: key}
	if len(lines) > int(limit) {
		lines = lines[:limit]
		next := lines[len(lines)-1].Seq
		page.NextAfter = &next
	}
	page.Lines = toLineJSON(lines)
	return c.JSON(http.StatusOK, page)
}

func toLineJSON(lines []store.Line) []api.Line {
	out := make([]api.Line, len(lines))
	for i, ln := range lines {
		out[i] = api.Line{Seq: ln.Seq, TS: ln.TS, ReceivedAt: ln.ReceivedAt, Stream: ln.Stream,
			Kind: ln.Kind, Level: ln.Level, Rank: ln.Rank, Alarm: ln.AlarmNo, Text: ln.Text}
	}
	return out
}
