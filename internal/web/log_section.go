package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// logSectionTarget is the id of the launch page's log section: an htmx
// request aimed at it (HX-Target) gets that section alone, so searching
// and paging a million-line launch does not draw its timeline and alarm
// cards again for every window.
const logSectionTarget = "log-section"

// wantsLogSection reports whether the request asks for the log section
// only.
func wantsLogSection(c echo.Context) bool {
	c.Response().Header().Add("Vary", "HX-Request, HX-Target")
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-Target") == logSectionTarget
}

// logSection answers a launch page request for its log section alone:
// the window lq selects, its position and paging, and the links to each
// alarm, with status. A refused query (400 as a page) is answered 422:
// the page's htmx swaps a 422 (the form with its message) and no other
// client error (views' htmxConfig).
func (h *handler) logSection(c echo.Context, key string, lq logQuery, status int) error {
	if status == http.StatusBadRequest {
		status = http.StatusUnprocessableEntity
	}
	ctx := c.Request().Context()
	l, err := h.store.LaunchByKey(ctx, key)
	if err != nil {
		return err
	}
	lq, w, err := h.logWindow(c, l, lq)
	if err != nil {
		return err
	}
	alarms, err := h.store.Alarms(ctx, l.ID)
	if err != nil {
		return err
	}
	p := logProps(l, w, lq)
	p.Alarms, p.MoreAlarms = logAlarms(l.Key, alarms)
	return render(c, status, views.LogSection(p))
}

// logWindow reads the window of l's lines lq selects: within the zoom's
// time range when the page is zoomed (lq comes back narrowed to it, for
// the paging links). A refused query reads nothing.
func (h *handler) logWindow(c echo.Context, l *store.Launch, lq logQuery) (logQuery, store.LineWindow, error) {
	if lq.invalid != "" {
		return lq, store.LineWindow{}, nil
	}
	lastSeq := l.LastSeq
	if lq.zoom.set() {
		first, _, err := h.store.LineSpan(c.Request().Context(), l.ID)
		if err != nil {
			return lq, store.LineWindow{}, err
		}
		if lq, err = h.zoomLog(c, l.ID, lq, first); err != nil {
			return lq, store.LineWindow{}, err
		}
		lastSeq = min(lastSeq, lq.filter.MaxSeq)
	}
	w, err := h.store.FilteredWindow(c.Request().Context(), l.ID, lq.filter, lastSeq)
	return lq, w, err
}

// logAlarmLinks bounds the log view's links to alarms; the alarm cards
// above the log list them all.
const logAlarmLinks = 30

// logAlarms are the log view's links to each alarm's first line, in
// order, those rules suppressed left out, at most logAlarmLinks; more is
// how many were left out for that bound.
func logAlarms(key string, alarms []store.Alarm) (links []views.LogAlarm, more int) {
	for _, a := range alarms {
		if a.State == "suppressed" {
			continue
		}
		if len(links) == logAlarmLinks {
			more++
			continue
		}
		links = append(links, views.LogAlarm{No: a.No, Kind: a.Kind, Fatal: a.Fatal, Headline: a.Headline,
			Href: lineHref(key, a.FirstSeq)})
	}
	return links, more
}
