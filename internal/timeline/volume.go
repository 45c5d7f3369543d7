package timeline

import (
	"context"
	"math"
	"time"

	"launchwatch/internal/store"
)

// volumeBars bounds the histogram's buckets: about 8 SVG units a bar.
const volumeBars = 120

// volumeWidths are the bucket widths the histogram picks from: the
// narrowest that gives at most volumeBars buckets.
var volumeWidths = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}

// Volume is a launch's line-volume histogram, on the launch clock.
type Volume struct {
	Launch      *store.Launch
	First, Last time.Time // the first and last line's times (zero without lines)
	// Start and End bound the buckets (End is Start plus len(Buckets)
	// widths); without lines they are First and Last, with no buckets.
	Start, End time.Time
	Width      time.Duration
	Buckets    []store.VolumeBucket
	Alarms     []store.Alarm // the alarms whose first line falls in [Start, End]
}

// LoadVolume reads the line-volume histogram of the launch named key, in
// four statements. zoom maps the launch's first line's time to the range
// the page zoomed to; an end outside the launch's lines, or zero, leaves
// the launch's own. ErrNotFound when there is no such launch.
func LoadVolume(ctx context.Context, st *store.Store, key string, zoom func(first time.Time) (from, to time.Time)) (*Volume, error) {
	l, err := st.LaunchByKey(ctx, key)
	if err != nil {
		return nil, err
	}
	v := &Volume{Launch: l}
	if v.First, v.Last, err = st.LineSpan(ctx, l.ID); err != nil {
		return nil, err
	}
	v.Start, v.End = v.First, v.Last
	if v.First.IsZero() {
		return v, nil
	}
	from, to := zoom(v.First)
	if from.After(v.Start) && from.Before(v.End) {
		v.Start = from
	}
	if !to.IsZero() && to.After(v.Start) && to.Before(v.End) {
		v.End = to
	}
	span := max(v.End.Sub(v.Start), time.Second)
	v.Width = volumeWidths[len(volumeWidths)-1]
	for _, w := range volumeWidths {
		if span <= w*volumeBars {
			v.Width = w
			break
		}
	}
	n := int(math.Ceil(float64(span) / float64(v.Width)))
	if v.End.Equal(v.Start.Add(time.Duration(n) * v.Width)) {
		n++ // the last line's own bucket
	}
	v.End = v.Start.Add(time.Duration(n) * v.Width)
	if v.Buckets, err = st.LineVolume(ctx, l.ID, v.Start, v.Width, n); err != nil {
		return nil, err
	}
	alarms, err := st.Alarms(ctx, l.ID)
	if err != nil {
		return nil, err
	}
	for _, a := range alarms {
		if a.FirstTS == nil || a.FirstTS.Before(v.Start) || a.FirstTS.After(v.End) {
			continue
		}
		v.Alarms = append(v.Alarms, a)
	}
	return v, nil
}
