package classify

import (
	"slices"
	"strings"
	"time"
)

// phaseLog is a launch's startup phases in the order they began, at most
// maxPhaseInsts (the oldest go first).
type phaseLog []Phase

// apply applies one phase signature to the launch's phases. Phases of
// several ranks overlap: a begin while the phase runs is ignored and an end
// after it ended moves its end to the last rank's line.
func (ps *phaseLog) apply(fb *feedBuf, g *Signature, body string, seq int64, at time.Time) {
	cur := ps.latest(g.Phase)
	switch g.Action {
	case "begin":
		if cur != nil && cur.EndSeq == 0 {
			return
		}
		ps.add(fb, Phase{Name: g.Phase, BeginSeq: seq, Begin: at})
	case "end":
		switch {
		case cur == nil:
			ps.add(fb, Phase{Name: g.Phase, BeginSeq: seq, Begin: at, EndSeq: seq, End: at})
		default:
			cur.EndSeq, cur.End = seq, at
			if cur.Total > 0 && cur.Done < cur.Total {
				cur.Done = cur.Total
			}
			fb.phase(*cur)
		}
	case "progress":
		done, total, ok := progressOf(body)
		if cur == nil || cur.EndSeq != 0 {
			if !ok || done >= total && cur != nil {
				return
			}
			ps.add(fb, Phase{Name: g.Phase, BeginSeq: seq, Begin: at})
			cur = ps.latest(g.Phase)
		}
		if ok && (done != cur.Done || total != cur.Total) {
			cur.Done, cur.Total = done, total
			fb.phase(*cur)
		}
	}
}

// progressOf reads the last "12/64 [" counter of a tqdm line.
func progressOf(body string) (done, total int, ok bool) {
	for end := len(body); end > 0; {
		i := strings.LastIndex(body[:end], " [")
		if i < 0 {
			return 0, 0, false
		}
		end = i
		// digits "/" digits right before " ["
		j := i
		for j > 0 && isDigit(body[j-1]) {
			j--
		}
		if j == i || j == 0 || body[j-1] != '/' {
			continue
		}
		k := j - 1
		for k > 0 && isDigit(body[k-1]) {
			k--
		}
		if k == j-1 {
			continue
		}
		done, total = atoiSafe(body[k:j-1]), atoiSafe(body[j:i])
		if total > 0 && done <= total {
			return done, total, true
		}
	}
	return 0, 0, false
}

func atoiSafe(s string) int {
	n := 0
	for i := 0; i < len(s) && i < 9; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// latest is the phase named name that began last, nil if none.
func (ps phaseLog) latest(name string) *Phase {
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i].Name == name {
			return &ps[i]
		}
	}
	return nil
}

func (ps *phaseLog) add(fb *feedBuf, ph Phase) {
	if len(*ps) >= maxPhaseInsts {
		*ps = slices.Delete(*ps, 0, 1)
	}
	*ps = append(*ps, ph)
	fb.phase(ph)
}

// endAll ends every running phase (readiness ends startup).
func (ps phaseLog) endAll(fb *feedBuf, seq int64, at time.Time) {
	for i := range ps {
		if ph := &ps[i]; ph.EndSeq == 0 {
			ph.EndSeq, ph.End = seq, at
			fb.phase(*ph)
		}
	}
}
