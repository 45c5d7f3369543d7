package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// IncidentFilter narrows the incidents list; empty fields do not filter.
type IncidentFilter struct {
	Status    string
	Severity  string
	Query     string // part of the title, case-insensitive
	LaunchKey string // incidents that hold this launch
	Limit     int    // at most this many, newest first (0: 200)
}

// IncidentListItem is an incident in the list with its launches' keys.
type IncidentListItem struct {
	Incident
	LaunchKeys []string
}

// Incidents returns the incidents the filter selects, newest first.
func (s *Store) Incidents(ctx context.Context, f IncidentFilter) ([]IncidentListItem, error) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Status != "" {
		where = append(where, "i.status = "+arg(f.Status))
	}
	if f.Severity != "" {
		where = append(where, "i.severity = "+arg(f.Severity))
	}
	if f.Query != "" {
		where = append(where, "strpos(lower(i.title), lower("+arg(f.Query)+")) > 0")
	}
	if f.LaunchKey != "" {
		where = append(where, `EXISTS (SELECT 1 FROM incident_launches il JOIN launches l ON l.id = il.launch_id
			WHERE il.incident_id = i.id AND l.key = `+arg(f.LaunchKey)+`)`)
	}
	if f.Limit <= 0 {
		f.Limit = 200
	}
	q := `SELECT i.id, i.title, i.severity, i.status, i.owner, i.summary, i.root_cause, i.resolution,
			i.created_by, i.created_at, i.updated_at,
			coalesce((SELECT array_agg(l.key ORDER BY il.added_at, l.id) FROM incident_launches il
				JOIN launches l ON l.id = il.launch_id WHERE il.incident_id = i.id), '{}')
		FROM incidents i`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY i.created_at DESC, i.id DESC LIMIT " + arg(f.Limit)
	rows, err := s.read(ctx).Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: incidents: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (IncidentListItem, error) {
		var it IncidentListItem
		i := &it.Incident
		return it, row.Scan(&i.ID, &i.Title, &i.Severity, &i.Status, &i.Owner, &i.Summary, &i.RootCause,
			&i.Resolution, &i.CreatedBy, &i.CreatedAt, &i.UpdatedAt, &it.LaunchKeys)
	})
	if err != nil {
		return nil, fmt.Errorf("store: incidents: %w", err)
	}
	return out, nil
}

// PreviousGoodLaunch returns the newest launch made before l with the same
// name or on the same host that became ready and did not crash: what a
// post-mortem compares a failed launch's configuration with. ErrNotFound
// when there is none.
func (s *Store) PreviousGoodLaunch(ctx context.Context, l *Launch) (*Launch, error) {
	prev, err := scanLaunch(s.read(ctx).QueryRow(ctx, `SELECT `+launchColumns+` FROM launches l
		WHERE l.id <> $1 AND (l.created_at, l.id) < ($2, $1)
			AND (($3 <> '' AND l.name = $3) OR ($4 <> '' AND l.host = $4))
			AND l.ready_at IS NOT NULL AND l.status IN ('ready', 'exited')
		ORDER BY l.created_at DESC, l.id DESC LIMIT 1`, l.ID, l.CreatedAt, l.Name, l.Host))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("store: previous good launch: %w", err)
	}
	return prev, err
}
