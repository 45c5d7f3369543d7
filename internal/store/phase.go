package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/classify"
)

// Phase is a stored startup phase of a launch.
type Phase struct {
	Name     string
	BeginSeq int64
	Begin    time.Time
	EndSeq   *int64     // nil while the phase runs
	End      *time.Time // nil while the phase runs
	Done     int
	Total    int
}

// UpsertPhases stores phases the classifier began, advanced or ended. A
// later report of the same phase (same name and first line) replaces the
// earlier one, except for its begin time: that was stored on the launch
// clock and moved with it (ShiftClock), while the classifier's saved state
// may hold the time the clock showed when the phase began.
func (t *Tx) UpsertPhases(ctx context.Context, launchID int64, phases []classify.Phase) error {
	if len(phases) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	for _, p := range phases {
		var endSeq *int64
		var end *time.Time
		if p.EndSeq != 0 {
			endSeq, end = &p.EndSeq, &p.End
		}
		batch.Queue(`
			INSERT INTO launch_phases (launch_id, begin_seq, name, begin_at, end_seq, end_at, done, total)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (launch_id, begin_seq, name) DO UPDATE SET
				end_seq = EXCLUDED.end_seq, end_at = EXCLUDED.end_at,
				done = EXCLUDED.done, total = EXCLUDED.total`,
			launchID, p.BeginSeq, p.Name, p.Begin, endSeq, end, p.Done, p.Total)
	}
	if err := t.tx.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("store: upsert phases: %w", err)
	}
	return nil
}

// DeletePhases removes every phase of a launch, before a rebuilt
// classification stores the phases it found again.
func (t *Tx) DeletePhases(ctx context.Context, launchID int64) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM launch_phases WHERE launch_id = $1`, launchID); err != nil {
		return fmt.Errorf("store: delete phases: %w", err)
	}
	return nil
}

// Phases returns the phases of a launch in the order they began.
func (s *Store) Phases(ctx context.Context, launchID int64) ([]Phase, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT name, begin_seq, begin_at, end_seq, end_at, done, total
		FROM launch_phases WHERE launch_id = $1 ORDER BY begin_seq, name`, launchID)
	if err != nil {
		return nil, fmt.Errorf("store: phases: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Phase, error) {
		var p Phase
		err := row.Scan(&p.Name, &p.BeginSeq, &p.Begin, &p.EndSeq, &p.End, &p.Done, &p.Total)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: phases: %w", err)
	}
	return out, nil
}
