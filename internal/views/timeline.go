package views

import (
	"strconv"
	"time"
)

// Timeline geometry, in SVG user units; the SVG scales to its container.
const (
	tlWidth = 1000
	tlLeft  = 130 // room for the lane labels
	tlRight = 20
	tlTop   = 8
	tlLane  = 24
	tlAxis  = 28
)

// TimelineProps is a launch drawn on its own line times: phases as bars,
// the ready marker, alarm markers coloured by state, and gaps in which no
// line was written. Every marker links to its lines.
type TimelineProps struct {
	Start, End time.Time
	Phases     []TimelinePhase
	Ready      *TimelineMark
	Alarms     []TimelineAlarm
	Gaps       []TimelineGap
	Live       bool // the launch is still starting or loading: unended phases are running
	Notes      []TimelineNote
}

// TimelineNote is an annotation's marker.
type TimelineNote struct {
	At     time.Time
	Author string
	Body   string
	Href   string
}

// TimelinePhase is one startup phase.
type TimelinePhase struct {
	Name       string
	Begin, End time.Time // End is the timeline's end while the phase runs
	Running    bool
	Done       int
	Total      int
	Href       string
}

// TimelineMark is a point on the timeline.
type TimelineMark struct {
	At   time.Time
	Href string
}

// TimelineAlarm is an alarm's marker.
type TimelineAlarm struct {
	No       int
	At       time.Time
	State    string
	Headline string
	Href     string
}

// TimelineGap is a stretch with no line.
type TimelineGap struct {
	From, To time.Time
}

// Tick is an axis label.
type Tick struct {
	X     string
	Label string
}

func (p TimelineProps) xf(t time.Time) float64 {
	span := p.End.Sub(p.Start)
	f := 0.0
	if span > 0 {
		f = float64(t.Sub(p.Start)) / float64(span)
	}
	f = max(0, min(1, f))
	return tlLeft + f*(tlWidth-tlLeft-tlRight)
}

func (p TimelineProps) x(t time.Time) string { return fmt1(p.xf(t)) }

// w is the width of the span [a, b], at least 2 units so short phases and
// gaps stay visible.
func (p TimelineProps) w(a, b time.Time) string { return fmt1(max(2, p.xf(b)-p.xf(a))) }

func (p TimelineProps) laneY(i int) int { return tlTop + i*tlLane }

func (p TimelineProps) alarmLane() int { return len(p.Phases) }

func (p TimelineProps) noteLane() int { return p.alarmLane() + 1 }

func (p TimelineProps) plotBottom() int {
	if len(p.Notes) > 0 {
		return p.laneY(p.noteLane() + 1)
	}
	return p.laneY(p.alarmLane() + 1)
}

// notePoints is the triangle of a note marker at t.
func (p TimelineProps) notePoints(t time.Time) string {
	x, y := p.xf(t), float64(p.laneY(p.noteLane()))
	return fmt1(x-6) + "," + fmt1(y+18) + " " + fmt1(x+6) + "," + fmt1(y+18) + " " + fmt1(x) + "," + fmt1(y+6)
}

// Height is the SVG's height.
func (p TimelineProps) Height() int { return p.plotBottom() + tlAxis }

func (p TimelineProps) viewBox() string {
	return "0 0 " + strconv.Itoa(tlWidth) + " " + strconv.Itoa(p.Height())
}

// Ticks are five evenly spaced labels, relative to the first line.
func (p TimelineProps) Ticks() []Tick {
	span := p.End.Sub(p.Start)
	var out []Tick
	for i := range 5 {
		at := p.Start.Add(span * time.Duration(i) / 4)
		out = append(out, Tick{X: p.x(at), Label: "+" + Duration(at.Sub(p.Start))})
	}
	return out
}

func fmt1(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

func (p TimelineProps) phaseLabel(ph TimelinePhase) string {
	d := Duration(ph.End.Sub(ph.Begin))
	switch {
	case ph.Running && p.Live && ph.Total > 0:
		return d + ", " + itoa(ph.Done) + "/" + itoa(ph.Total) + " …"
	case ph.Running && p.Live:
		return d + " …"
	case ph.Running:
		return d + ", no end line"
	}
	return d
}

// labelAt places a bar's label after the bar, or inside its end when the
// bar reaches the right edge.
func (p TimelineProps) labelAt(t time.Time) (x, anchor string) {
	if end := p.xf(t); end > tlWidth-tlRight-140 {
		return fmt1(end - 4), "end"
	} else {
		return fmt1(end + 4), "start"
	}
}

func (p TimelineProps) labelX(t time.Time) string { x, _ := p.labelAt(t); return x }

func (p TimelineProps) labelAnchor(t time.Time) string { _, a := p.labelAt(t); return a }

func tickAnchor(i, n int) string {
	switch i {
	case 0:
		return "start"
	case n - 1:
		return "end"
	}
	return "middle"
}
