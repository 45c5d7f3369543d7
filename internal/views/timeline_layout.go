package views

import (
	"slices"
	"time"
)

// TimelineInput is what a launch's timeline is drawn from, every time on
// the launch clock.
type TimelineInput struct {
	Origin, Last time.Time // the first and the last line
	// From and To are the zoom; zero times draw the whole launch.
	From, To time.Time
	// Now is the launch clock now: while the launch is live an open phase
	// runs until it, so it shows its elapsed time.
	Now    time.Time
	Live   bool
	Phases []TimelinePhase // in the order they began
	// PhaseHref is the link of a phase whose Href is "", from its first
	// line's seq: made for the segments drawn alone, not for every one of
	// a long launch's instances.
	PhaseHref func(beginSeq int64) string
	Ready     *TimelineMark // the first time the launch became ready
	// Readies is every time it became ready, in order, the first included:
	// a server that restarted inside the launch becomes ready again.
	Readies []TimelineMark
	Exit    *TimelineMark
	// Resets are the seqs of lines after which a phase kind starting again
	// is a restart: the ready line, fatal alarms (crashes).
	Resets []int64
	Alarms []TimelineAlarm
	Gaps   []TimelineGap
	Notes  []TimelineNote
}

// TimelinePhase is one instance of a startup phase.
type TimelinePhase struct {
	Name        string
	BeginSeq    int64
	Begin       time.Time
	End         *time.Time // nil while it runs, or when no end line came
	Done, Total int
	Href        string
}

// NewTimeline lays out a launch's timeline: one row per phase kind, its
// instances numbered segments (merged when they overlap in time or in
// columns), restarts as markers on the axis, and marks merged per column,
// so that what is drawn depends on the SVG's width, not on how many events
// the launch has.
func NewTimeline(in TimelineInput) TimelineProps {
	p := TimelineProps{Origin: in.Origin, Start: in.Origin, End: in.Last}
	open := false
	for _, ph := range in.Phases {
		open = open || ph.End == nil
	}
	if in.Live && open && in.Now.After(p.End) {
		p.End = in.Now
	}
	if !p.End.After(p.Start) {
		p.End = p.Start.Add(time.Second)
	}
	axisEnd := p.End // where open phases end
	if !in.From.IsZero() || !in.To.IsZero() {
		p.Zoomed = true
		if in.From.After(p.Start) {
			p.Start = in.From
		}
		if p.Start.After(p.End) {
			p.Start = p.End
		}
		if !in.To.IsZero() && in.To.Before(p.End) {
			p.End = in.To
		}
		if !p.End.After(p.Start) {
			p.End = p.Start.Add(time.Second)
		}
	}
	p.Rows = p.rows(in, axisEnd)
	p.Restarts = p.markColumns(restarts(in.Phases, in.Resets, in.href))
	readies := in.Readies
	if len(readies) == 0 && in.Ready != nil {
		readies = []TimelineMark{*in.Ready}
	}
	p.Readies = p.readyColumns(readies)
	if in.Exit != nil && p.in(in.Exit.At) {
		p.Exit = in.Exit
	}
	p.Alarms = p.alarmColumns(in.Alarms)
	p.Gaps = p.gapColumns(in.Gaps)
	p.Notes = p.noteColumns(in.Notes)
	p.placeLabels()
	return p
}

// in reports whether a mark at t is drawn: every mark of the whole launch
// (clamped to the axis), only those inside a zoom.
func (p TimelineProps) in(t time.Time) bool {
	return !p.Zoomed || !t.Before(p.Start) && !t.After(p.End)
}

// col is the column of a point mark at t.
func (p TimelineProps) col(t time.Time) int { return int((p.xf(t) - tlLeft) / tlMarkCol) }

// colOf is the column of segments and gaps at x.
func (p TimelineProps) colOf(x float64) int { return int((x - tlLeft) / tlCol) }

