package decode

import (
	"cmp"
	"slices"
	"time"
)

// orderSeqless puts the seqless lines of one launch of a request (a Loki
// push, an OTLP export) in the order they are numbered in: by time, so two
// bursts a client sent out of order, or two streams of one launch
// (stdout and stderr), are stored in time order; lines of one time by
// stream, in order of first appearance, then in request order. A line
// without a time sorts at the time of the line before it in its stream,
// so it stays beside its neighbours.
func orderSeqless(lines []Line) {
	if len(lines) < 2 {
		return
	}
	type place struct {
		at  time.Time
		pos int
	}
	keys := make([]place, len(lines))
	last := map[int]time.Time{}
	sorted := true
	for i, l := range lines {
		at := l.TS
		if at.IsZero() {
			at = last[l.group]
		}
		last[l.group] = at
		keys[i] = place{at: at, pos: i}
		if i > 0 && (at.Before(keys[i-1].at) || at.Equal(keys[i-1].at) && l.group < lines[i-1].group) {
			sorted = false
		}
	}
	if sorted { // the usual case: one stream, in time order
		return
	}
	idx := make([]int, len(lines))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := keys[a].at.Compare(keys[b].at); c != 0 {
			return c
		}
		if c := cmp.Compare(lines[a].group, lines[b].group); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	out := make([]Line, len(lines))
	for i, j := range idx {
		out[i] = lines[j]
	}
	copy(lines, out)
}
