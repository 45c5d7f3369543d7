package upkeep

import (
	"context"
	"time"

	"launchwatch/internal/store"
)

// RepairGaps brings the gap summary of every launch quiet since
// quietSince whose summary does not hold all its lines (a gap fill or a
// loss cut it back, or the launch predates it) up to its last line, so
// its page reads no line to find its gaps. A launch busy with a batch
// waits for the next pass. It returns how many it repaired.
func RepairGaps(ctx context.Context, st *store.Store, quietSince time.Time) (int, error) {
	seen := []int64{} // not nil: NULL would match no launch
	repaired := 0
	for {
		ids, err := st.GapRepairCandidates(ctx, quietSince, 32, seen)
		if err != nil || len(ids) == 0 {
			return repaired, err
		}
		for _, id := range ids {
			seen = append(seen, id)
			busy, err := st.RepairGaps(ctx, id)
			if err != nil {
				return repaired, err
			}
			if !busy {
				repaired++
			}
		}
	}
}
