package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// Webhook is a notification target an admin configured.
type Webhook struct {
	ID        int64
	URL       string
	Format    string   // json, alertmanager or slack
	Events    []string // alarm, crashed, ready, silent, incident
	Server    string   // only launches of this server kind; "" for all
	Label     string   // only launches with this label ("name" or "name=value"); "" for all
	CreatedBy string
	CreatedAt time.Time
}

// WebhookStats sums up a target's deliveries.
type WebhookStats struct {
	Pending, Delivered, Failed int
	LastAt                     *time.Time // the last attempt
}

const webhookColumns = `id, url, format, events, server, label, created_by, created_at`

func scanWebhook(row pgx.Row) (Webhook, error) {
	var w Webhook
	err := row.Scan(&w.ID, &w.URL, &w.Format, &w.Events, &w.Server, &w.Label, &w.CreatedBy, &w.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return w, ErrNotFound
	}
	return w, err
}

// WebhookSubject is how audit events name a webhook.
func WebhookSubject(id int64) string { return "webhook:" + strconv.FormatInt(id, 10) }

// CreateWebhook stores a target and its audit event.
func (s *Store) CreateWebhook(ctx context.Context, w Webhook) (Webhook, error) {
	err := s.WithTx(ctx, func(tx *Tx) error {
		var err error
		w, err = scanWebhook(tx.tx.QueryRow(ctx, `INSERT INTO webhooks (url, format, events, server, label, created_by, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+webhookColumns,
			w.URL, w.Format, w.Events, w.Server, w.Label, w.CreatedBy, w.CreatedAt))
		if err != nil {
			return fmt.Errorf("store: create webhook: %w", err)
		}
		return tx.AddAudit(ctx, AuditEvent{Actor: w.CreatedBy, Action: "webhook.create", Subject: WebhookSubject(w.ID),
			Detail: map[string]any{"url": w.URL, "format": w.Format, "events": w.Events, "server": w.Server, "label": w.Label}})
	})
	return w, err
}

// Webhooks lists every target, oldest first.
func (s *Store) Webhooks(ctx context.Context) ([]Webhook, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT `+webhookColumns+` FROM webhooks ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: webhooks: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Webhook, error) { return scanWebhook(row) })
	if err != nil {
		return nil, fmt.Errorf("store: webhooks: %w", err)
	}
	return out, nil
}

// Webhook returns target id, or ErrNotFound.
func (s *Store) Webhook(ctx context.Context, id int64) (Webhook, error) {
	w, err := scanWebhook(s.read(ctx).QueryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE id = $1`, id))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return w, fmt.Errorf("store: webhook: %w", err)
	}
	return w, err
}

// DeleteWebhook removes target id with its delivery log (nothing more is
// sent to it, even a delivery waiting for a retry), and audits it;
// ErrNotFound when there is none.
func (s *Store) DeleteWebhook(ctx context.Context, id int64, actor string) error {
	return s.WithTx(ctx, func(tx *Tx) error {
		w, err := scanWebhook(tx.tx.QueryRow(ctx, `DELETE FROM webhooks WHERE id = $1 RETURNING `+webhookColumns, id))
		if errors.Is(err, ErrNotFound) {
			return err
		}
		if err != nil {
			return fmt.Errorf("store: delete webhook: %w", err)
		}
		return tx.AddAudit(ctx, AuditEvent{Actor: actor, Action: "webhook.delete", Subject: WebhookSubject(id),
			Detail: map[string]any{"url": w.URL, "format": w.Format}})
	})
}

// WebhookStats returns the delivery counts of every target that has
// deliveries, by target id.
func (s *Store) WebhookStats(ctx context.Context) (map[int64]WebhookStats, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT webhook_id,
			count(*) FILTER (WHERE state = 'pending'), count(*) FILTER (WHERE state = 'delivered'),
			count(*) FILTER (WHERE state = 'failed'), max(last_at)
		FROM webhook_deliveries GROUP BY webhook_id`)
	if err != nil {
		return nil, fmt.Errorf("store: webhook stats: %w", err)
	}
	defer rows.Close()
	out := map[int64]WebhookStats{}
	for rows.Next() {
		var id int64
		var st WebhookStats
		if err := rows.Scan(&id, &st.Pending, &st.Delivered, &st.Failed, &st.LastAt); err != nil {
			return nil, fmt.Errorf("store: webhook stats: %w", err)
		}
		out[id] = st
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: webhook stats: %w", err)
	}
	return out, nil
}
