package web

import (
	"math"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
)

// seqRunsJSON is the answer of GET /api/v1/launches/:key/seqs: which seqs
// the server holds, as runs of consecutive seqs, so a shipper that
// numbered its lines can find the ones the server no longer holds.
type seqRunsJSON struct {
	Launch  string     `json:"launch"`
	LastSeq int64      `json:"last_seq"`
	Runs    [][2]int64 `json:"runs"`       // [from, to], in order
	Next    *int64     `json:"next_after"` // more runs after this seq; nil when this page is the last
}

// launchSeqs lists the runs of seqs a launch holds after ?after (default
// 0), at most ?limit (default 1000, up to 10000) of them. Read or ingest:
// a shipper asks it with the token it ships with.
func (h *handler) launchSeqs(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	after, err := decode.IntParam(c.QueryParams(), "after", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	limit, err := decode.IntParam(c.QueryParams(), "limit", 1000, 1, 10000)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	l, err := h.store.LaunchByKey(ctx, key)
	if err != nil {
		return err
	}
	runs, err := h.store.SeqRuns(ctx, l.ID, after, int(limit))
	if err != nil {
		return err
	}
	j := seqRunsJSON{Launch: key, LastSeq: l.LastSeq, Runs: make([][2]int64, len(runs))}
	for i, r := range runs {
		j.Runs[i] = [2]int64{r.From, r.To}
	}
	if len(runs) == int(limit) {
		j.Next = &runs[len(runs)-1].To
	}
	return c.JSON(http.StatusOK, j)
}
