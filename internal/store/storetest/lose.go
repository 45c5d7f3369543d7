package storetest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// LoseLines deletes the launch's stored lines with seq in [lo, hi], rows or
// elements of compacted blocks alike, as a database restored from an older
// backup would have lost them: the tests of shippers that repair such a
// loss make it with this. The blocks it cuts into become rows first (the
// launch is marked thawed, as store.Tx.ThawLines leaves it), all in one
// transaction that holds the launch's row lock, so the compaction worker
// cannot see the blocks half thawed.
// It returns an error rather than fail the test: a test's proxy calls it
// from a goroutine of its own.
func LoseLines(ctx context.Context, pool *pgxpool.Pool, launchID, lo, hi int64) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) // after Commit, a no-op
	const cols = "seq, ts, received_at, logged_at, stream, kind, level, rank, alarm_no, text"
	for _, q := range []string{
		`SELECT 1 FROM launches WHERE id = $1 FOR UPDATE`,
		`WITH gone AS (
			DELETE FROM line_blocks WHERE launch_id = $1 AND block BETWEEN $2::bigint >> 6 AND $3::bigint >> 6 RETURNING *
		), rows AS (
			INSERT INTO lines (launch_id, ` + cols + `)
			SELECT g.launch_id, u.* FROM gone g CROSS JOIN LATERAL unnest(g.seq, g.ts, g.received_at, g.logged_at, g.stream, g.kind, g.level, g.rank, g.alarm_no, g.text) AS u
		)
		UPDATE launches SET thawed = true WHERE id = $1 AND EXISTS (SELECT 1 FROM gone)`,
		`DELETE FROM lines WHERE launch_id = $1 AND seq BETWEEN $2 AND $3`,
	} {
		args := []any{launchID, lo, hi}
		if q[:6] == "SELECT" {
			args = args[:1]
		}
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("lose lines: %w", err)
		}
	}
	return tx.Commit(ctx)
}
