package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/status"
)

// Launch event kinds reported by a process wrapper.
const (
	EventHealthOK   = "health_ok"
	EventHealthFail = "health_fail"
	EventExit       = "exit"
)

// Event is a fact about a launch's process: a health probe result or its exit.
type Event struct {
	At     time.Time
	Kind   string
	Detail string
}

// Heartbeat records that the launch's shipper is alive, so a quiet server
// is not mistaken for one we cannot see. It reports whether this is the
// first sign of life of the launch (no heartbeat and no line before): a
// launch just created by its heartbeat, which live clients must hear of.
func (t *Tx) Heartbeat(ctx context.Context, launchID int64, at time.Time) (first bool, err error) {
	err = t.tx.QueryRow(ctx, `
		UPDATE launches l SET last_heartbeat_at = GREATEST(l.last_heartbeat_at, $2)
		FROM (SELECT id, last_heartbeat_at IS NULL AND last_line_at IS NULL AS first
			FROM launches WHERE id = $1 FOR UPDATE) o
		WHERE l.id = o.id
		RETURNING o.first`, launchID, at).Scan(&first)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, ErrNotFound
	}
	if err != nil {
		return false, fmt.Errorf("store: heartbeat: %w", err)
	}
	return first, nil
}

// AddEvent records a health result or the exit in the launch's event log.
func (t *Tx) AddEvent(ctx context.Context, launchID int64, e Event) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO launch_events (launch_id, at, kind, detail) VALUES ($1, $2, $3, $4)`,
		launchID, e.At, e.Kind, e.Detail)
	if err != nil {
		return fmt.Errorf("store: add event: %w", err)
	}
	return nil
}

// MarkReadyByProbe makes the launch ready by a passing health probe, unless
// it was ready already.
func (t *Tx) MarkReadyByProbe(ctx context.Context, launchID int64, at time.Time) error {
	_, err := t.tx.Exec(ctx, `
		UPDATE launches SET ready_at = $2, ready_source = 'health'
		WHERE id = $1 AND ready_at IS NULL`, launchID, at)
	if err != nil {
		return fmt.Errorf("store: mark ready: %w", err)
	}
	return nil
}

// HealthPassed reports whether the launch's latest health result passed
// (false when it has none).
func (t *Tx) HealthPassed(ctx context.Context, launchID int64) (bool, error) {
	var kind string
	err := t.tx.QueryRow(ctx, `
		SELECT kind FROM launch_events WHERE launch_id = $1 AND kind IN ('health_ok', 'health_fail')
		ORDER BY id DESC LIMIT 1`, launchID).Scan(&kind)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: last health result: %w", err)
	}
	return kind == EventHealthOK, nil
}

// HealthAfterDeath records, on the launch's fatal alarms that say its
// engine died (settled, not withdrawn, open or confirmed), that a health
// probe passed at probed, age before this transaction, with detail
// (migrations/00023). Only alarms stored before the probe ran count: a
// result that waited in a spool says nothing about a death logged after
// it. Both times are the database's own clock, so no shipper's clock is
// trusted. It returns how many alarms it marked.
func (t *Tx) HealthAfterDeath(ctx context.Context, launchID int64, probed time.Time, age time.Duration, detail string) (int64, error) {
	tag, err := t.tx.Exec(ctx, `
		UPDATE alarms a SET health_ok_since = COALESCE(a.health_ok_since, $2), health_ok_last = GREATEST(a.health_ok_last, $2),
			health_ok_detail = $3, updated_at = now()
		WHERE a.launch_id = $1 AND a.fatal AND a.settled AND NOT a.withdrawn AND a.state IN ('open', 'confirmed')
			AND a.created_at <= now() - make_interval(secs => $4)`,
		launchID, probed, detail, age.Seconds())
	if err != nil {
		return 0, fmt.Errorf("store: health after death: %w", err)
	}
	return tag.RowsAffected(), nil
}

// SetExit records how the launch's process ended: an exit code, or the
// signal that killed it, and whether its operator asked for it.
func (t *Tx) SetExit(ctx context.Context, launchID int64, code *int, signal *string, requested bool, at time.Time) error {
	_, err := t.tx.Exec(ctx, `
		UPDATE launches SET exit_code = $2, exit_signal = $3, exit_requested = $4, ended_at = $5 WHERE id = $1`,
		launchID, code, signal, requested, at)
	if err != nil {
		return fmt.Errorf("store: set exit: %w", err)
	}
	return nil
}

// RecomputeStatus derives the launch's status from what is stored (phase,
// readiness, settled fatal alarms by review state, exit) and saves it.
func (t *Tx) RecomputeStatus(ctx context.Context, launchID int64) (string, error) {
	var f status.Facts
	var a AlarmFacts
	var readyAt *time.Time
	var stored string
	err := t.tx.QueryRow(ctx, `
		SELECT l.ready_at, l.status, l.phase, l.exit_code, l.exit_signal, l.exit_requested,`+alarmFactsSelect("l.ready_seq")+`
		FROM launches l LEFT JOIN alarms a ON a.launch_id = l.id AND NOT a.withdrawn
		WHERE l.id = $1
		GROUP BY l.id`, launchID).Scan(&readyAt, &stored, &f.Phase, &f.ExitCode, &f.ExitSignal, &f.ExitRequested,
		&a.OpenFatal, &a.ConfirmedFatal, &a.PendingFatal, &a.OpenFatalAfterReady)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("store: status facts: %w", err)
	}
	f.Ready = readyAt != nil
	f.OpenFatal, f.ConfirmedFatal, f.PendingFatal = a.OpenFatal, a.ConfirmedFatal, a.PendingFatal
	f.WasReady = stored == status.Ready
	st := status.Of(f)
	if _, err := t.tx.Exec(ctx, `UPDATE launches SET status = $2, updated_at = now() WHERE id = $1`, launchID, st); err != nil {
		return "", fmt.Errorf("store: save status: %w", err)
	}
	return st, nil
}

// Events returns the launch's process events in order.
func (s *Store) Events(ctx context.Context, launchID int64) ([]Event, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT at, kind, detail FROM launch_events WHERE launch_id = $1 ORDER BY id`, launchID)
	if err != nil {
		return nil, fmt.Errorf("store: events: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Event, error) {
		var e Event
		return e, row.Scan(&e.At, &e.Kind, &e.Detail)
	})
	if err != nil {
		return nil, fmt.Errorf("store: events: %w", err)
	}
	return out, nil
}

// NotifyChannel is the PostgreSQL channel on which every change to a launch
// is announced, so that every web process can push it to its live clients.
const NotifyChannel = "launchwatch_launch"

// Notify announces a change of the launch key when the transaction commits
// (NOTIFY is transactional, so listeners never hear of uncommitted lines).
func (t *Tx) Notify(ctx context.Context, key string) error {
	if _, err := t.tx.Exec(ctx, `SELECT pg_notify($1, $2)`, NotifyChannel, key); err != nil {
		return fmt.Errorf("store: notify: %w", err)
	}
	return nil
}
