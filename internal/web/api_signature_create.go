package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/pipeline"
	"launchwatch/internal/review"
)

// apiSignatureCreate answers POST /api/v1/signatures. With "preview": true,
// 200 and what it would change among the stored launches (its backtest),
// nothing saved; else 201 with the signature (and, with "apply_to_stored",
// the launches it reclassified); 422 with the reasons it was refused (a
// catch-all pattern, a bad phase); 403 for what only an admin may do.
func (h *handler) apiSignatureCreate(c echo.Context) error {
	var req signatureRequest
	if err := decodeTextJSON(c, &req); err != nil {
		return err
	}
	d := req.draft(c)
	ctx := c.Request().Context()
	if req.Preview {
		if err := d.Validate(); err != nil {
			return reviewError(c, err)
		}
		pv, err := review.PreviewSignature(ctx, h.pipe, d, h.backtestOptions())
		if err != nil {
			return err
		}
		if pv.Refused != "" {
			body := fieldErrorsBody(map[string]string{"pattern": pv.Refused})
			body["preview"] = toSignaturePreviewJSON(pv)
			return c.JSON(http.StatusUnprocessableEntity, body)
		}
		return c.JSON(http.StatusOK, map[string]any{"preview": toSignaturePreviewJSON(pv)})
	}
	res, err := review.SaveSignature(ctx, h.store, h.pipe, d, h.backtestOptions())
	var invalid *review.InvalidError
	if errors.As(err, &invalid) && res != nil && res.Preview != nil {
		body := fieldErrorsBody(invalid.Fields)
		body["preview"] = toSignaturePreviewJSON(res.Preview)
		return c.JSON(http.StatusUnprocessableEntity, body)
	}
	if err != nil && (res == nil || res.ID == 0) {
		return reviewError(c, err)
	}
	if err != nil {
		return err // saved, but applying it failed: a bug, logged once
	}
	s, err := h.store.SignatureByID(ctx, res.ID)
	if err != nil {
		return err
	}
	body := map[string]any{"id": res.ID, "signature": toSignatureJSON(s), "preview": toSignaturePreviewJSON(res.Preview)}
	if d.ApplyToStored {
		body["reclassified"] = nonNil(res.Reclassified)
	}
	return c.JSON(http.StatusCreated, body)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// backtestOptions are the server's bounds of a backtest.
func (h *handler) backtestOptions() pipeline.BacktestOptions {
	return pipeline.BacktestOptions{Budget: h.cfg.BacktestBudget, Limit: h.cfg.BacktestLimit}
}

// launchChangeJSON is a launch whose verdict a signature moves.
type launchChangeJSON struct {
	Launch string `json:"launch"`
	From   string `json:"from"`
	To     string `json:"to"`
	Lines  int    `json:"lines"` // lines the signature matches in it
}

// conflictJSON is a decision of a person the signature contradicts.
type conflictJSON struct {
	Launch    string `json:"launch"`
	Seq       int64  `json:"seq"`
	Kind      string `json:"kind"`
	Alarm     int    `json:"alarm"`
	DecidedBy string `json:"decided_by"`
	Message   string `json:"message"`
}

// signaturePreviewJSON is a signature's backtest.
type signaturePreviewJSON struct {
	LaunchesChanged []launchChangeJSON `json:"launches_changed"`
	LinesMatched    int                `json:"lines_matched"`
	Conflicts       []conflictJSON     `json:"conflicts"`
	// LaunchesMatched are the launches with a matched line; the bounds:
	// the most recent Limit launches in scope, read for at most
	// BudgetSeconds; Truncated says more were in scope.
	LaunchesMatched []string `json:"launches_matched"`
	LaunchesRead    int      `json:"launches_read"`
	LinesRead       int64    `json:"lines_read"`
	Truncated       bool     `json:"truncated"`
	BudgetSeconds   float64  `json:"budget_seconds"`
	Limit           int      `json:"limit"`
	// Confirmed are changed launches with alarms people confirmed: only
	// an admin applies the signature to them.
	Confirmed []string `json:"confirmed"`
}

func toSignaturePreviewJSON(p *review.SignaturePreview) *signaturePreviewJSON {
	if p == nil {
		return nil
	}
	out := &signaturePreviewJSON{LaunchesChanged: []launchChangeJSON{}, LinesMatched: p.LinesMatched, Conflicts: []conflictJSON{},
		LaunchesMatched: []string{}, LaunchesRead: p.Scanned, LinesRead: p.LinesScanned, Truncated: p.Truncated,
		BudgetSeconds: p.Budget.Seconds(), Limit: p.Limit, Confirmed: nonNil(p.Confirmed)}
	for _, l := range p.Changed {
		out.LaunchesChanged = append(out.LaunchesChanged, launchChangeJSON{Launch: l.Key, From: l.From, To: l.To, Lines: l.Lines})
	}
	for _, l := range p.Launches {
		out.LaunchesMatched = append(out.LaunchesMatched, l.Key)
	}
	for _, c := range p.Conflicts {
		out.Conflicts = append(out.Conflicts, conflictJSON{Launch: c.Launch, Seq: c.Seq, Kind: c.Kind, Alarm: c.AlarmNo,
			DecidedBy: c.DecidedBy, Message: c.Message})
	}
	return out
}
