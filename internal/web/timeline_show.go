package web

import (
	"errors"
	"math"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/review"
	"launchwatch/internal/status"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// logWindow is how many lines the log view shows at once.
const logWindow = 500

// timelineShow answers GET /launches/{key}: the launch's facts, timeline,
// alarms and one window of its log (?after=SEQ, ?errors=1, ?hideconfig=1;
// ?suppressed=1 shows the alarms rules suppressed, and their lines among
// errors only).
func (h *handler) timelineShow(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	after, err := intParam(q, "after", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	showSuppressed := q.Get("suppressed") == "1"
	lf := store.LineFilter{After: after, Limit: logWindow + 1, ErrorsOnly: q.Get("errors") == "1",
		HideConfig: q.Get("hideconfig") == "1"}
	lf.HideSuppressed = lf.ErrorsOnly && !showSuppressed
	if err := review.ReopenExpired(c.Request().Context(), h.store); err != nil {
		return err
	}
	p, err := h.launchPage(c, key, lf)
	if err != nil {
		return err
	}
	p.ShowSuppressed = showSuppressed
	p.Log.ShowSuppressed = showSuppressed
	return render(c, 200, views.Launch(p))
}

// launchPage reads everything the launch page shows.
func (h *handler) launchPage(c echo.Context, key string, lf store.LineFilter) (views.LaunchProps, error) {
	ctx := c.Request().Context()
	l, err := h.store.LaunchByKey(ctx, key)
	if err != nil {
		return views.LaunchProps{}, err
	}
	d := launchPageData{launch: l}
	if d.phases, err = h.store.Phases(ctx, l.ID); err != nil {
		return views.LaunchProps{}, err
	}
	if d.alarms, err = h.store.Alarms(ctx, l.ID); err != nil {
		return views.LaunchProps{}, err
	}
	if d.first, d.last, err = h.store.LineSpan(ctx, l.ID); err != nil {
		return views.LaunchProps{}, err
	}
	if d.gaps, err = h.gaps.get(ctx, h.store, l, gapThreshold(d.first, d.last)); err != nil {
		return views.LaunchProps{}, err
	}
	if d.ready, err = h.readyTime(c, l); err != nil {
		return views.LaunchProps{}, err
	}
	if d.context, err = h.alarmContexts(c, l.ID, d.alarms); err != nil {
		return views.LaunchProps{}, err
	}
	if d.lines, err = h.store.FilteredLines(ctx, l.ID, lf); err != nil {
		return views.LaunchProps{}, err
	}
	if d.notes, err = h.store.Annotations(ctx, l.ID); err != nil {
		return views.LaunchProps{}, err
	}
	if d.audit, err = h.store.AuditWithPrefix(ctx, review.SubjectPrefix(key)); err != nil {
		return views.LaunchProps{}, err
	}
	p := d.props()
	switch prev, err := h.store.PreviousLaunch(ctx, l); {
	case err == nil:
		p.PreviousKey = prev
	case !errors.Is(err, store.ErrNotFound):
		return views.LaunchProps{}, err
	}
	p.Log = logProps(key, d.lines, lf, c.QueryParam("suppressed") == "1")
	// Silence is a judgement about the present, made at read time like the API does.
	p.Status = status.Observed(l.Status, l.LastHeard(), time.Now(), h.cfg.SilentAfter)
	p.LastHeard = l.LastHeard()
	p.Reviewer = reviewerName(c)
	for i := range p.Alarms {
		p.Alarms[i].Reviewer = p.Reviewer
	}
	return p, nil
}

// logProps is the log window; it was read with one line more than it
// shows, to know whether a next window exists. Its paging links keep the
// filters and showSuppressed.
func logProps(key string, lines []store.Line, f store.LineFilter, showSuppressed bool) views.LogProps {
	p := views.LogProps{LaunchKey: key, ErrorsOnly: f.ErrorsOnly, HideConfig: f.HideConfig, After: f.After}
	base := "/launches/" + key + "?"
	if f.ErrorsOnly {
		base += "errors=1&"
	}
	if f.HideConfig {
		base += "hideconfig=1&"
	}
	if showSuppressed {
		base += "suppressed=1&"
	}
	if len(lines) > logWindow {
		lines = lines[:logWindow]
		p.NextURL = base + "after=" + strconv.FormatInt(lines[len(lines)-1].Seq, 10) + "#log"
	}
	if f.After > 0 {
		p.FirstURL = base + "after=0#log"
	}
	for _, ln := range lines {
		p.Lines = append(p.Lines, logLine(key, ln))
	}
	// Only the last window of the unfiltered log follows the launch: new
	// lines belong at its end.
	p.Live = p.NextURL == "" && !f.ErrorsOnly && !f.HideConfig
	p.LastSeq = f.After
	if len(lines) > 0 {
		p.LastSeq = lines[len(lines)-1].Seq
	}
	return p
}
