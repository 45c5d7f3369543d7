package store

import (
	"context"
	"fmt"
	"time"
)

// Compaction defaults: a launch with no line for CompactQuietAfter is
// compacted to its end; a live one up to CompactTail seqs before its last
// line (its tail is still revised by the classifier and read by live
// followers). The worker that runs it is upkeep.RunCompaction.
const (
	CompactQuietAfter = time.Minute
	CompactTail       = 16384
)

// CompactOnce compacts the lines of every launch CompactCandidates finds
// (quiet since quietSince, or tail seqs behind), a batch of launches at a
// time, until none is left or ctx ends. It returns how many lines it
// moved.
func (s *Store) CompactOnce(ctx context.Context, quietSince time.Time, tail int64) (int64, error) {
	var moved int64
	seen := []int64{} // (not nil: NULL would match no launch) each launch once a pass: a busy one, or one whose tail moved on, waits for the next
	byPartition := map[int64]int64{}
	for {
		cands, err := s.CompactCandidates(ctx, quietSince, tail, 32, seen)
		if err != nil {
			return moved, err
		}
		if len(cands) == 0 {
			return moved, s.vacuumMoved(ctx, byPartition)
		}
		for _, c := range cands {
			seen = append(seen, c.LaunchID)
			for more := true; more; {
				var n int64
				if n, more, _, err = s.CompactLines(ctx, c.LaunchID, c.Through); err != nil {
					return moved, err
				}
				moved += n
				byPartition[(c.LaunchID-1)/LaunchesPerPartition] += n
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
func (s *Store) vacuumMoved(ctx context.Context, moved map[int64]int64) error {
	for b, n := range moved {
		if n < vacuumAfter {
			continue
		}
		// The name is computed from an integer, never from input.
		if _, err := s.pool.Exec(ctx, fmt.Sprintf(`VACUUM (ANALYZE) lines_p%06d, line_blocks_p%06d`, b, b)); err != nil {
			return fmt.Errorf("store: vacuum after compaction: %w", err)
		}
	}
	return nil
}
