package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// ActionItem is one entry of an incident's post-mortem checklist.
type ActionItem struct {
	ID        int64
	Body      string
	Done      bool
	CreatedBy string
	CreatedAt time.Time
	DoneBy    *string
	DoneAt    *time.Time
}

// AddActionItem adds an open item to an incident's checklist.
func (t *Tx) AddActionItem(ctx context.Context, incidentID int64, body, actor string) (int64, error) {
	var id int64
	err := t.tx.QueryRow(ctx, `INSERT INTO incident_action_items (incident_id, body, created_by) VALUES ($1, $2, $3)
		RETURNING id`, incidentID, body, actor).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: add action item: %w", err)
	}
	return id, nil
}

// UpdateActionItem sets an item's text (when body is not nil) and whether
// it is done (when done is not nil; ticking it records who and when).
// ErrNotFound when the incident has no such item.
func (t *Tx) UpdateActionItem(ctx context.Context, incidentID, itemID int64, body *string, done *bool, actor string) error {
	tag, err := t.tx.Exec(ctx, `
		UPDATE incident_action_items SET
			body = coalesce($3, body),
			done_by = CASE WHEN $4::boolean IS NULL OR $4 = done THEN done_by WHEN $4 THEN $5 ELSE NULL END,
			done_at = CASE WHEN $4::boolean IS NULL OR $4 = done THEN done_at WHEN $4 THEN now() ELSE NULL END,
			done = coalesce($4, done)
		WHERE id = $2 AND incident_id = $1`, incidentID, itemID, body, done, actor)
	if err != nil {
		return fmt.Errorf("store: update action item: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// DeleteActionItem removes an item from the checklist.
func (t *Tx) DeleteActionItem(ctx context.Context, incidentID, itemID int64) error {
	tag, err := t.tx.Exec(ctx, `DELETE FROM incident_action_items WHERE id = $2 AND incident_id = $1`, incidentID, itemID)
	if err != nil {
		return fmt.Errorf("store: delete action item: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return ErrNotFound
	}
	return nil
}

// ActionItems returns an incident's checklist in the order it was written.
func (s *Store) ActionItems(ctx context.Context, incidentID int64) ([]ActionItem, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT id, body, done, created_by, created_at, done_by, done_at
		FROM incident_action_items WHERE incident_id = $1 ORDER BY id`, incidentID)
	if err != nil {
		return nil, fmt.Errorf("store: action items: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (ActionItem, error) {
		var a ActionItem
		return a, row.Scan(&a.ID, &a.Body, &a.Done, &a.CreatedBy, &a.CreatedAt, &a.DoneBy, &a.DoneAt)
	})
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("store: action items: %w", err)
	}
	return out, nil
}
