package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// DueSettle is a launch whose unsettled fatal alarms wait for their settle
// deadline.
type DueSettle struct {
	ID  int64
	Key string
	At  time.Time
}

// NextSettles returns up to limit launches with a settle deadline, earliest
// first. The settler settles those due and sleeps until the next one.
func (s *Store) NextSettles(ctx context.Context, limit int) ([]DueSettle, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id, key, settle_at FROM launches WHERE settle_at IS NOT NULL ORDER BY settle_at, id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: next settles: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (DueSettle, error) {
		var d DueSettle
		return d, row.Scan(&d.ID, &d.Key, &d.At)
	})
	if err != nil {
		return nil, fmt.Errorf("store: next settles: %w", err)
	}
	return out, nil
}
