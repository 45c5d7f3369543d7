package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// AlarmGroup is the open alarms across launches that share a fingerprint:
// the same event, recurring.
type AlarmGroup struct {
	Fingerprint string
	Kind        string
	Template    string
	Headline    string // the newest alarm's headline
	Fatal       bool   // any of them fatal
	Alarms      int
	Launches    int
	Newest      time.Time
}

// OpenAlarmGroups returns up to limit groups of open alarms by
// fingerprint, the most recently seen first.
func (s *Store) OpenAlarmGroups(ctx context.Context, limit int) ([]AlarmGroup, error) {
	rows, err := s.read(ctx).Query(ctx, `
		SELECT fingerprint, min(kind), min(template), (array_agg(headline ORDER BY created_at DESC))[1],
			bool_or(fatal), count(*), count(DISTINCT launch_id), max(created_at)
		FROM alarms WHERE state = 'open'
		GROUP BY fingerprint ORDER BY max(created_at) DESC LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("store: open alarm groups: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AlarmGroup, error) {
		var g AlarmGroup
		err := row.Scan(&g.Fingerprint, &g.Kind, &g.Template, &g.Headline, &g.Fatal, &g.Alarms, &g.Launches, &g.Newest)
		return g, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: open alarm groups: %w", err)
	}
	return out, nil
}

// AlarmRef names one alarm of one launch.
type AlarmRef struct {
	LaunchID  int64
	LaunchKey string
	No        int
}

// OpenAlarmsWithFingerprint returns the open alarms sharing a fingerprint,
// ordered by launch so that callers lock launches in one order.
func (s *Store) OpenAlarmsWithFingerprint(ctx context.Context, fingerprint string, limit int) ([]AlarmRef, error) {
	rows, err := s.read(ctx).Query(ctx, `
		SELECT a.launch_id, l.key, a.alarm_no FROM alarms a JOIN launches l ON l.id = a.launch_id
		WHERE a.state = 'open' AND a.fingerprint = $1 ORDER BY a.launch_id, a.alarm_no LIMIT $2`, fingerprint, limit)
	if err != nil {
		return nil, fmt.Errorf("store: open alarms by fingerprint: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AlarmRef, error) {
		var r AlarmRef
		return r, row.Scan(&r.LaunchID, &r.LaunchKey, &r.No)
	})
	if err != nil {
		return nil, fmt.Errorf("store: open alarms by fingerprint: %w", err)
	}
	return out, nil
}
