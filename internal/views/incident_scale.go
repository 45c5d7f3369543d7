package views

import (
	"slices"
	"time"
)

// An incident's lanes may span weeks while what happened in them takes
// minutes: a launch three weeks ago, the one that failed today. Drawn to
// one scale, each moment is a pixel and every label lands on the others.
// So the axis is broken: a stretch in which no lane has anything, long
// enough (itBreakMin, and itBreakShare of the whole), is drawn as a narrow
// break saying how long it was, and the width goes to the stretches where
// something happened, each to its own linear scale.

const (
	itBreakMin   = 2 * time.Hour
	itBreakShare = 0.2
	itBreakWidth = 34 // SVG units a break takes
	itSegMin     = 70 // the least width a stretch of activity gets
	itTickPx     = 11 // the axis labels' font size
	itStatusPx   = 10 // the status labels' font size
)

// itSeg is a stretch of the axis drawn to a linear scale.
type itSeg struct {
	from, to time.Time
	x0, x1   float64
}

// ITBreak is a break in the axis: X0–X1 stands for the stretch From–To, in
// which nothing happened.
type ITBreak struct {
	X0, X1   float64
	From, To time.Time
	Label    string // "20 days"
}

// itScale maps times to the SVG's x: its stretches and the breaks between.
type itScale struct {
	segs   []itSeg
	breaks []ITBreak
}

// activity is the lanes' times: each bar's stretch and each mark's moment.
func (p IncidentTimelineProps) activity() [][2]time.Time {
	var iv [][2]time.Time
	for _, l := range p.Lanes {
		for _, b := range l.Bars {
			iv = append(iv, [2]time.Time{b.From, maxTime(b.To, b.From)})
		}
		for _, m := range l.Marks {
			iv = append(iv, [2]time.Time{m.At, m.At})
		}
	}
	slices.SortFunc(iv, func(a, b [2]time.Time) int { return a[0].Compare(b[0]) })
	return iv
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// newScale finds the stretches of activity and the breaks between them.
func (p IncidentTimelineProps) newScale() *itScale {
	x0, x1 := float64(itLeft), float64(itWidth-itRight)
	whole := &itScale{segs: []itSeg{{from: p.From, to: p.To, x0: x0, x1: x1}}}
	iv := p.activity()
	span := p.To.Sub(p.From)
	if len(iv) < 2 || span <= itBreakMin {
		return whole
	}
	// Merge what is close; what is left apart is apart by a long stretch.
	var clusters [][2]time.Time
	for _, v := range iv {
		if n := len(clusters); n > 0 {
			last := &clusters[n-1]
			gap := v[0].Sub(last[1])
			if gap < itBreakMin || float64(gap) < itBreakShare*float64(span) {
				last[1] = maxTime(last[1], v[1])
				continue
			}
		}
		clusters = append(clusters, v)
	}
	if len(clusters) < 2 {
		return whole
	}
	// Each stretch gets a little room around its ends, so marks there are
	// not cut by the break.
	for i := range clusters {
		pad := max(clusters[i][1].Sub(clusters[i][0])/25, time.Second)
		clusters[i][0], clusters[i][1] = clusters[i][0].Add(-pad), clusters[i][1].Add(pad)
	}
	nb := len(clusters) - 1
	room := x1 - x0 - float64(nb*itBreakWidth) - float64(len(clusters)*itSegMin)
	var total time.Duration
	for _, c := range clusters {
		total += c[1].Sub(c[0])
	}
	s := &itScale{}
	x := x0
	for i, c := range clusters {
		w := float64(itSegMin) + room*float64(c[1].Sub(c[0]))/float64(total)
		s.segs = append(s.segs, itSeg{from: c[0], to: c[1], x0: x, x1: x + w})
		x += w
		if i < nb {
			next := clusters[i+1][0]
			s.breaks = append(s.breaks, ITBreak{X0: x, X1: x + itBreakWidth, From: c[1], To: next, Label: longSpan(next.Sub(c[1]))})
			x += itBreakWidth
		}
	}
	return s
}

// xf is where t is drawn: on its stretch's scale, or inside its break.
func (s *itScale) xf(t time.Time) float64 {
	first, last := s.segs[0], s.segs[len(s.segs)-1]
	switch {
	case !t.After(first.from):
		return first.x0
	case !t.Before(last.to):
		return last.x1
	}
	for i, g := range s.segs {
		if !t.After(g.to) {
			if !t.Before(g.from) {
				d := g.to.Sub(g.from)
				if d <= 0 {
					return g.x0
				}
				return g.x0 + float64(t.Sub(g.from))/float64(d)*(g.x1-g.x0)
			}
			b := s.breaks[i-1]
			return b.X0 + float64(t.Sub(b.From))/float64(b.To.Sub(b.From))*(b.X1-b.X0)
		}
	}
	return last.x1
}

// itTickSteps are the steps the axis picks from: the finest whose labels
// fit their stretch.
var itTickSteps = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
	48 * time.Hour, 7 * 24 * time.Hour, 14 * 24 * time.Hour, 28 * 24 * time.Hour, 91 * 24 * time.Hour, 364 * 24 * time.Hour}

