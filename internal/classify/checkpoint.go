package classify

import "bytes"

// Checkpoints: ingest saves a launch's state every so many lines, so that a
// batch that fills a gap reclassifies from the checkpoint before the gap and
// stops as soon as its state is the same as a later checkpoint again. Two
// things make that possible: a state that was fed more lines (the gap) is
// the same as one fed fewer when only its line count differs
// (Equivalent), since lines are only ever counted relative to each other;
// and what a state still holds (Held) is what later lines may revise, so a
// caller knows which verdicts, alarms and phases of the lines before the
// checkpoint are final.

// Equivalent reports whether s and o classify every later line alike: they
// are equal but for how many lines each was fed.
func (s *State) Equivalent(o *State) bool {
	a, err := s.normalized()
	if err != nil {
		return false
	}
	b, err := o.normalized()
	return err == nil && bytes.Equal(a, b)
}

// normalized is the saved state with its line counts moved so that it was
// fed lineBase lines: two states that differ only in their counts save
// alike. A copy is moved, through a save and a restore, so that an empty
// list and a missing one read alike too.
func (s *State) normalized() ([]byte, error) {
	data, err := s.MarshalBinary()
	if err != nil {
		return nil, err
	}
	c, err := Restore(data)
	if err != nil {
		return nil, err
	}
	c.shiftLines(lineBase - c.d.N)
	return c.MarshalBinary()
}

// lineBase is the line count states are compared at: far above any launch's,
// so that no count moved there becomes zero ("none").
const lineBase = 1 << 40

// shiftLines moves every line count the state keeps by n: the lines fed,
// and the positions of the previous line, of events (their last line, the
// window in which a retry withdraws them) and of the latest argparse usage
// line. Zero positions mean "none" and stay zero.
func (s *State) shiftLines(n int64) {
	shift := func(v *int64) {
		if *v != 0 {
			*v += n
		}
	}
	shift(&s.d.N)
	shift(&s.d.Prev.N)
	shift(&s.d.G.UsageN)
	for _, ev := range s.d.Events {
		shift(&ev.LastN)
		shift(&ev.Await)
	}
}

// Held is what a state still holds of the lines fed so far, and later lines
// may therefore still revise: the verdicts of lines from FromSeq on (0:
// none), the alarms of its events, and its phases.
type Held struct {
	FromSeq int64
	Alarms  map[int]bool
	Phases  map[PhaseKey]bool
}

// PhaseKey names one phase of a launch.
type PhaseKey struct {
	Name     string
	BeginSeq int64
}

// Held returns what the state still holds (see Held).
func (s *State) Held() Held {
	h := Held{Alarms: map[int]bool{}, Phases: map[PhaseKey]bool{}}
	from := func(seq int64) {
		if seq != 0 && (h.FromSeq == 0 || seq < h.FromSeq) {
			h.FromSeq = seq
		}
	}
	for _, ev := range s.d.Events {
		from(ev.A.FirstSeq)
		for _, r := range ev.Ranges {
			from(r.From)
		}
		for _, id := range []int{ev.A.ID, ev.Alias, ev.JoinTo} {
			if id != 0 {
				h.Alarms[id] = true
			}
		}
	}
	for _, r := range s.d.G.Runs {
		from(r.First)
		for _, rg := range r.Ranges {
			from(rg.From)
		}
	}
	for _, p := range s.d.Phases {
		h.Phases[PhaseKey{Name: p.Name, BeginSeq: p.BeginSeq}] = true
	}
	return h
}
