package web

import (
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/timeline"
	"launchwatch/internal/views"
)

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
	v, err := timeline.LoadVolume(c.Request().Context(), h.store, key, z.resolve)
	if err != nil {
		return err
	}
	p := views.VolumeProps{Origin: v.First, Start: v.Start, End: v.End, Width: v.Width}
	for i, b := range v.Buckets {
		from := v.Start.Add(time.Duration(i) * v.Width)
		lo, hi := from.Sub(v.First).Seconds(), from.Add(v.Width).Sub(v.First).Seconds()
		p.Bars = append(p.Bars, views.VolumeBar{From: from, Lines: b.Lines, Errors: b.Errors, Warnings: b.Warnings,
			Href: volumeZoomHref(key, lo, hi)})
		p.Total += b.Lines
	}
	for _, a := range v.Alarms {
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
