package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Reads of many subjects at once, for the read models of list pages (a
// page lists N things: it makes one query per kind of thing, not N).

// AuditForSubjects returns the audit events of each of subjects, oldest
// first, keyed by subject; a subject with none is absent.
func (s *Store) AuditForSubjects(ctx context.Context, subjects []string) (map[string][]AuditEvent, error) {
	out := map[string][]AuditEvent{}
	if len(subjects) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT actor, action, subject, detail, at FROM audit_events
		WHERE subject COLLATE "C" = ANY($1::text[]) ORDER BY id`, subjects)
	events, err := collectAudit(rows, err)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		out[e.Subject] = append(out[e.Subject], e)
	}
	return out, nil
}

// LaunchKeys returns the keys of the launches ids, keyed by id; a launch
// that no longer exists is absent.
func (s *Store) LaunchKeys(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id, key FROM launches WHERE id = ANY($1::bigint[])`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: launch keys: %w", err)
	}
	type idKey struct {
		id  int64
		key string
	}
	got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (idKey, error) {
		var k idKey
		return k, row.Scan(&k.id, &k.key)
	})
	if err != nil {
		return nil, fmt.Errorf("store: launch keys: %w", err)
	}
	for _, k := range got {
		out[k.id] = k.key
	}
	return out, nil
}
