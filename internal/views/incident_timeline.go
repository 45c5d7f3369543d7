package views

import (
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

// labelX and labelAnchor put a status label after its mark, or before it
// near the right edge, where it would be cut.
func (p IncidentTimelineProps) labelX(t time.Time) string {
	if p.nearRight(t) {
		return fmt1(p.xf(t) - 4)
	}
	return fmt1(p.xf(t) + 4)
}

func (p IncidentTimelineProps) labelAnchor(t time.Time) string {
	if p.nearRight(t) {
		return "end"
	}
	return "start"
}

func (p IncidentTimelineProps) nearRight(t time.Time) bool { return p.xf(t) > itWidth-itRight-90 }

// fits reports whether a bar is wide enough for its label inside.
func (p IncidentTimelineProps) fits(b ITBar) bool {
	return p.xf(b.To)-p.xf(b.From) > float64(7*len([]rune(b.Label))+6)
}

// ITTick is a labelled time on the axis.
type ITTick struct {
	X     string
	Label string
}

var itSteps = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second,
	30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
	30 * time.Minute, time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
	48 * time.Hour, 7 * 24 * time.Hour}

// Ticks are round UTC times along the axis, at most about eight.
func (p IncidentTimelineProps) Ticks() []ITTick {
	span := p.To.Sub(p.From)
	step := itSteps[len(itSteps)-1]
	for _, s := range itSteps {
		if span/s <= 8 {
			step = s
			break
		}
	}
	layout := "15:04:05"
	if step >= time.Minute {
		layout = "15:04"
	}
	if step >= 24*time.Hour || p.From.UTC().YearDay() != p.To.UTC().YearDay() {
		layout = "01-02 " + layout
	}
	var out []ITTick
	for t := p.From.UTC().Truncate(step); !t.After(p.To); t = t.Add(step) {
		if t.Before(p.From) {
			continue
		}
		out = append(out, ITTick{X: p.x(t), Label: t.Format(layout)})
	}
	return out
}

func laneLabel(l ITLane) string {
	if r := []rune(l.Label); len(r) > 24 {
		return string(r[:23]) + "…"
	}
	return l.Label
}
