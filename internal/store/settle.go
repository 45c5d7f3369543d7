package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// DueSettle is a launch whose unsettled fatal alarms wait for their settle
// deadline, or whose pending verdict waits for its stream's end.
type DueSettle struct {
	ID  int64
	Key string
	At  time.Time
}

// NextSettles returns up to limit launches with a settle deadline, or with
// a pending verdict (pending_runs) and no deadline, whose stream ends
// streamEnd after they were last heard from (a line or a heartbeat),
// earliest first. The settler settles those due and sleeps until the next
// one.
func (s *Store) NextSettles(ctx context.Context, limit int, streamEnd time.Duration) ([]DueSettle, error) {
	rows, err := s.read(ctx).Query(ctx, `
		SELECT id, key, at FROM (
			(SELECT id, key, settle_at AS at FROM launches WHERE settle_at IS NOT NULL ORDER BY settle_at, id LIMIT $1)
			UNION ALL
			(SELECT id, key, GREATEST(last_line_at, last_heartbeat_at) + $2::interval AS at FROM launches
			 WHERE pending_runs AND settle_at IS NULL AND GREATEST(last_line_at, last_heartbeat_at) IS NOT NULL
			 ORDER BY GREATEST(last_line_at, last_heartbeat_at), id LIMIT $1)
		) due ORDER BY at, id LIMIT $1`, limit, streamEnd)
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