// ticks are the axis labels: per stretch, round UTC times at the finest
// step whose labels fit it with room between; a label says the day where
// the day is not the one before it. Break labels come first, and a tick
// that would touch one, or the tick before it, is left out.
func (s *itScale) ticks(y float64) ([]ITTick, boxes) {
	var placed boxes
	for _, b := range s.breaks {
		placed = append(placed, labelBox(b.Label, (b.X0+b.X1)/2, y, itTickPx, "middle"))
	}
	multiDay := s.segs[0].from.UTC().YearDay() != s.segs[len(s.segs)-1].to.UTC().YearDay() ||
		s.segs[len(s.segs)-1].to.Sub(s.segs[0].from) > 24*time.Hour
	var out []ITTick
	var lastDay string
	for _, g := range s.segs {
		labels, times := g.tickLabels(multiDay, lastDay)
		for i, t := range times {
			x := s.xf(t)
			anchor := "middle"
			w := textWidth(labels[i], itTickPx)
			if x-w/2 < itLeft {
				anchor = "start"
			} else if x+w/2 > itWidth-itRight {
				anchor = "end"
			}
			b := labelBox(labels[i], x, y, itTickPx, anchor)
			b.x0, b.x1 = b.x0-4, b.x1+4 // room between labels
			if !placed.free(b) {
				continue
			}
			placed = append(placed, b)
			out = append(out, ITTick{X: fmt1(x), Label: labels[i], Anchor: anchor})
			lastDay = t.UTC().Format("01-02")
		}
	}
	return out, placed
}

// tickLabels are one stretch's ticks at the finest step that fits.
func (g itSeg) tickLabels(multiDay bool, lastDay string) ([]string, []time.Time) {
	width := g.x1 - g.x0
	for _, step := range itTickSteps {
		if g.to.Sub(g.from)/step > 40 {
			continue
		}
		var labels []string
		var times []time.Time
		day := lastDay
		need := 0.0
		for t := g.from.UTC().Truncate(step); !t.After(g.to); t = t.Add(step) {
			if t.Before(g.from) {
				continue
			}
			l := tickLabel(t, step, multiDay, day)
			day = t.Format("01-02")
			labels, times = append(labels, l), append(times, t)
			need += textWidth(l, itTickPx) + 12
		}
		if len(times) > 0 && need <= width {
			return labels, times
		}
	}
	// Not even one round time fits by the rule: the stretch's middle,
	// with its day, when that fits at all (the overlap check decides).
	mid := g.from.Add(g.to.Sub(g.from) / 2).UTC().Truncate(time.Second)
	return []string{mid.Format("01-02 15:04")}, []time.Time{mid}
}

// tickLabel is a tick's text: the time at the step's precision, with the
// day when the axis spans days and the day changed since the last label.
func tickLabel(t time.Time, step time.Duration, multiDay bool, lastDay string) string {
	day := t.Format("01-02")
	switch {
	case step >= 24*time.Hour:
		return day
	case step >= time.Minute:
		if multiDay && day != lastDay {
			return day + " " + t.Format("15:04")
		}
		return t.Format("15:04")
	}
	if multiDay && day != lastDay {
		return day + " " + t.Format("15:04:05")
	}
	return t.Format("15:04:05")
}
