package web

import (
	"context"
	"sync"
	"time"

	"launchwatch/internal/store"
)

// gapCache keeps the gaps of launches whose lines did not change since they
// were computed: finding gaps reads every line time of a launch (about half
// a second for a million lines), while a finished launch never changes. It
// is per process; the web tier stays stateless because a miss only costs
// the query.
type gapCache struct {
	mu      sync.Mutex
	entries map[int64]gapEntry
}

type gapEntry struct {
	lastSeq, lineCount int64
	gaps               []store.Gap
}

// gapCacheSize bounds the cache; beyond it an arbitrary entry is dropped.
const gapCacheSize = 1000

func newGapCache() *gapCache { return &gapCache{entries: map[int64]gapEntry{}} }

// get returns the gaps of launch l longer than min, from the cache when the
// launch's lines are unchanged.
func (gc *gapCache) get(ctx context.Context, st *store.Store, l *store.Launch, min time.Duration) ([]store.Gap, error) {
	gc.mu.Lock()
	e, ok := gc.entries[l.ID]
	gc.mu.Unlock()
	if ok && e.lastSeq == l.LastSeq && e.lineCount == l.LineCount {
		return e.gaps, nil
	}
	gaps, err := st.Gaps(ctx, l.ID, min, 50)
	if err != nil {
		return nil, err
	}
	gc.mu.Lock()
	defer gc.mu.Unlock()
	if len(gc.entries) >= gapCacheSize {
		for id := range gc.entries {
			delete(gc.entries, id)
			break
		}
	}
	gc.entries[l.ID] = gapEntry{lastSeq: l.LastSeq, lineCount: l.LineCount, gaps: gaps}
	return gaps, nil
}
