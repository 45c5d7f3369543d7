package upkeep

import (
	"context"
	"time"

	"launchwatch/internal/store"
)

// CompactOnce compacts the lines of every launch store.CompactCandidates
// finds (quiet since quietSince, or tail seqs behind), a batch of
// launches at a time, until none is left or ctx ends, repairs the gap
// summaries of quiet launches (RepairGaps), and vacuums the partitions it
// moved many lines out of. It returns how many lines it
// moved. RunCompaction calls it on its schedule; tests call it to compact
// at once.
func CompactOnce(ctx context.Context, st *store.Store, quietSince time.Time, tail int64) (int64, error) {
	var moved int64
	seen := []int64{} // (not nil: NULL would match no launch) each launch once a pass: a busy one, or one whose tail moved on, waits for the next
	byPartition := map[int64]int64{}
	for {
		cands, err := st.CompactCandidates(ctx, quietSince, tail, 32, seen)
		if err != nil {
			return moved, err
		}
		if len(cands) == 0 {
			if _, err := RepairGaps(ctx, st, quietSince); err != nil {
				return moved, err
			}
			return moved, vacuumMoved(ctx, st, byPartition)
		}
		for _, c := range cands {
			seen = append(seen, c.LaunchID)
			for more := true; more; {
				var n int64
				if n, more, _, err = st.CompactLines(ctx, c.LaunchID, c.Through); err != nil {
					return moved, err
				}
				moved += n
				byPartition[(c.LaunchID-1)/store.LaunchesPerPartition] += n
			}
		}
	}
}

// vacuumAfter is how many lines a pass moves out of a partition of lines
// before it vacuums the partition itself rather than wait for autovacuum:
// until the deleted rows are vacuumed, every index scan of the launch's
// remaining rows steps over them.
const vacuumAfter = 50_000

// vacuumMoved vacuums the partitions of lines a pass moved many lines out
// of (moved, by block of launch ids).
func vacuumMoved(ctx context.Context, st *store.Store, moved map[int64]int64) error {
	for b, n := range moved {
		if n < vacuumAfter {
			continue
		}
		if err := st.VacuumLinePartition(ctx, b); err != nil {
			return err
		}
	}
	return nil
}
