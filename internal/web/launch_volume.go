package web

import (
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/views"
)

// volumeBars bounds the histogram's buckets: about 8 SVG units a bar.
const volumeBars = 120

// volumeWidths are the bucket widths the histogram picks from: the
// narrowest that gives at most volumeBars buckets.
var volumeWidths = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}

// launchVolume answers GET /launches/{key}/volume?from=&to= with the
// line-volume histogram of the launch (or of the page's zoom), which the
// launch page loads after itself.
func (h *handler) launchVolume(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	z, err := parseZoom(c.QueryParams())
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	l, err := h.store.LaunchByKey(ctx, key)
	if err != nil {
		return err
	}
	first, last, err := h.store.LineSpan(ctx, l.ID)
	if err != nil {
		return err
	}
	p := views.VolumeProps{Origin: first, Start: first, End: last}
	if first.IsZero() {
		return render(c, 200, views.LineVolume(p))
	}
	if from, to := z.resolve(first); z.set() {
		if from.After(p.Start) && from.Before(p.End) {
			p.Start = from
		}
		if !to.IsZero() && to.After(p.Start) && to.Before(p.End) {
			p.End = to
		}
	}
	span := max(p.End.Sub(p.Start), time.Second)
	p.Width = volumeWidths[len(volumeWidths)-1]
	for _, w := range volumeWidths {
		if span <= w*volumeBars {
			p.Width = w
			break
		}
	}
	n := int(math.Ceil(float64(span) / float64(p.Width)))
	if p.End.Equal(p.Start.Add(time.Duration(n) * p.Width)) {
		n++ // the last line's own bucket
	}
	p.End = p.Start.Add(time.Duration(n) * p.Width)
	buckets, err := h.store.LineVolume(ctx, l.ID, p.Start, p.Width, n)
	if err != nil {
		return err
	}
	for i, b := range buckets {
		from := p.Start.Add(time.Duration(i) * p.Width)
		lo, hi := from.Sub(first).Seconds(), from.Add(p.Width).Sub(first).Seconds()
		p.Bars = append(p.Bars, views.VolumeBar{From: from, Lines: b.Lines, Errors: b.Errors, Warnings: b.Warnings,
			Href: volumeZoomHref(key, lo, hi)})
		p.Total += b.Lines
	}
	alarms, err := h.store.Alarms(ctx, l.ID)
	if err != nil {
		return err
	}
	for _, a := range alarms {
		if a.FirstTS == nil || a.FirstTS.Before(p.Start) || a.FirstTS.After(p.End) {
			continue
		}
		p.Alarms = append(p.Alarms, views.VolumeAlarm{No: a.No, At: *a.FirstTS, Kind: a.Kind, State: a.State,
			Headline: a.Headline, Href: lineHref(key, a.FirstSeq)})
	}
	return render(c, 200, views.LineVolume(p))
}

// volumeZoomHref zooms the launch page to a bucket, to its log.
func volumeZoomHref(key string, from, to float64) string {
	return strings.TrimSuffix(zoomHref(key, from, to), "#timeline") + "#log"
}

// volumeURL is the histogram of the page's zoom.
func volumeURL(key string, z zoomQuery) string {
	v := url.Values{}
	if z.from.raw != "" {
		v.Set("from", z.from.raw)
	}
	if z.to.raw != "" {
		v.Set("to", z.to.raw)
	}
	u := "/launches/" + url.PathEscape(key) + "/volume"
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return u
}