// drawnEnd is where the bar of [a, b] ends, at least 2 units after it begins.
func (p TimelineProps) drawnEnd(a, b time.Time) float64 { return max(p.xf(b), p.xf(a)+2) }

// rows groups the phase instances by kind, in the order kinds first began;
// kinds beyond tlMaxPhaseRows share a last row, "other". A long launch
// has tens of thousands of instances and a row at most a segment per
// column: instances are sorted and merged as small records (an index and
// a number), and a segment is made for each merged one alone.
func (p TimelineProps) rows(in TimelineInput, axisEnd time.Time) []TimelineRow {
	var rows []TimelineRow
	index := map[string]int{}
	numbers := map[string]int{}
	insts := make([][]instance, 0, tlMaxPhaseRows)
	for i := range in.Phases {
		ph := &in.Phases[i]
		numbers[ph.Name]++
		ri, ok := index[ph.Name]
		if !ok {
			ri = len(rows)
			if ri >= tlMaxPhaseRows {
				ri = tlMaxPhaseRows - 1
				rows[ri].Name = "other"
			} else {
				rows = append(rows, TimelineRow{Name: ph.Name})
				insts = append(insts, nil)
			}
			index[ph.Name] = ri
		}
		rows[ri].Instances++
		if ph.endOr(axisEnd).Before(p.Start) || ph.Begin.After(p.End) {
			continue // outside the zoom
		}
		insts[ri] = append(insts[ri], instance{i: int32(i), no: int32(numbers[ph.Name])})
	}
	for ri := range rows {
		rows[ri].Segments = p.mergeSegments(in, axisEnd, insts[ri])
		for si := range rows[ri].Segments {
			p.labelSegment(in.Live, &rows[ri], &rows[ri].Segments[si], numbers)
		}
	}
	return rows
}

// instance is a phase instance of a row: its index in the input's phases
// and its number among the instances of its kind.
type instance struct{ i, no int32 }

// endOr is where the phase's bar ends: its end, or open's while it runs.
func (ph *TimelinePhase) endOr(open time.Time) time.Time {
	if ph.End != nil {
		return *ph.End
	}
	return open
}

// href is the link of the phase's first line.
func (in TimelineInput) href(ph *TimelinePhase) string {
	if ph.Href == "" && in.PhaseHref != nil {
		return in.PhaseHref(ph.BeginSeq)
	}
	return ph.Href
}

// segment is the phase instance inst of in as a segment of its own.
func (in TimelineInput) segment(inst instance, axisEnd time.Time) TimelineSegment {
	ph := &in.Phases[inst.i]
	no := int(inst.no)
	return TimelineSegment{Name: ph.Name, First: no, Last: no, Count: 1, Begin: ph.Begin, End: ph.endOr(axisEnd),
		Running: ph.End == nil, Done: ph.Done, Total: ph.Total, Href: in.href(ph)}
}

// mergeSegments merges instances that overlap in time (ranks running the
// same phase at once) or that begin in a column the bar before reaches,
// so a row has at most one segment per column.
func (p TimelineProps) mergeSegments(in TimelineInput, axisEnd time.Time, insts []instance) []TimelineSegment {
	slices.SortStableFunc(insts, func(a, b instance) int { return in.Phases[a.i].Begin.Compare(in.Phases[b.i].Begin) })
	var out []TimelineSegment
	for _, inst := range insts {
		ph := &in.Phases[inst.i]
		if len(out) == 0 {
			out = append(out, in.segment(inst, axisEnd))
			continue
		}
		cur := &out[len(out)-1]
		overlaps := ph.Begin.Before(cur.End)
		if !overlaps && p.colOf(p.xf(ph.Begin)) > p.colOf(p.drawnEnd(cur.Begin, cur.End)) {
			out = append(out, in.segment(inst, axisEnd))
			continue
		}
		no := int(inst.no)
		cur.Overlapping = cur.Overlapping || overlaps
		cur.Count++
		cur.First, cur.Last = min(cur.First, no), max(cur.Last, no)
		if end := ph.endOr(axisEnd); end.After(cur.End) {
			cur.End, cur.Running, cur.Done, cur.Total = end, ph.End == nil, ph.Done, ph.Total
		}
		cur.Running = cur.Running || ph.End == nil
	}
	return out
}

