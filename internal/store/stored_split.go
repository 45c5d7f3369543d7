package store

import (
	"context"
	"sort"

	"github.com/jackc/pgx/v5"
)

// upsertOrCopy writes n rows of a launch, sorted by their key (key(i)), to
// table. The rows up to the highest key the launch holds in column keyCol
// may be stored already: upsert(stored) writes rows [0, stored). The rows
// after them are new and are COPYed, row(i) into cols, which costs the
// database about half as much (no arrays to unpack, no conflict to look
// for). table, keyCol and cols are names written in this package, never
// input.
func (t *Tx) upsertOrCopy(ctx context.Context, table, keyCol string, cols []string, launchID int64, n int,
	key func(i int) int64, upsert func(stored int) error, row func(i int) []any) error {
	var top *int64 // nil: the launch holds none
	if err := t.tx.QueryRow(ctx, `SELECT max(`+keyCol+`) FROM `+table+` WHERE launch_id = $1`, launchID).Scan(&top); err != nil {
		return err
	}
	stored := 0
	if top != nil {
		stored = sort.Search(n, func(i int) bool { return key(i) > *top })
	}
	if stored > 0 {
		if err := upsert(stored); err != nil {
			return err
		}
	}
	if stored == n {
		return nil
	}
	_, err := t.tx.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromSlice(n-stored, func(i int) ([]any, error) {
		return row(stored + i), nil
	}))
	return err
}
