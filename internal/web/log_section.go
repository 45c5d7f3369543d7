package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/store"
	"launchwatch/internal/timeline"
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
	v, err := timeline.LoadLog(c.Request().Context(), h.store, key, lq.read())
	if err != nil {
		return err
	}
	lq.filter = v.Log.Filter
	p := logProps(v.Launch, v.Log.Window, lq)
	p.Alarms, p.MoreAlarms = logAlarms(v.Launch.Key, v.Alarms)
	return render(c, status, views.LogSection(p))
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
