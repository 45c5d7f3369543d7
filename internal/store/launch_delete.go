package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// DeletedLaunch is what was removed with a launch, for the audit log and
// the answer.
type DeletedLaunch struct {
	ID     int64
	Key    string
	Server string
	Lines  int64
}

// DeleteLaunch removes the launch with key and everything that belongs to
// it, records who did it in the audit log, and tells live clients. Every
// table that refers to a launch does so by a foreign key with ON DELETE
// CASCADE (lines and line_keys in their partition, alarms, launch_phases,
// launch_events, line_templates, line_chunks, classifier_checkpoints,
// incident_launches, annotations and their revisions), so one DELETE takes
// them all in one transaction. Two references stay on purpose: a rule made
// from one of its alarms keeps its launch id (rules are not the launch's;
// the rules page stops linking to it), and the audit log keeps every
// decision on its alarms (it is append-only).
//
// The transaction is begun here rather than by WithTx: removing a launch of
// a million lines deletes a million rows and must not be cut short by a
// deadline meant for ingest batches.
func (s *Store) DeleteLaunch(ctx context.Context, key, actor string) (DeletedLaunch, error) {
	var d DeletedLaunch
	err := pgx.BeginFunc(ctx, s.pool, func(ptx pgx.Tx) error {
		err := ptx.QueryRow(ctx, `DELETE FROM launches WHERE key = $1 RETURNING id, key, server, line_count`, key).
			Scan(&d.ID, &d.Key, &d.Server, &d.Lines)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("store: delete launch: %w", err)
		}
		tx := &Tx{tx: ptx}
		if err := tx.AddAudit(ctx, AuditEvent{Actor: actor, Action: "launch.delete", Subject: LaunchSubject(key),
			Detail: map[string]any{"launch": d.Key, "id": d.ID, "server": d.Server, "lines": d.Lines}}); err != nil {
			return err
		}
		if err := tx.Notify(ctx, key); err != nil {
			return err
		}
		return tx.flushAudit(ctx)
	})
	return d, err
}
