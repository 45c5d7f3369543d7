package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
)

// packSlack is how much larger than its rows a retired partition of lines
// may be before it is rewritten: the rows a block of launches keeps after
// compaction (errors, alarms, readiness) take far less.
const packSlack = 4 << 20

// packLockTimeout bounds the stall a rewrite waiting for its lock causes.
const packLockTimeout = "100ms"

// PackRetiredPartitions gives back the space compaction freed in the
// partitions of lines that no launch will write to again. In the partition
// new launches go to, the space the moved rows took is reused by the next
// lines; a partition whose block of launch ids is used up only gets the
// odd late line, so once every launch of it is compacted, its table and
// indexes are rewritten (VACUUM FULL), which takes its rows alone: few.
// It waits at most packLockTimeout for the partition's lock and otherwise
// tries again on the next pass: while it waits, every statement that
// would lock the partition queues behind it (a generic plan of a query
// of lines locks every partition), so the wait must be short. It returns the partitions it
// rewrote.
func (s *Store) PackRetiredPartitions(ctx context.Context) ([]string, error) {
	blocks, err := s.usedUpBlocks(ctx)
	if err != nil {
		return nil, err
	}
	var packed []string
	for _, b := range blocks {
		// The names are computed from an integer, never from input.
		part := fmt.Sprintf("lines_p%06d", b)
		var size int64
		if err := s.read(ctx).QueryRow(ctx, `SELECT pg_total_relation_size($1::regclass)`, part).Scan(&size); err != nil {
			return packed, fmt.Errorf("store: pack partitions: %w", err)
		}
		if size < packSlack {
			continue // packed already, or small anyway
		}
		var pending bool
		err := s.read(ctx).QueryRow(ctx, `
			SELECT EXISTS (SELECT 1 FROM launches WHERE id >= $1 AND id < $2 AND (thawed OR last_seq > 0 AND last_seq >= compacted_through))`,
			b*LaunchesPerPartition+1, (b+1)*LaunchesPerPartition+1).Scan(&pending)
		if err != nil {
			return packed, fmt.Errorf("store: pack partitions: %w", err)
		}
		if pending {
			continue
		}
		// What its rows take, from the statistics (rows of about 300
		// bytes with their index entries, counted generously) so that a
		// pass does not read every retired partition; counted when the
		// partition was never analyzed.
		var used int64
		err = s.read(ctx).QueryRow(ctx, `
			SELECT COALESCE((SELECT (reltuples * 400)::bigint FROM pg_class WHERE oid = $1::regclass AND reltuples >= 0),
				(SELECT COALESCE(sum(pg_column_size(l.*)), 0) FROM `+part+` l))`, part).Scan(&used)
		if err != nil {
			return packed, fmt.Errorf("store: pack partitions: %w", err)
		}
		if size < 2*used+packSlack {
			continue
		}
		conn, err := s.pool.Acquire(ctx)
		if err != nil {
			return packed, fmt.Errorf("store: pack partitions: %w", err)
		}
		_, err = conn.Exec(ctx, `SET lock_timeout = '`+packLockTimeout+`'`)
		if err == nil {
			_, err = conn.Exec(ctx, `VACUUM (FULL) `+part)
		}
		if _, resetErr := conn.Exec(context.WithoutCancel(ctx), `RESET lock_timeout`); resetErr != nil {
			conn.Conn().Close(context.WithoutCancel(ctx)) // leave no changed setting in the pool
		}
		conn.Release()
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available: next pass
			continue
		}
		if err != nil {
			return packed, fmt.Errorf("store: pack partition %s: %w", part, err)
		}
		packed = append(packed, part)
	}
	return packed, nil
}
