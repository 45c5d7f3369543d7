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
	// tlCol is the width of a column of a phase row or of gaps (6 px at
	// the page's usual width): a segment beginning in a column the one
	// before it reaches is merged into it (with a count), so a row holds
	// at most (tlWidth-tlLeft-tlRight)/tlCol = 141 segments however long
	// the log.
	tlCol = 6
	// tlMarkCol is the column of point marks (alarms, notes, restarts):
	// the width of their symbols, so marks in one column, which would be
	// drawn over each other, are drawn as one with a count (85 a row).
	tlMarkCol = 10
	// tlMaxPhaseRows bounds the phase rows; further kinds share the last
	// row ("other"), so the SVG has at most ~30 rows whatever the log.
	tlMaxPhaseRows = 26
	// tlTitleMax bounds the text of a title (an alarm's headline).
	tlTitleMax = 160
)

// TimelineProps is a launch drawn on its launch clock, laid out by
// NewTimeline: one row per phase kind with its instances as numbered
// segments, the ready, exit and restart markers on the axis, alarm, gap
// and note marks aggregated per column, and the zoom links.
type TimelineProps struct {
	Origin     time.Time // the launch's first line: ticks and ?from=/?to= count from it
	Start, End time.Time // the range drawn: the whole launch or the zoom
	Zoomed     bool
	Rows       []TimelineRow
	Readies    []TimelineMark // each time the launch became ready
	Exit       *TimelineMark
	Restarts   []TimelineMark
	Alarms     []TimelineAlarm
	Gaps       []TimelineGap
	Notes      []TimelineNote
	Zooms      []TimelineZoom
	// ZoomError is why the page's ?from=&to= was refused, shown where the
	// zoom is chosen.
	ZoomError string
	// ZoomBase is the page URL the drag on the axis (static/timeline.js)
	// adds ?from=&to= to.
	ZoomBase string
	// ReadyLabel and ExitLabel place the words beside the first ready
	// line and the exit line where they cross no other label (nil: they
	// fit nowhere, the lines' titles say it).
	ReadyLabel, ExitLabel *PlacedLabel
}

// PlacedLabel is where a label is drawn.
type PlacedLabel struct {
	X, Y   string
	Anchor string
}

// TimelineRow is one phase kind.
type TimelineRow struct {
	Name      string
	Label     string // the row's name as drawn, cut to the room left of the plot
	Instances int    // how many instances of the kind the launch has
	Segments  []TimelineSegment
}

// TimelineSegment is one instance of a phase, or several that overlap in
// time or fall in the same columns (ranks running the same phase at once).
type TimelineSegment struct {
	Name        string
	First, Last int // instance numbers, from 1 in begin order
	Count       int
	Overlapping bool // some instances ran at the same time
	Begin, End  time.Time
	Running     bool // the last instance has no end line
	Done, Total int
	Href        string
	Label       string // drawn beside or inside the bar; "" when there is no room
	Title       string
	// LabelX, LabelAnchor and Inside place Label (placeLabels).
	LabelX      string
	LabelAnchor string
	Inside      bool
}

// TimelineMark is a point on the timeline (ready, exit, a restart).
type TimelineMark struct {
	At    time.Time
	Count int
	Title string
	Href  string
}

// TimelineAlarm is the mark of the alarms in one column.
type TimelineAlarm struct {
	No       int // the first alarm's number
	At       time.Time
	Count    int
	State    string // the most pressing state among them
	Headline string
	Href     string
}

// TimelineGap is a stretch with no line (or several in one column).
type TimelineGap struct {
	From, To time.Time
	Count    int
}

// TimelineNote is the mark of the notes in one column.
type TimelineNote struct {
	At     time.Time
	Count  int
	Author string
	Body   string
	Href   string
}

// TimelineZoom is a link to a time range of the launch.
type TimelineZoom struct {
	Label   string
	Href    string
	Current bool
	TestID  string
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

func (p TimelineProps) alarmLane() int { return len(p.Rows) }

func (p TimelineProps) noteLane() int { return p.alarmLane() + 1 }

func (p TimelineProps) plotBottom() int {
	if len(p.Notes) > 0 {
		return p.laneY(p.noteLane() + 1)
	}
	return p.laneY(p.alarmLane() + 1)
}

// RowCount is how many rows the SVG draws: the phase kinds, alarms and
// notes.
func (p TimelineProps) RowCount() int { return (p.plotBottom() - tlTop) / tlLane }

// notePoints is the triangle of a note marker at t.
func (p TimelineProps) notePoints(t time.Time) string {
	x, y := p.xf(t), float64(p.laneY(p.noteLane()))
	return fmt1(x-6) + "," + fmt1(y+18) + " " + fmt1(x+6) + "," + fmt1(y+18) + " " + fmt1(x) + "," + fmt1(y+6)
}

// restartPoints is the triangle of a restart marker at t, on the axis.
func (p TimelineProps) restartPoints(t time.Time) string {
	x, y := p.xf(t), float64(p.plotBottom()+2)
	return fmt1(x-5) + "," + fmt1(y+8) + " " + fmt1(x+5) + "," + fmt1(y+8) + " " + fmt1(x) + "," + fmt1(y)
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
		out = append(out, Tick{X: p.x(at), Label: "+" + Duration(at.Sub(p.Origin))})
	}
	return out
}

// seconds is t on the launch clock as ?from=/?to= write it: seconds from
// the first line.
func (p TimelineProps) seconds(t time.Time) string {
	return strconv.FormatFloat(t.Sub(p.Origin).Seconds(), 'f', -1, 64)
}

func fmt1(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// insideLabel reports whether segment s's label is drawn inside its bar
// (a numbered segment among others) rather than after it.
func (p TimelineProps) insideLabel(r TimelineRow, s TimelineSegment) bool {
	return len(r.Segments) > 1 && !s.Running
}

func rowLabel(r TimelineRow) string {
	if r.Instances > 1 {
		return r.Name + " ×" + itoa(r.Instances)
	}
	return r.Name
}

func alarmTitle(a TimelineAlarm) string {
	t := "alarm " + itoa(a.No) + " (" + a.State + "): " + Plain(a.Headline)
	if a.Count > 1 {
		t += " and " + itoa(a.Count-1) + " more here"
	}
	return t
}

func noteTitle(n TimelineNote) string {
	t := n.Author + ": " + n.Body
	if n.Count > 1 {
		t += " and " + itoa(n.Count-1) + " more notes here"
	}
	return t
}

func countSuffix(n int) string {
	if n > 1 {
		return " (" + itoa(n) + ")"
	}
	return ""
}

func tickAnchor(i, n int) string {
	switch i {
	case 0:
		return "start"
	case n - 1:
		return "end"
	}
	return "middle"
}
