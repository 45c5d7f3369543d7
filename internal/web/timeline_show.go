package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/review"
	"launchwatch/internal/status"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// timelineShow answers GET /launches/{key}: the launch's facts, timeline,
// alarms and one window of its log (the log's parameters are read by
// parseLogQuery; ?suppressed=1 also shows the alarms rules suppressed). A
// bad log parameter, such as a regular expression that does not compile,
// is answered 400 with the page and the message above the log.
func (h *handler) timelineShow(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	if t := c.QueryParam("teach"); t != "" {
		// A log line's "Teach…" link: the teach form, prefilled from it.
		seq, err := strconv.ParseInt(t, 10, 64)
		if err != nil || seq < 1 {
			return decode.BadRequest("teach %q is not a line number", t)
		}
		return c.Redirect(http.StatusSeeOther, "/signatures/new?launch="+url.QueryEscape(key)+"&seq="+strconv.FormatInt(seq, 10))
	}
	lq, err := parseLogQuery(c.QueryParams())
	status := http.StatusOK
	var inputErr *decode.InputError
	switch {
	case errors.As(err, &inputErr):
		lq.invalid, status = inputErr.Message, inputErr.Status
	case err != nil:
		return err
	}
	if wantsLogSection(c) {
		return h.logSection(c, key, lq, status)
	}
	p, err := h.launchPage(c, key, lq)
	if err != nil {
		return err
	}
	p.ShowSuppressed = lq.showSuppressed
	return render(c, status, views.Launch(p))
}

// launchPage reads everything the launch page shows.
func (h *handler) launchPage(c echo.Context, key string, lq logQuery) (views.LaunchProps, error) {
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
	if d.gaps, err = h.gaps.get(ctx, h.store, l, d.first, gapThreshold(d.first, d.last)); err != nil {
		return views.LaunchProps{}, err
	}
	if d.ready, err = h.readyTime(c, l); err != nil {
		return views.LaunchProps{}, err
	}
	if d.readies, err = h.store.ReadyLines(ctx, l.ID, readyMarks); err != nil {
		return views.LaunchProps{}, err
	}
	if d.context, err = h.alarmContexts(c, l.ID, d.alarms); err != nil {
		return views.LaunchProps{}, err
	}
	d.zoom, d.now = lq.zoom, d.last
	if l.Status == status.Starting || l.Status == status.Loading {
		d.now = clockNow(d.last, l.LastLineAt, h.now())
	}
	if lq, d.lines, err = h.logWindow(c, l, lq); err != nil {
		return views.LaunchProps{}, err
	}
	if d.notes, err = h.store.Annotations(ctx, l.ID); err != nil {
		return views.LaunchProps{}, err
	}
	if d.audit, err = h.store.AuditWithPrefix(ctx, review.SubjectPrefix(key)); err != nil {
		return views.LaunchProps{}, err
	}
	d.audit = auditSince(d.audit, l.CreatedAt)
	p := d.props()
	if lq.zoomInvalid {
		p.Timeline.ZoomError = lq.invalid
	}
	switch prev, err := h.store.PreviousLaunch(ctx, l); {
	case err == nil:
		p.PreviousKey, p.PreviousBy = prev.Key, prev.By
	case !errors.Is(err, store.ErrNotFound):
		return views.LaunchProps{}, err
	}
	pin, err := h.store.LaunchPin(ctx, l.ID)
	if err != nil {
		return views.LaunchProps{}, err
	}
	p.Pinned, p.PinnedBy = pin.Pinned, pin.By
	if p.Judgement, err = h.judgementProps(c, l); err != nil {
		return views.LaunchProps{}, err
	}
	p.Log = logProps(l, d.lines, lq)
	p.Log.Alarms, p.Log.MoreAlarms = logAlarms(l.Key, d.alarms)
	// Silence is a judgement about the present, made at read time like the API does.
	p.Status = status.Observed(l.Status, l.LastHeard(), h.now(), h.cfg.SilentAfter)
	p.LastHeard = l.LastHeard()
	p.Verdict = d.verdict(p.Status)
	p.VolumeURL = volumeURL(key, lq.zoom)
	return p, nil
}

// zoomLog narrows lq to the lines of its zoom's time range (one indexed
// query for the range's seqs); without after= or before= the window starts
// at the range's first line.
func (h *handler) zoomLog(c echo.Context, launchID int64, lq logQuery, origin time.Time) (logQuery, error) {
	from, to := lq.zoom.resolve(origin)
	lo, hi, err := h.store.SeqRange(c.Request().Context(), launchID, from, to)
	if err != nil {
		return lq, err
	}
	f := &lq.filter
	f.InRange, f.MinSeq, f.MaxSeq = true, lo, hi
	if lo == 0 {
		f.MinSeq, f.MaxSeq = 1, 0 // no line in the range
	}
	if f.After == 0 && f.Before == 0 && lo > 0 {
		f.After = lo - 1
	}
	return lq, nil
}
