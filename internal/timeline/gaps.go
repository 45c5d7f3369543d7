package timeline

import (
	"context"
	"sync"
	"time"

	"launchwatch/internal/store"
)

// GapCache keeps the gaps of launches whose lines did not change since they
// were computed: finding them reads the launch's gap summary (a few
// milliseconds), or, after a gap fill until the summary is repaired, the
// line times after it (up to half a second for a million lines), while a
// finished launch never changes. A
// launch that only grew at its end (a live one, whose page asks for its
// tail at every change) has its cached gaps extended from its new lines
// alone. Gaps are times on the launch clock: an entry is only used for the
// clock it was computed on (the same clock offset, and the same time of
// the first line, which a clock correction or the retiming of lines
// without a time of their own moves), or lines stored under another clock
// would be measured against gaps of the old one. It is per process; the
// web tier stays stateless because a miss only costs the query.
type GapCache struct {
	mu      sync.Mutex
	entries map[int64]gapEntry
}

type gapEntry struct {
	clock              gapClock
	lastSeq, lineCount int64
	min                time.Duration // the threshold the gaps were found with
	gaps               []store.Gap
}

const (
	// gapCacheSize bounds the cache; beyond it an arbitrary entry is dropped.
	gapCacheSize = 1000
	// gapLimit is how many gaps the timeline marks.
	gapLimit = 50
	// gapAppendMax is how many appended lines are read to extend cached
	// gaps; more are counted again from all lines.
	gapAppendMax = 5000
)

// gapClock is the launch clock gaps were measured on.
type gapClock struct {
	offset time.Duration // the launch's clock offset
	first  int64         // its first line's time on that clock, unix ns
}

// NewGapCache returns an empty cache, for one process.
func NewGapCache() *GapCache { return &GapCache{entries: map[int64]gapEntry{}} }

// get returns the gaps of launch l longer than min, from the cache when the
// launch's lines are unchanged or only appended to, on the same clock: its
// offset read now and first, its first line's time.
func (gc *GapCache) get(ctx context.Context, st *store.Store, l *store.Launch, first time.Time, min time.Duration) ([]store.Gap, error) {
	c, err := st.Clock(ctx, l.ID)
	if err != nil {
		return nil, err
	}
	clock := gapClock{offset: c.Offset, first: first.UnixNano()}
	gc.mu.Lock()
	e, ok := gc.entries[l.ID]
	gc.mu.Unlock()
	if ok && e.clock != clock {
		e, ok = gapEntry{}, false
	}
	if ok && e.lastSeq == l.LastSeq && e.lineCount == l.LineCount {
		return e.gaps, nil
	}
	gaps, ok, err := e.extend(ctx, st, l, min)
	if err != nil {
		return nil, err
	}
	if !ok {
		if gaps, err = st.Gaps(ctx, l.ID, min, gapLimit); err != nil {
			return nil, err
		}
	}
	gc.mu.Lock()
	defer gc.mu.Unlock()
	if len(gc.entries) >= gapCacheSize {
		for id := range gc.entries {
			delete(gc.entries, id)
			break
		}
	}
	gc.entries[l.ID] = gapEntry{clock: clock, lastSeq: l.LastSeq, lineCount: l.LineCount, min: min, gaps: gaps}
	return gaps, nil
}

// extend finds the gaps of l from the cached ones and the lines after them,
// when every line added since lies after them (no gap in the log was
// filled) and there are not too many. ok is false when it cannot.
func (e gapEntry) extend(ctx context.Context, st *store.Store, l *store.Launch, min time.Duration) ([]store.Gap, bool, error) {
	added := l.LineCount - e.lineCount
	// A threshold only grows with the launch's span: the cached gaps hold
	// every gap longer than the new one, unless the limit cut them short.
	if e.lineCount == 0 || added <= 0 || added > gapAppendMax || l.LastSeq <= e.lastSeq || min < e.min ||
		len(e.gaps) >= gapLimit {
		return nil, false, nil
	}
	lines, err := st.LinesBetween(ctx, l.ID, e.lastSeq, l.LastSeq, int(added)+2)
	if err != nil {
		return nil, false, err
	}
	if int64(len(lines)) != added+1 || lines[0].Seq != e.lastSeq {
		return nil, false, nil // lines arrived out of order, or since l was read
	}
	var gaps []store.Gap
	for _, g := range e.gaps {
		if g.To.Sub(g.From) > min {
			gaps = append(gaps, g)
		}
	}
	for i := 1; i < len(lines) && len(gaps) < gapLimit; i++ {
		if prev, ln := lines[i-1], lines[i]; ln.TS.Sub(prev.TS) > min {
			gaps = append(gaps, store.Gap{From: prev.TS, To: ln.TS, AfterSeq: prev.Seq, ToSeq: ln.Seq})
		}
	}
	return gaps, true, nil
}
