package storetest

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/store"
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
	err := store.New(pool).WithTx(ctx, func(t *store.Tx) error {
		if _, err := t.LockLaunch(ctx, launchID); err != nil {
			return err
		}
		return t.DeleteLineRange(ctx, launchID, lo, hi)
	})
	if err != nil {
		return fmt.Errorf("lose lines: %w", err)
	}
	return nil
}
