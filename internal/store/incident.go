package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Incident is a group of launches a team investigates together, with the
// fields people write for its post-mortem (migrations/00014).
type Incident struct {
	ID         int64
	Title      string
	Severity   string // sev1 (worst) to sev4
	Status     string // investigating, mitigated or resolved
	Owner      string
	Summary    string
	RootCause  string
	Resolution string
	CreatedBy  string
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// IncidentStatusChange is one status an incident took: who set it, when.
type IncidentStatusChange struct {
	Status string
	Actor  string
	At     time.Time
}

// IncidentMember is a launch of an incident: who added it and when.
type IncidentMember struct {
	LaunchID int64
	AddedBy  string
	AddedAt  time.Time
}

const incidentColumns = `id, title, severity, status, owner, summary, root_cause, resolution, created_by, created_at, updated_at`

func scanIncident(row pgx.Row) (*Incident, error) {
	var i Incident
	err := row.Scan(&i.ID, &i.Title, &i.Severity, &i.Status, &i.Owner, &i.Summary, &i.RootCause, &i.Resolution,
		&i.CreatedBy, &i.CreatedAt, &i.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: incident: %w", err)
	}
	return &i, nil
}

// Incident returns the incident with id, or ErrNotFound.
func (s *Store) Incident(ctx context.Context, id int64) (*Incident, error) {
	return scanIncident(s.read(ctx).QueryRow(ctx, `SELECT `+incidentColumns+` FROM incidents WHERE id = $1`, id))
}

// LockIncident reads the incident with id under a row lock, so that two
// changes of one incident (a status and an edit) apply one after the other.
func (t *Tx) LockIncident(ctx context.Context, id int64) (*Incident, error) {
	return scanIncident(t.tx.QueryRow(ctx, `SELECT `+incidentColumns+` FROM incidents WHERE id = $1 FOR UPDATE`, id))
}

// CreateIncident stores a new incident, investigating, with its first
// status change, and returns its id.
func (t *Tx) CreateIncident(ctx context.Context, title, severity, owner, actor string) (int64, error) {
	var id int64
	err := t.tx.QueryRow(ctx, `INSERT INTO incidents (title, severity, owner, status, created_by)
		VALUES ($1, $2, $3, 'investigating', $4) RETURNING id`, title, severity, owner, actor).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: create incident: %w", err)
	}
	return id, t.AddIncidentStatus(ctx, id, "investigating", actor)
}

// UpdateIncident writes the fields people edit and the status; the status
// change itself is recorded by AddIncidentStatus.
func (t *Tx) UpdateIncident(ctx context.Context, i *Incident) error {
	_, err := t.tx.Exec(ctx, `UPDATE incidents SET title = $2, severity = $3, status = $4, owner = $5,
		summary = $6, root_cause = $7, resolution = $8, updated_at = now() WHERE id = $1`,
		i.ID, i.Title, i.Severity, i.Status, i.Owner, i.Summary, i.RootCause, i.Resolution)
	if err != nil {
		return fmt.Errorf("store: update incident: %w", err)
	}
	return nil
}

// AddIncidentStatus records that actor set the incident's status now.
func (t *Tx) AddIncidentStatus(ctx context.Context, id int64, status, actor string) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO incident_status_changes (incident_id, status, actor) VALUES ($1, $2, $3)`,
		id, status, actor)
	if err != nil {
		return fmt.Errorf("store: add incident status: %w", err)
	}
	return nil
}

// IncidentStatusChanges returns the statuses an incident took, oldest first.
func (s *Store) IncidentStatusChanges(ctx context.Context, id int64) ([]IncidentStatusChange, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT status, actor, at FROM incident_status_changes
		WHERE incident_id = $1 ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: incident status changes: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (IncidentStatusChange, error) {
		var c IncidentStatusChange
		return c, row.Scan(&c.Status, &c.Actor, &c.At)
	})
	if err != nil {
		return nil, fmt.Errorf("store: incident status changes: %w", err)
	}
	return out, nil
}

// AddIncidentLaunch adds a launch to an incident; added is false when it
// was already there.
func (t *Tx) AddIncidentLaunch(ctx context.Context, id, launchID int64, actor string) (added bool, err error) {
	tag, err := t.tx.Exec(ctx, `INSERT INTO incident_launches (incident_id, launch_id, added_by) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, id, launchID, actor)
	if err != nil {
		return false, fmt.Errorf("store: add incident launch: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// RemoveIncidentLaunch takes a launch out of an incident; removed is false
// when it was not in it.
func (t *Tx) RemoveIncidentLaunch(ctx context.Context, id, launchID int64) (removed bool, err error) {
	tag, err := t.tx.Exec(ctx, `DELETE FROM incident_launches WHERE incident_id = $1 AND launch_id = $2`, id, launchID)
	if err != nil {
		return false, fmt.Errorf("store: remove incident launch: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// CountIncidentLaunches returns how many launches an incident holds.
func (t *Tx) CountIncidentLaunches(ctx context.Context, id int64) (int, error) {
	var n int
	if err := t.tx.QueryRow(ctx, `SELECT count(*) FROM incident_launches WHERE incident_id = $1`, id).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count incident launches: %w", err)
	}
	return n, nil
}

// IncidentMembers returns the launches of an incident in the order they
// were added.
func (s *Store) IncidentMembers(ctx context.Context, id int64) ([]IncidentMember, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT launch_id, added_by, added_at FROM incident_launches
		WHERE incident_id = $1 ORDER BY added_at, launch_id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: incident launches: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (IncidentMember, error) {
		var m IncidentMember
		return m, row.Scan(&m.LaunchID, &m.AddedBy, &m.AddedAt)
	})
	if err != nil {
		return nil, fmt.Errorf("store: incident launches: %w", err)
	}
	return out, nil
}
