package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// LaunchPin says whether retention keeps a launch whatever its age, and who
// decided so (migrations/00018).
type LaunchPin struct {
	Pinned bool
	By     string
	At     *time.Time
}

// LaunchPin returns the pin of the launch with id.
func (s *Store) LaunchPin(ctx context.Context, id int64) (LaunchPin, error) {
	var p LaunchPin
	err := s.read(ctx).QueryRow(ctx, `SELECT pinned, pinned_by, pinned_at FROM launches WHERE id = $1`, id).Scan(&p.Pinned, &p.By, &p.At)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, ErrNotFound
	}
	if err != nil {
		return p, fmt.Errorf("store: launch pin: %w", err)
	}
	return p, nil
}

// SetLaunchPin pins (or unpins) the launch with key for actor, and records
// it in the audit log in the same transaction. Pinning a pinned launch
// changes nothing and records nothing; changed says whether it did.
func (s *Store) SetLaunchPin(ctx context.Context, key string, pinned bool, actor string) (changed bool, err error) {
	err = s.WithTx(ctx, func(tx *Tx) error {
		var id int64
		var was bool
		err := tx.tx.QueryRow(ctx, `SELECT id, pinned FROM launches WHERE key = $1 FOR UPDATE`, key).Scan(&id, &was)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("store: pin launch: %w", err)
		}
		if was == pinned {
			return nil
		}
		if pinned {
			_, err = tx.tx.Exec(ctx, `UPDATE launches SET pinned = true, pinned_by = $2, pinned_at = now() WHERE id = $1`, id, actor)
		} else {
			_, err = tx.tx.Exec(ctx, `UPDATE launches SET pinned = false, pinned_by = '', pinned_at = NULL WHERE id = $1`, id)
		}
		if err != nil {
			return fmt.Errorf("store: pin launch: %w", err)
		}
		changed = true
		action := "launch.unpin"
		if pinned {
			action = "launch.pin"
		}
		return tx.AddAudit(ctx, AuditEvent{Actor: actor, Action: action, Subject: LaunchSubject(key),
			Detail: map[string]any{"launch": key}})
	})
	return changed, err
}

// LaunchSubject names a launch in the audit log.
func LaunchSubject(key string) string { return "launch:" + key }
