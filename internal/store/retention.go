package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// RetentionResult is what one retention pass removed.
type RetentionResult struct {
	Launches   int      // launches deleted
	Lines      int64    // their lines
	Partitions []string // line partitions dropped whole
	Skipped    int      // partitions left for the next pass: their lock was not free in time
}

// retentionLockTimeout bounds how long a pass waits for the lock that
// dropping a partition takes on the lines table. Ingest and pages queue
// behind a DDL lock that is waited for, so the pass gives up quickly and
// tries again at its next run rather than stall them.
const retentionLockTimeout = "2s"

// retentionBatch is how many launches one DELETE removes outside whole
// partitions: short transactions, short row locks.
const retentionBatch = 50

// expiredLaunch is true for a launch retention may remove: nothing arrived
// for it since the cutoff ($1), by its lines' own time or by when they were
// received (updated_at moves with every batch), so a backfilled old log
// stays for the retention period after it was imported; it is not pinned;
// and no incident that is not resolved covers it.
const expiredLaunch = `
	GREATEST(l.created_at, l.updated_at, l.last_line_at, l.last_heartbeat_at) < $1
	AND NOT l.pinned
	AND NOT EXISTS (SELECT 1 FROM incident_launches il JOIN incidents i ON i.id = il.incident_id
		WHERE il.launch_id = l.id AND i.status <> 'resolved')`

// expireAndAudit deletes the launches the CTE "gone" names and records
// each in the audit log, attributed to retention, in one statement.
const expireAndAudit = `
	INSERT INTO audit_events (actor, action, subject, detail)
	SELECT 'retention', 'launch.expire', 'launch:' || key,
		jsonb_build_object('launch', key, 'id', id, 'server', server, 'lines', line_count, 'cutoff', $1::timestamptz)
	FROM gone
	RETURNING (detail->>'lines')::bigint`

// ApplyRetention removes every launch that expired before cutoff (see
// expiredLaunch). Where every launch of a block of the lines table
// (LaunchesPerPartition launch ids) has expired, the block's partitions of
// lines and line_keys are dropped whole, as the schema was designed for:
// no row of them is deleted one by one. Expired launches in blocks that
// keep a pinned or incident launch, or that still receive new launches,
// are deleted row by row, a few at a time.
func (s *Store) ApplyRetention(ctx context.Context, cutoff time.Time) (RetentionResult, error) {
	var res RetentionResult
	blocks, err := s.usedUpBlocks(ctx)
	if err != nil {
		return res, err
	}
	for _, b := range blocks {
		dropped, err := s.dropExpiredBlock(ctx, b, cutoff, &res)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available
			res.Skipped++
			continue
		}
		if err != nil {
			return res, err
		}
		if dropped {
			res.Partitions = append(res.Partitions, fmt.Sprintf("lines_p%06d", b))
		}
	}
	for {
		n, lines, err := s.expireSome(ctx, cutoff)
		if err != nil {
			return res, err
		}
		res.Launches += n
		res.Lines += lines
		if n < retentionBatch {
			return res, nil
		}
	}
}

// dropExpiredBlock drops the line partitions of block b and deletes its
// launches, in one transaction, if every launch of the block has expired.
// The launches are locked first, so no batch can add a line to one of them
// meanwhile (ingest locks its launch's row too).
func (s *Store) dropExpiredBlock(ctx context.Context, b int64, cutoff time.Time, res *RetentionResult) (bool, error) {
	lo, hi := b*LaunchesPerPartition+1, (b+1)*LaunchesPerPartition+1
	dropped := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '`+retentionLockTimeout+`'`); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT (`+expiredLaunch+`) FROM launches l WHERE l.id >= $2 AND l.id < $3 FOR UPDATE OF l`, cutoff, lo, hi)
		if err != nil {
			return err
		}
		expired, err := pgx.CollectRows(rows, pgx.RowTo[bool])
		if err != nil {
			return err
		}
		if slices.Contains(expired, false) {
			return nil // a launch of the block stays: its lines are deleted with the others' launches below
		}
		for _, table := range []string{"lines", "line_keys", "line_blocks"} {
			// The name is computed from an integer, never from input.
			if _, err := tx.Exec(ctx, fmt.Sprintf(`DROP TABLE IF EXISTS %s_p%06d`, table, b)); err != nil {
				return err
			}
		}
		dropped = true
		rows, err = tx.Query(ctx, `WITH gone AS (DELETE FROM launches WHERE id >= $2 AND id < $3 RETURNING id, key, server, line_count)`+
			expireAndAudit, cutoff, lo, hi)
		if err != nil {
			return err
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		res.Launches += len(lines)
		for _, n := range lines {
			res.Lines += n
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: retention: drop line partition %d: %w", b, err)
	}
	return dropped, nil
}

// expireSome deletes up to retentionBatch expired launches, their rows
// with them, and returns how many and how many lines they held.
func (s *Store) expireSome(ctx context.Context, cutoff time.Time) (int, int64, error) {
	rows, err := s.read(ctx).Query(ctx, `WITH gone AS (
			DELETE FROM launches WHERE id IN (
				SELECT l.id FROM launches l WHERE `+expiredLaunch+`
				ORDER BY l.id LIMIT `+strconv.Itoa(retentionBatch)+` FOR UPDATE SKIP LOCKED)
			RETURNING id, key, server, line_count)`+expireAndAudit, cutoff)
	if err != nil {
		return 0, 0, fmt.Errorf("store: retention: %w", err)
	}
	lines, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return 0, 0, fmt.Errorf("store: retention: %w", err)
	}
	var sum int64
	for _, n := range lines {
		sum += n
	}
	return len(lines), sum, nil
}

// linePartitionName is a partition of lines made by ensureLinePartition.
var linePartitionName = regexp.MustCompile(`^lines_p(\d{6,})$`)

// linePartitionBlocks returns the blocks that have a partition of lines,
// in order.
// usedUpBlocks returns the blocks of launch ids with line partitions, in
// order, that no new launch will get an id in: the ones retention may drop
// and compaction may rewrite.
func (s *Store) usedUpBlocks(ctx context.Context) ([]int64, error) {
	blocks, err := s.linePartitionBlocks(ctx)
	if err != nil {
		return nil, err
	}
	var lastID int64
	err = s.read(ctx).QueryRow(ctx, `SELECT COALESCE(pg_sequence_last_value(pg_get_serial_sequence('launches', 'id')::regclass), 0)`).Scan(&lastID)
	if err != nil {
		return nil, fmt.Errorf("store: line partitions: %w", err)
	}
	for i, b := range blocks {
		if (b+1)*LaunchesPerPartition > lastID {
			return blocks[:i], nil // new launches may still get ids in this block (and every later one)
		}
	}
	return blocks, nil
}

func (s *Store) linePartitionBlocks(ctx context.Context) ([]int64, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'lines'::regclass`)
	if err != nil {
		return nil, fmt.Errorf("store: line partitions: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("store: line partitions: %w", err)
	}
	var blocks []int64
	for _, n := range names {
		if m := linePartitionName.FindStringSubmatch(n); m != nil {
			b, _ := strconv.ParseInt(m[1], 10, 64)
			blocks = append(blocks, b)
		}
	}
	slices.Sort(blocks)
	return blocks, nil
}
