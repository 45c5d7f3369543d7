package views

import (
	"strconv"
	"testing"
	"time"
)

// TestIncidentTimelineAxisAtAnySpan: from ten seconds to two years, with
// and without a long quiet stretch, the axis's labels (ticks and breaks)
// keep apart and stay on the SVG, and a quiet stretch of weeks is a break.
func TestIncidentTimelineAxisAtAnySpan(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 29, 23, 58, 7, 0, time.UTC)
	for _, span := range []time.Duration{10 * time.Second, 3 * time.Minute, 47 * time.Minute, 5 * time.Hour,
		30 * time.Hour, 9 * 24 * time.Hour, 90 * 24 * time.Hour, 730 * 24 * time.Hour} {
		for _, quiet := range []bool{false, true} {
			name := span.String() + " quiet=" + strconv.FormatBool(quiet)
			lane := ITLane{Key: "a", Bars: []ITBar{{From: t0, To: t0.Add(span / 10), Label: "weights"}}}
			if quiet {
				lane.Marks = []ITMark{{At: t0.Add(span / 10), Kind: "exit"}, {At: t0.Add(span), Kind: "alarm"},
					{At: t0.Add(span - time.Second), Kind: "status", Label: "investigating"}}
			} else {
				for i := range 10 {
					lane.Marks = append(lane.Marks, ITMark{At: t0.Add(span * time.Duration(i) / 9), Kind: "alarm"})
				}
			}
			p := IncidentTimelineProps{From: t0, To: t0.Add(span), Lanes: []ITLane{lane}}.layout()
			breaks := p.Breaks()
			if long := quiet && span >= 5*time.Hour; long != (len(breaks) == 1) {
				t.Errorf("%s: %d breaks", name, len(breaks))
			}
			y := float64(p.plotBottom() + 18)
			var placed boxes
			for _, b := range breaks {
				placed = append(placed, labelBox(b.Label, (b.X0+b.X1)/2, y, itTickPx, "middle"))
			}
			ticks := p.Ticks()
			if len(ticks) < 2 {
				t.Errorf("%s: %d ticks", name, len(ticks))
			}
			for _, tk := range ticks {
				x, _ := strconv.ParseFloat(tk.X, 64)
				b := labelBox(tk.Label, x, y, itTickPx, tk.Anchor)
				if !placed.free(b) || b.x0 < itLeft-1 || b.x1 > itWidth {
					t.Errorf("%s: tick %q at %s crosses another label or the edge", name, tk.Label, tk.X)
				}
				placed = append(placed, b)
			}
		}
	}
}
