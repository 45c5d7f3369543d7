package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
)

// LaunchesPerPartition is how many consecutive launch ids share one
// partition of the lines table. Launch ids grow with time, so dropping the
// oldest partition is how retention removes old lines without DELETE.
const LaunchesPerPartition = 4096

// partitionCache remembers which line partitions this process has seen, so
// that creating them costs one query per partition per process.
type partitionCache struct {
	mu    sync.Mutex
	known map[int64]bool
}

func (c *partitionCache) has(block int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.known[block]
}

func (c *partitionCache) add(block int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known == nil {
		c.known = map[int64]bool{}
	}
	c.known[block] = true
}

// ensureLinePartition creates the partition of the lines table that holds
// launchID, unless it exists. It runs in its own short transaction under an
// advisory lock because DDL on the partitioned parent must not race with
// another process creating the same partition.
func (s *Store) ensureLinePartition(ctx context.Context, launchID int64) error {
	block := (launchID - 1) / LaunchesPerPartition
	if s.partitions.has(block) {
		return nil
	}
	from, to := block*LaunchesPerPartition+1, (block+1)*LaunchesPerPartition+1
	name := fmt.Sprintf("lines_p%06d", block)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('launchwatch.lines_partition'))`); err != nil {
			return err
		}
		// line_keys (the duplicate keys of seqless lines) and line_blocks
		// (compacted lines) are partitioned with lines, block for block.
		for _, table := range []string{"lines", "line_keys", "line_blocks"} {
			part := fmt.Sprintf("%s_p%06d", table, block)
			var exists bool
			if err := tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, part).Scan(&exists); err != nil {
				return err
			}
			if exists {
				continue
			}
			// The names and bounds are computed from integers above, never
			// from input. line_blocks' partitions keep the default
			// toast_tuple_target (migration 00041).
			if _, err := tx.Exec(ctx, fmt.Sprintf(`CREATE TABLE %s PARTITION OF %s FOR VALUES FROM (%d) TO (%d)`, part, table, from, to)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: create line partition %s: %w", name, err)
	}
	s.partitions.add(block)
	return nil
}

// VacuumLinePartition vacuums (and analyzes) the partitions of lines and
// line blocks of block, a block of LaunchesPerPartition launch ids: after
// compaction moved many rows out, so that index scans of the rows left do
// not step over the deleted ones until autovacuum comes.
func (s *Store) VacuumLinePartition(ctx context.Context, block int64) error {
	// The name is computed from an integer, never from input.
	if _, err := s.pool.Exec(ctx, fmt.Sprintf(`VACUUM (ANALYZE) lines_p%06d, line_blocks_p%06d`, block, block)); err != nil {
		return fmt.Errorf("store: vacuum after compaction: %w", err)
	}
	return nil
}
