package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// LaunchAlarms returns the alarms of a launch that are not withdrawn, in
// order, with their review state, in the transaction (a reclassification
// that locked the launch).
func (t *Tx) LaunchAlarms(ctx context.Context, launchID int64) ([]Alarm, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+alarmColumns+` FROM alarms a WHERE a.launch_id = $1 AND NOT a.withdrawn
		ORDER BY a.alarm_no`, launchID)
	if err != nil {
		return nil, fmt.Errorf("store: launch alarms: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Alarm, error) { return scanAlarm(row) })
	if err != nil {
		return nil, fmt.Errorf("store: launch alarms: %w", err)
	}
	return out, nil
}

// Decision is a person's decision on an alarm, carried to the alarm a
// reclassification numbered no.
type Decision struct {
	No        int
	State     string // confirmed or dismissed
	DecidedBy string
	DecidedAt *time.Time
	Reason    *string
}

// CarryDecision gives alarm d.No of the launch the decision a person made
// on the same event before it was reclassified, with its time and reason.
func (t *Tx) CarryDecision(ctx context.Context, launchID int64, d Decision) error {
	_, err := t.tx.Exec(ctx, `
		UPDATE alarms SET state = $3, decided_by = $4, decided_at = $5, reason = $6, rule_id = NULL, updated_at = now()
		WHERE launch_id = $1 AND alarm_no = $2`, launchID, d.No, d.State, d.DecidedBy, d.DecidedAt, d.Reason)
	if err != nil {
		return fmt.Errorf("store: carry decision: %w", err)
	}
	return nil
}

// ClearLogReadiness takes back the readiness the launch's log gave it (a
// reclassification found no ready line): ready_seq is cleared and ready_at
// becomes the first passing health probe's time, nil if none. It returns
// the new ready_at.
func (t *Tx) ClearLogReadiness(ctx context.Context, launchID int64) (*time.Time, error) {
	var at *time.Time
	err := t.tx.QueryRow(ctx, `
		UPDATE launches SET ready_seq = NULL,
			ready_at = (SELECT min(e.at) FROM launch_events e WHERE e.launch_id = $1 AND e.kind = 'health_ok'),
			ready_source = CASE WHEN EXISTS (SELECT 1 FROM launch_events e WHERE e.launch_id = $1 AND e.kind = 'health_ok')
				THEN 'health' ELSE '' END
		WHERE id = $1 RETURNING ready_at`, launchID).Scan(&at)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: clear readiness: %w", err)
	}
	return at, nil
}

// MarkReclassified records when the launch was reclassified on request.
func (t *Tx) MarkReclassified(ctx context.Context, launchID int64, at time.Time) error {
	if _, err := t.tx.Exec(ctx, `UPDATE launches SET reclassified_at = $2 WHERE id = $1`, launchID, at); err != nil {
		return fmt.Errorf("store: mark reclassified: %w", err)
	}
	return nil
}

// FirstHealthOK is the time of the launch's first passing health probe,
// nil if none passed.
func (t *Tx) FirstHealthOK(ctx context.Context, launchID int64) (*time.Time, error) {
	var at *time.Time
	if err := t.tx.QueryRow(ctx, `SELECT min(at) FROM launch_events WHERE launch_id = $1 AND kind = 'health_ok'`,
		launchID).Scan(&at); err != nil {
		return nil, fmt.Errorf("store: first health probe: %w", err)
	}
	return at, nil
}

// LaunchRef names a launch.
type LaunchRef struct {
	ID        int64
	Key       string
	Server    string
	Labels    map[string]string
	CreatedAt time.Time
}

// RecentLaunches returns the newest launches (at most limit) in a scope:
// all launches, those of a server kind, or those with a label name=value,
// and created at or after since (zero: any), of server when it is given.
func (s *Store) RecentLaunches(ctx context.Context, scope, value, server string, since time.Time, limit int) ([]LaunchRef, error) {
	sig := Signature{Scope: scope, ScopeValue: value}
	rows, err := s.pool.Query(ctx, `
		SELECT l.id, l.key, l.server, l.labels, l.created_at
		FROM launches l, (SELECT $1::text AS scope, $2::text AS scope_value) s
		WHERE `+inSignatureScope+` AND ($3 = '' OR l.server = $3) AND l.created_at >= $4
		ORDER BY l.created_at DESC, l.id DESC LIMIT $5`, sig.Scope, sig.ScopeValue, server, since, limit)
	if err != nil {
		return nil, fmt.Errorf("store: recent launches: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (LaunchRef, error) {
		var r LaunchRef
		return r, row.Scan(&r.ID, &r.Key, &r.Server, &r.Labels, &r.CreatedAt)
	})
	if err != nil {
		return nil, fmt.Errorf("store: recent launches: %w", err)
	}
	return out, nil
}
