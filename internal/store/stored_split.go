package store

import (
	"context"
	"sort"
)

// storedUpTo returns how many of n rows of a launch, sorted by their key
// (key(i)), may be stored already in table: those up to the highest key
// the launch holds in column col. The rows after them are new, and are
// COPYed rather than upserted, which costs the database about half as
// much (no arrays to unpack, no conflict to look for). table and col are
// names written in this package, never input.
func (t *Tx) storedUpTo(ctx context.Context, table, col string, launchID int64, n int, key func(i int) int64) (int, error) {
	var top *int64 // nil: the launch holds none
	if err := t.tx.QueryRow(ctx, `SELECT max(`+col+`) FROM `+table+` WHERE launch_id = $1`, launchID).Scan(&top); err != nil {
		return 0, err
	}
	if top == nil {
		return 0, nil
	}
	return sort.Search(n, func(i int) bool { return key(i) > *top }), nil
}