// labelSegment writes a segment's title ("cuda_graph #3, 2.0s") and the
// label drawn on it, when there is room.
func (p TimelineProps) labelSegment(live bool, r *TimelineRow, s *TimelineSegment, numbers map[string]int) {
	d := Duration(s.End.Sub(s.Begin))
	switch {
	case s.Running && live && s.Total > 0:
		d += ", " + itoa(s.Done) + "/" + itoa(s.Total) + " …"
	case s.Running && live:
		d += " …"
	case s.Running:
		d += ", no end line"
	}
	no := ""
	if numbers[s.Name] > 1 {
		no = " #" + itoa(s.First)
		if s.Count > 1 {
			no += "–#" + itoa(s.Last)
		}
	}
	s.Title = s.Name + no + ", " + d
	if s.Count > 1 {
		at := "one after another"
		if s.Overlapping {
			at = "some at once"
		}
		s.Title = s.Name + no + ": " + itoa(s.Count) + " instances (" + at + "), " + d
	}
	switch {
	case len(r.Segments) == 1 && s.Count == 1:
		s.Label = d
	case s.Running:
		s.Label = "#" + itoa(s.Last) + ", " + d
	default:
		s.Label = "#" + itoa(s.First)
		if s.Count > 1 {
			s.Label = "×" + itoa(s.Count)
		}
		if p.drawnEnd(s.Begin, s.End)-p.xf(s.Begin) < float64(6*len([]rune(s.Label))+4) {
			s.Label = ""
		}
	}
}

// restarts finds where the launch started again: a phase kind beginning
// again after a reset line (ready, a crash), or the launch's first kind
// beginning again once every phase before it had ended and other kinds
// had run since its last instance.
func restarts(phases []TimelinePhase, resets []int64, href func(*TimelinePhase) string) []TimelineMark {
	if len(phases) == 0 {
		return nil
	}
	resets = slices.Sorted(slices.Values(resets))
	first := phases[0].Name
	seen := map[string]bool{}
	var out []TimelineMark
	pending, others, allEnded := false, false, true
	var lastEnd time.Time
	ri := 0
	for i := range phases {
		ph := &phases[i]
		for ri < len(resets) && resets[ri] < ph.BeginSeq {
			pending = true
			ri++
		}
		quiet := allEnded && !lastEnd.After(ph.Begin)
		if seen[ph.Name] && (pending || ph.Name == first && others && quiet) {
			out = append(out, TimelineMark{At: ph.Begin, Count: 1, Href: href(ph), Title: ph.Name + " began again"})
			pending = false
		}
		if ph.Name == first {
			others = false
		} else if seen[first] {
			others = true
		}
		seen[ph.Name] = true
		if ph.End == nil {
			allEnded = false
		} else if ph.End.After(lastEnd) {
			lastEnd = *ph.End
		}
	}
	return out
}

// byTime is marks in time order: a log's times need not follow its lines
// (a concatenation of logs), and marks are merged per column in time order
// so each column has one mark whatever the order of the lines.
func byTime(marks []TimelineMark) []TimelineMark {
	marks = slices.Clone(marks)
	slices.SortStableFunc(marks, func(a, b TimelineMark) int { return a.At.Compare(b.At) })
	return marks
}

