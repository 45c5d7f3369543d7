package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// AlarmCount is how many alarms have a kind and a review state.
type AlarmCount struct {
	Kind  string
	State string
	Count int64
}

// AlarmCounts counts the alarms that show (withdrawn ones do not), by kind
// and state, for /metrics.
func (s *Store) AlarmCounts(ctx context.Context) ([]AlarmCount, error) {
	rows, err := s.read(ctx).Query(ctx, `
		SELECT kind, state, count(*) FROM alarms WHERE NOT withdrawn GROUP BY kind, state ORDER BY kind, state`)
	if err != nil {
		return nil, fmt.Errorf("store: alarm counts: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[AlarmCount])
	if err != nil {
		return nil, fmt.Errorf("store: alarm counts: %w", err)
	}
	return out, nil
}

// RuleHit is how many alarms a suppression rule has hidden.
type RuleHit struct {
	ID   int64
	Hits int64
}

// RuleHits returns the hit count of every rule, for /metrics.
func (s *Store) RuleHits(ctx context.Context) ([]RuleHit, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT id, hits FROM rules ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: rule hits: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowToStructByPos[RuleHit])
	if err != nil {
		return nil, fmt.Errorf("store: rule hits: %w", err)
	}
	return out, nil
}
