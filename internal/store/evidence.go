package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Evidence is what a launch's process proved beside its log: when a health
// probe first passed, and whether its operator asked it to stop.
type Evidence struct {
	ProbeOK       *time.Time // the first passing health probe, nil if none
	ExitRequested bool
}

// Evidence returns the evidence of a launch.
func (s *Store) Evidence(ctx context.Context, launchID int64) (Evidence, error) {
	var e Evidence
	err := s.pool.QueryRow(ctx, `
		SELECT (SELECT min(at) FROM launch_events WHERE launch_id = $1 AND kind = 'health_ok'), exit_requested
		FROM launches WHERE id = $1`, launchID).Scan(&e.ProbeOK, &e.ExitRequested)
	if errors.Is(err, pgx.ErrNoRows) {
		return e, ErrNotFound
	}
	if err != nil {
		return e, fmt.Errorf("store: evidence: %w", err)
	}
	return e, nil
}

var linesReceivedBeforeSQL = lineRead{launch: "$1", cols: lineColumnList, conds: []string{"received_at <= $2"}, back: true,
	order: true, limit: "$3"}.sql()

// LinesReceivedBefore returns the last lines (at most limit) received at or
// before at, the latest first.
func (s *Store) LinesReceivedBefore(ctx context.Context, launchID int64, at time.Time, limit int) ([]Line, error) {
	rows, err := s.pool.Query(ctx, linesReceivedBeforeSQL, launchID, at, limit)
	if err != nil {
		return nil, fmt.Errorf("store: lines before: %w", err)
	}
	return collectLines(ctx, s.pool, launchID, rows)
}