// markColumns keeps one mark per column, counting the ones it stands for.
func (p TimelineProps) markColumns(marks []TimelineMark) []TimelineMark {
	marks = byTime(marks)
	var out []TimelineMark
	last := -1
	for _, m := range marks {
		if !p.in(m.At) {
			continue
		}
		if c := p.col(m.At); len(out) > 0 && c == last {
			out[len(out)-1].Count += max(1, m.Count)
			continue
		} else {
			last = c
		}
		m.Count = max(1, m.Count)
		out = append(out, m)
	}
	for i := range out {
		if out[i].Count > 1 {
			out[i].Title = itoa(out[i].Count) + " restarts, the first: " + out[i].Title
		} else {
			out[i].Title = "restart: " + out[i].Title
		}
	}
	return out
}

// readyColumns are the ready markers, those in one column merged into the
// first of them with a count; the first marker of the launch says "ready",
// later ones "ready again".
func (p TimelineProps) readyColumns(marks []TimelineMark) []TimelineMark {
	marks = slices.Clone(marks)
	for i := range marks {
		marks[i].Title = "ready again"
		if i == 0 {
			marks[i].Title = "ready"
		}
	}
	var out []TimelineMark
	last := -1
	for _, m := range byTime(marks) {
		if !p.in(m.At) {
			continue
		}
		if c := p.col(m.At); len(out) > 0 && c == last {
			out[len(out)-1].Count++
			continue
		} else {
			last = c
		}
		m.Count = 1
		out = append(out, m)
	}
	for i := range out {
		if out[i].Count > 1 {
			out[i].Title += " (" + itoa(out[i].Count) + " times here)"
		}
	}
	return out
}

// alarmSeverity orders alarm states: the mark of a column shows the most
// pressing.
var alarmSeverity = map[string]int{"open": 0, "confirmed": 1, "dismissed": 2, "suppressed": 3}

func (p TimelineProps) alarmColumns(alarms []TimelineAlarm) []TimelineAlarm {
	alarms = slices.Clone(alarms)
	slices.SortStableFunc(alarms, func(a, b TimelineAlarm) int { return a.At.Compare(b.At) })
	var out []TimelineAlarm
	last := -1
	for _, a := range alarms {
		if !p.in(a.At) {
			continue
		}
		if c := p.col(a.At); len(out) > 0 && c == last {
			cur := &out[len(out)-1]
			cur.Count++
			if s, ok := alarmSeverity[a.State]; ok && s < alarmSeverity[cur.State] {
				cur.State = a.State
			}
			continue
		} else {
			last = c
		}
		a.Count = 1
		a.Headline = clip(a.Headline, tlTitleMax)
		out = append(out, a)
	}
	return out
}

func (p TimelineProps) gapColumns(gaps []TimelineGap) []TimelineGap {
	var out []TimelineGap
	for _, g := range gaps {
		if p.Zoomed && (g.To.Before(p.Start) || g.From.After(p.End)) {
			continue
		}
		if len(out) > 0 {
			cur := &out[len(out)-1]
			// Touching gaps stay apart, as long as they begin in
			// different columns.
			if p.colOf(p.xf(g.From)) == p.colOf(p.xf(cur.From)) || p.xf(g.From) < p.drawnEnd(cur.From, cur.To)-0.5 {
				cur.Count++
				if g.To.After(cur.To) {
					cur.To = g.To
				}
				continue
			}
		}
		g.Count = 1
		out = append(out, g)
	}
	return out
}

func (p TimelineProps) noteColumns(notes []TimelineNote) []TimelineNote {
	notes = slices.Clone(notes)
	slices.SortStableFunc(notes, func(a, b TimelineNote) int { return a.At.Compare(b.At) })
	var out []TimelineNote
	last := -1
	for _, n := range notes {
		if !p.in(n.At) {
			continue
		}
		if c := p.col(n.At); len(out) > 0 && c == last {
			out[len(out)-1].Count++
			continue
		} else {
			last = c
		}
		n.Count = 1
		n.Body = clip(n.Body, tlTitleMax)
		out = append(out, n)
	}
	return out
}

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}
