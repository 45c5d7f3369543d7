package web

import (
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/views"
)

// zoomQuery is a launch page's time range, ?from= and ?to=, as given: each
// is seconds on the launch clock from the launch's first line ("90",
// "1.5") or an RFC 3339 time; either may be left out (from the first line,
// to the last).
type zoomQuery struct {
	from, to zoomEnd
}

// zoomEnd is one end of a zoom.
type zoomEnd struct {
	raw  string
	secs float64   // seconds from the first line, when at is zero
	at   time.Time // an RFC 3339 time
}

// maxZoomSeconds bounds a seconds value (about 30 years).
const maxZoomSeconds = 1e9

func parseZoomEnd(q url.Values, name string) (zoomEnd, error) {
	e := zoomEnd{raw: strings.TrimSpace(q.Get(name))}
	if e.raw == "" {
		return e, nil
	}
	if f, err := strconv.ParseFloat(e.raw, 64); err == nil {
		if math.IsNaN(f) || f < 0 || f > maxZoomSeconds {
			return e, decode.BadRequest("%s=%s is out of range: use seconds from the launch's first line, from 0", name, e.raw)
		}
		e.secs = f
		return e, nil
	}
	at, err := time.Parse(time.RFC3339Nano, e.raw)
	if err != nil {
		return e, decode.BadRequest("%s=%q is not a time: use seconds from the launch's first line (90, 1.5) or an RFC 3339 time (2026-11-29T10:00:00Z)", name, e.raw)
	}
	e.at = at
	return e, nil
}

// parseZoom reads ?from= and ?to=. An end that is no time, or a range that
// ends before it begins, is an input error (400).
func parseZoom(q url.Values) (zoomQuery, error) {
	var z zoomQuery
	var err error
	if z.from, err = parseZoomEnd(q, "from"); err != nil {
		return zoomQuery{}, err
	}
	if z.to, err = parseZoomEnd(q, "to"); err != nil {
		return zoomQuery{}, err
	}
	f, t := z.from, z.to
	if f.raw != "" && t.raw != "" && f.at.IsZero() == t.at.IsZero() &&
		(f.at.IsZero() && t.secs <= f.secs || !f.at.IsZero() && !t.at.After(f.at)) {
		return zoomQuery{}, decode.BadRequest("to=%s must be after from=%s", t.raw, f.raw)
	}
	return z, nil
}

// pageZoom is the zoom of the page an htmx request came from (its
// HX-Current-URL), so a timeline swapped in place keeps it; none when that
// URL has no valid one.
func pageZoom(c echo.Context) zoomQuery {
	u, err := url.Parse(c.Request().Header.Get("HX-Current-URL"))
	if err != nil {
		return zoomQuery{}
	}
	z, err := parseZoom(u.Query())
	if err != nil {
		return zoomQuery{}
	}
	return z
}

// set reports whether the page is zoomed.
func (z zoomQuery) set() bool { return z.from.raw != "" || z.to.raw != "" }

func (e zoomEnd) time(origin time.Time) time.Time {
	switch {
	case e.raw == "":
		return time.Time{}
	case !e.at.IsZero():
		return e.at
	}
	return origin.Add(time.Duration(e.secs * float64(time.Second)))
}

// resolve returns the range on the launch clock of a launch whose first
// line is at origin; a zero time is an open end.
func (z zoomQuery) resolve(origin time.Time) (from, to time.Time) {
	return z.from.time(origin), z.to.time(origin)
}

// zoomHref is the launch page zoomed to [from, to] seconds from the first line.
func zoomHref(key string, from, to float64) string {
	v := url.Values{}
	v.Set("from", strconv.FormatFloat(max(0, from), 'f', -1, 64))
	v.Set("to", strconv.FormatFloat(to, 'f', -1, 64))
	return "/launches/" + url.PathEscape(key) + "?" + v.Encode() + "#timeline"
}

// zoomLinks are the timeline's zoom links: the first minute, up to ready,
// around the first alarm, the last minute and all of it. The link to the
// range shown is marked current.
func zoomLinks(key string, z zoomQuery, t views.TimelineInput) []views.TimelineZoom {
	span := t.Last.Sub(t.Origin).Seconds()
	var out []views.TimelineZoom
	add := func(label, id string, from, to float64) {
		href := zoomHref(key, from, to)
		out = append(out, views.TimelineZoom{Label: label, TestID: id, Href: href,
			Current: z.from.raw == strconv.FormatFloat(max(0, from), 'f', -1, 64) && z.to.raw == strconv.FormatFloat(to, 'f', -1, 64)})
	}
	if span > 60 {
		add("first minute", "zoom-first-minute", 0, 60)
	}
	if t.Ready != nil {
		r := t.Ready.At.Sub(t.Origin).Seconds()
		add("to ready", "zoom-ready", 0, math.Ceil(r+1))
	}
	if len(t.Alarms) > 0 {
		first := t.Alarms[0].At
		for _, a := range t.Alarms {
			if a.At.Before(first) {
				first = a.At
			}
		}
		at := math.Floor(first.Sub(t.Origin).Seconds())
		add("around the first alarm", "zoom-alarm", at-30, at+30)
	}
	if span > 60 {
		end := math.Ceil(span)
		add("last minute", "zoom-last-minute", end-60, end)
	}
	out = append(out, views.TimelineZoom{Label: "all", TestID: "zoom-all", Href: "/launches/" + url.PathEscape(key) + "#timeline",
		Current: !z.set()})
	return out
}
