package views

import (
	"slices"
	"time"
)

// IncidentTimelineProps is an incident's merged timeline: one lane for the
// incident itself (status changes, its notes) and one per launch (phases,
// readiness, alarms, decisions, notes, exit), all on one UTC axis. Each
// launch's marks are on its launch clock, which is corrected to real time,
// so lanes line up even when the hosts' clocks disagree.
type IncidentTimelineProps struct {
	From, To time.Time
	Lanes    []ITLane
	// sc is the axis laid out (layout): its stretches and breaks; nil
	// draws From–To to one scale.
	sc *itScale
}

// ITLane is one row of the incident timeline.
type ITLane struct {
	Label    string
	Href     string
	Key      string // the launch's key; "" for the incident's lane
	Status   string
	Bars     []ITBar
	Marks    []ITMark
	Incident bool
}

// ITBar is a phase of a launch.
type ITBar struct {
	From, To time.Time
	Label    string
	Title    string
	Href     string
	Running  bool
}

// ITMark is a point event: kind is alarm, decision, note, status, ready or
// exit; class styles it (an alarm's state, a status).
type ITMark struct {
	At    time.Time
	Kind  string
	Class string
	Title string
	Label string // shown beside status marks
	Href  string
	// Shown is the label as laid out (layout): consecutive status marks
	// too close for a label each share one ("mitigated → resolved"); ""
	// when none fits (the title keeps it). ShownX and ShownAnchor place it.
	Shown       string
	ShownX      string
	ShownAnchor string
}

// Geometry of the incident timeline's SVG, in its own units.
const (
	itWidth = 1100
	itLeft  = 170
	itRight = 24
	itTop   = 6
	itLane  = 30
	itAxis  = 26
)

// Empty reports whether there is nothing to draw.
func (p IncidentTimelineProps) Empty() bool { return !p.To.After(p.From) && len(p.Lanes) == 0 }

func (p IncidentTimelineProps) span() float64 {
	return max(p.To.Sub(p.From).Seconds(), 1)
}

func (p IncidentTimelineProps) xf(t time.Time) float64 {
	if p.sc != nil {
		return p.sc.xf(t)
	}
	f := t.Sub(p.From).Seconds() / p.span()
	return itLeft + min(max(f, 0), 1)*(itWidth-itLeft-itRight)
}

func (p IncidentTimelineProps) x(t time.Time) string { return fmt1(p.xf(t)) }

func (p IncidentTimelineProps) w(a, b time.Time) string { return fmt1(max(p.xf(b)-p.xf(a), 2)) }

func (p IncidentTimelineProps) laneY(i int) int { return itTop + i*itLane }

func (p IncidentTimelineProps) mid(i int) int { return p.laneY(i) + itLane/2 }

func (p IncidentTimelineProps) plotBottom() int { return p.laneY(len(p.Lanes)) }

// Height is the SVG's height.
func (p IncidentTimelineProps) Height() int { return p.plotBottom() + itAxis }

func (p IncidentTimelineProps) viewBox() string {
	return "0 0 " + itoa(itWidth) + " " + itoa(p.Height())
}

// diamond and flag are the shapes of decisions and notes at x, lane i.
func (p IncidentTimelineProps) diamond(t time.Time, i int) string {
	x, y := p.xf(t), float64(p.mid(i))
	return fmt1(x) + "," + fmt1(y-7) + " " + fmt1(x+6) + "," + fmt1(y) + " " + fmt1(x) + "," + fmt1(y+7) + " " + fmt1(x-6) + "," + fmt1(y)
}

func (p IncidentTimelineProps) triangle(t time.Time, i int) string {
	x, y := p.xf(t), float64(p.laneY(i)+4)
	return fmt1(x-6) + "," + fmt1(y) + " " + fmt1(x+6) + "," + fmt1(y) + " " + fmt1(x) + "," + fmt1(y+10)
}

// fits reports whether a bar is wide enough for its label inside.
func (p IncidentTimelineProps) fits(b ITBar) bool {
	return p.xf(b.To)-p.xf(b.From) > textWidth(b.Label, 10)+6
}

// ITTick is a labelled time on the axis.
type ITTick struct {
	X      string
	Label  string
	Anchor string
}

// Ticks are round UTC times along the axis, as many as fit (itScale.ticks).
func (p IncidentTimelineProps) Ticks() []ITTick {
	sc := p.sc
	if sc == nil {
		sc = p.newScale()
	}
	ticks, _ := sc.ticks(float64(p.plotBottom() + 18))
	return ticks
}

// Breaks are the axis's breaks.
func (p IncidentTimelineProps) Breaks() []ITBreak {
	if p.sc == nil {
		return nil
	}
	return p.sc.breaks
}

// layout lays the timeline out before it is drawn: the axis's stretches
// and breaks, and the status labels, placed so that none overlaps another
// or a lane's label.
func (p IncidentTimelineProps) layout() IncidentTimelineProps {
	p.sc = p.newScale()
	lanes := make([]ITLane, len(p.Lanes))
	for i, l := range p.Lanes {
		l.Marks = slices.Clone(l.Marks)
		lanes[i] = l
	}
	p.Lanes = lanes
	for i := range p.Lanes {
		p.placeStatusLabels(i)
	}
	return p
}

// placeStatusLabels places lane i's status labels left to right: a label
// after its mark, or before it; consecutive marks closer than a label
// share one ("investigating → mitigated → resolved"), or, when that does
// not fit either, show the last status alone; what fits nowhere is left
// to the marks' titles.
func (p IncidentTimelineProps) placeStatusLabels(i int) {
	l := &p.Lanes[i]
	y := float64(p.mid(i) + 4)
	placed := boxes{{0, itLeft, y - 20, y + 20}} // the lane's label
	var idx []int
	for k, m := range l.Marks {
		if m.Kind == "status" && m.Label != "" {
			idx = append(idx, k)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return l.Marks[a].At.Compare(l.Marks[b].At) })
	for g := 0; g < len(idx); {
		first := &l.Marks[idx[g]]
		text, end := first.Label, g+1
		for end < len(idx) && p.xf(l.Marks[idx[end]].At) < p.xf(first.At)+textWidth(text, itStatusPx)+8 {
			text += " → " + l.Marks[idx[end]].Label
			end++
		}
		last := &l.Marks[idx[end-1]]
		try := []struct {
			m      *ITMark
			text   string
			x      float64
			anchor string
		}{
			{first, text, p.xf(first.At) + 4, "start"},
			{last, text, p.xf(last.At) - 4, "end"},
			{last, last.Label, p.xf(last.At) + 4, "start"},
			{last, last.Label, p.xf(last.At) - 4, "end"},
		}
		for _, c := range try {
			b := labelBox(c.text, c.x, y, itStatusPx, c.anchor)
			if b.x0 < itLeft || b.x1 > itWidth || !placed.free(b) {
				continue
			}
			placed = append(placed, b)
			c.m.Shown, c.m.ShownX, c.m.ShownAnchor = c.text, fmt1(c.x), c.anchor
			break
		}
		g = end
	}
}

// laneLabel is a lane's label, cut to the room left of the axis.
func laneLabel(l ITLane) string {
	return clipText(l.Label, itLeft-10, 11)
}
