package classify

import (
	"slices"
	"sort"
)

// feedBuf collects the Result of one Feed call: one verdict per seq (the
// latest), the latest copy of each touched alarm and phase.
type feedBuf struct {
	lines   []LineVerdict // verdicts of this call's lines, ascending
	revised []LineVerdict // revisions of lines from earlier calls
	revIdx  map[int64]int
	touched []*event
	tIdx    map[*event]struct{}
	phases  []Phase
	// cfg holds the configuration dumps of this call's lines, in order.
	cfg     configDumps
	ready   *Marker
	unready *Marker // the readiness this call took back
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

func (fb *feedBuf) result() Result {
	r := Result{Lines: fb.lines, Phases: fb.phases}
	r.Config = fb.cfg.build()
	if fb.ready != nil {
		m := *fb.ready
		r.Ready = &m
	}
	if fb.unready != nil {
		m := *fb.unready
		r.Unready = &m
	}
	if len(fb.revised) > 0 {
		all := append(fb.revised, fb.lines...)
		slices.SortStableFunc(all, func(a, b LineVerdict) int {
			switch {
			case a.Seq < b.Seq:
				return -1
			case a.Seq > b.Seq:
				return 1
			}
			return 0
		})
		r.Lines = all
	}
	for _, ev := range fb.touched {
		r.Alarms = append(r.Alarms, ev.A)
	}
	slices.SortFunc(r.Alarms, func(a, b Alarm) int { return a.ID - b.ID })
	return r
}
