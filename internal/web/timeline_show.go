package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/status"
	"launchwatch/internal/timeline"
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
	p, err := h.launchPage(c, key, lq, timeline.Cards{Limit: timeline.CardsInline, ShowSuppressed: lq.showSuppressed})
	if err != nil {
		return err
	}
	p.ShowSuppressed = lq.showSuppressed
	return render(c, status, views.Launch(p))
}

// launchPage reads the launch page (timeline.Load) and makes its props,
// with the alarm cards cards picks.
func (h *handler) launchPage(c echo.Context, key string, lq logQuery, cards timeline.Cards) (views.LaunchProps, error) {
	v, err := timeline.Load(c.Request().Context(), h.store, h.gaps, key, lq.read(), cards, h.now())
	if err != nil {
		return views.LaunchProps{}, err
	}
	l := v.Launch
	lq.filter = v.Log.Filter
	d := launchPageData{View: v, zoom: lq.zoom}
	p := d.props()
	p.MoreAlarms = moreAlarms(key, v.Alarms, cards)
	if lq.zoomInvalid {
		p.Timeline.ZoomError = lq.invalid
	}
	if v.Previous != nil {
		p.PreviousKey, p.PreviousBy = v.Previous.Key, v.Previous.By
	}
	p.Pinned, p.PinnedBy = v.Pin.Pinned, v.Pin.By
	p.Judgement = judgementProps(l, v.Judgement)
	p.Log = logProps(l, v.Log.Window, lq)
	p.Log.Alarms, p.Log.MoreAlarms = logAlarms(l.Key, v.Alarms)
	// Silence is a judgement about the present, made at read time like the API does.
	p.Status = status.Observed(l.Status, l.LastHeard(), h.now(), h.cfg.SilentAfter)
	p.LastHeard = l.LastHeard()
	p.Verdict = d.verdict(p.Status)
	p.VolumeURL = volumeURL(key, lq.zoom)
	return p, nil
}
