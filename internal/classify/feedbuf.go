package classify

import (
	"cmp"
	"slices"
	"sort"
)

// feedBuf collects the Result of one Feed call: one verdict per seq (the
// latest), the latest copy of each touched alarm and phase.
type feedBuf struct {
	lines   []LineVerdict // verdicts of this call's lines, ascending
	revised []LineVerdict // revisions of lines from earlier calls
	// room is how many verdicts lines leaves free in front of it in
	// mem.verdicts, where resultInto puts the revisions without copying
	// the lines.
	room    int
	revIdx  map[int64]int
	touched []*event
	tIdx    map[*event]struct{}
	phases  []Phase
	// cfg holds the configuration dumps of this call's lines, in order.
	cfg     configDumps
	ready   *Marker
	unready *Marker // the readiness this call took back
	mem     resultMem
}

// maxRevisionRoom bounds the room reserve leaves for revisions of earlier
// lines in front of a Feed's verdicts (an eighth of them): a Feed of the
// corpus in 500-line batches revises 32 lines in one batch of seven.
const maxRevisionRoom = 64

// reserve makes room for the verdicts of n lines, and for revisions, in
// the buffer of an earlier call (FeedInto) when it is large enough.
func (fb *feedBuf) reserve(n int) {
	fb.room = min(maxRevisionRoom, n/8)
	if cap(fb.mem.verdicts) < fb.room+n {
		fb.mem.verdicts = make([]LineVerdict, 0, fb.room+n)
	}
	fb.lines = fb.mem.verdicts[fb.room:fb.room]
}

func (fb *feedBuf) add(v LineVerdict) { fb.lines = append(fb.lines, v) }

// revise replaces the verdict of an earlier line.
func (fb *feedBuf) revise(v LineVerdict) {
	if n := len(fb.lines); n > 0 && v.Seq >= fb.lines[0].Seq {
		i := sort.Search(n, func(i int) bool { return fb.lines[i].Seq >= v.Seq })
		if i < n && fb.lines[i].Seq == v.Seq {
			fb.lines[i] = v
			return
		}
	}
	if i, ok := fb.revIdx[v.Seq]; ok {
		fb.revised[i] = v
		return
	}
	if fb.revIdx == nil {
		fb.revIdx = map[int64]int{}
	}
	fb.revIdx[v.Seq] = len(fb.revised)
	fb.revised = append(fb.revised, v)
}

func (fb *feedBuf) touch(ev *event) {
	if ev.A.ID == 0 || (len(fb.touched) > 0 && fb.touched[len(fb.touched)-1] == ev) {
		return
	}
	if fb.tIdx == nil {
		fb.tIdx = map[*event]struct{}{}
	}
	if _, ok := fb.tIdx[ev]; ok {
		return
	}
	fb.tIdx[ev] = struct{}{}
	fb.touched = append(fb.touched, ev)
}

func (fb *feedBuf) phase(ph Phase) {
	for i := range fb.phases {
		if fb.phases[i].Name == ph.Name && fb.phases[i].BeginSeq == ph.BeginSeq {
			fb.phases[i] = ph
			return
		}
	}
	fb.phases = append(fb.phases, ph)
}

// parseConfig notes the configuration dump that starts at text; result
// makes the call's Config of its dumps (configDumps).
func (fb *feedBuf) parseConfig(text string) { fb.cfg.add(text) }

// withRevisions is the call's verdicts and the revisions, by seq. A
// revision is of a line an earlier call fed (revise updates this call's
// own in place), so every one comes before this call's lines: sorted, they
// go in front, into the room reserve left when they fit.
func (fb *feedBuf) withRevisions() []LineVerdict {
	bySeq := func(a, b LineVerdict) int { return cmp.Compare(a.Seq, b.Seq) }
	slices.SortFunc(fb.revised, bySeq) // revise keeps one verdict per seq
	n := len(fb.revised)
	switch {
	case len(fb.lines) == 0:
		return fb.revised
	case fb.revised[n-1].Seq >= fb.lines[0].Seq:
		// Not expected (see above); sorting them all is always right.
		all := append(fb.revised, fb.lines...)
		slices.SortStableFunc(all, bySeq)
		return all
	case n <= fb.room && &fb.mem.verdicts[:fb.room+1][fb.room] == &fb.lines[0]:
		all := fb.mem.verdicts[fb.room-n : fb.room+len(fb.lines)]
		copy(all, fb.revised)
		return all
	}
	return append(fb.revised, fb.lines...)
}

// resultInto makes r the call's Result, in the memory the call took from
// an earlier Result (FeedInto).
func (fb *feedBuf) resultInto(r *Result) {
	alarms := fb.mem.alarms[:0]
	*r = Result{Lines: fb.lines}
	if len(fb.phases) > 0 {
		r.Phases, fb.mem.phases = fb.phases, fb.phases
	}
	r.Config, fb.mem.config = fb.cfg.build(fb.mem.config)
	if fb.ready != nil {
		m := *fb.ready
		r.Ready = &m
	}
	if fb.unready != nil {
		m := *fb.unready
		r.Unready = &m
	}
	if len(fb.revised) > 0 {
		r.Lines = fb.withRevisions()
	}
	for _, ev := range fb.touched {
		alarms = append(alarms, ev.A)
	}
	if len(alarms) > 0 {
		r.Alarms, fb.mem.alarms = alarms, alarms
		slices.SortFunc(r.Alarms, func(a, b Alarm) int { return a.ID - b.ID })
	}
	r.mem = fb.mem
}
