package web

import (
	"math"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/store"
)

const (
	defaultLinesLimit = 1000
	maxLinesLimit     = 10000
)

type lineJSON struct {
	Seq        int64     `json:"seq"`
	TS         time.Time `json:"ts"`
	ReceivedAt time.Time `json:"received_at"`
	Stream     string    `json:"stream,omitempty"`
	Kind       string    `json:"kind"`
	Level      string    `json:"level,omitempty"`
	Rank       string    `json:"rank,omitempty"`
	Alarm      *int      `json:"alarm,omitempty"`
	Text       string    `json:"text"`
}

type linesPageJSON struct {
	Launch string     `json:"launch"`
	Lines  []lineJSON `json:"lines"`
	// NextAfter is the after= value of the next page; absent when this page
	// reached the last stored line.
	NextAfter *int64 `json:"next_after,omitempty"`
}

// linesList answers GET /api/v1/launches/{key}/lines?after=SEQ&limit=N with
// the lines after SEQ in order.
func (h *handler) linesList(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	after, err := intParam(q, "after", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	limit, err := intParam(q, "limit", defaultLinesLimit, 1, maxLinesLimit)
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
	page := linesPageJSON{Launch: key}
	if len(lines) > int(limit) {
		lines = lines[:limit]
		next := lines[len(lines)-1].Seq
		page.NextAfter = &next
	}
	page.Lines = toLineJSON(lines)
	return c.JSON(http.StatusOK, page)
}

func toLineJSON(lines []store.Line) []lineJSON {
	out := make([]lineJSON, len(lines))
	for i, ln := range lines {
		out[i] = lineJSON{Seq: ln.Seq, TS: ln.TS, ReceivedAt: ln.ReceivedAt, Stream: ln.Stream,
			Kind: ln.Kind, Level: ln.Level, Rank: ln.Rank, Alarm: ln.AlarmNo, Text: ln.Text}
	}
	return out
}
