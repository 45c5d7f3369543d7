package store

import (
	"context"
	"fmt"
	"time"
)

// WebhookChannel is the PostgreSQL channel on which a new webhook event is
// announced, so that every web process's delivery worker wakes for it.
const WebhookChannel = "launchwatch_webhook"

// addWebhookEvent is the outbox insert: nothing when no target exists (no
// outbox then), and once only for a dedupe key given twice.
const addWebhookEvent = `
	WITH ev AS (
		INSERT INTO webhook_events (kind, launch_id, incident_id, webhook_id, detail, dedupe)
		SELECT $1, $2, $3, $4, $5, $6 WHERE EXISTS (SELECT 1 FROM webhooks)
		ON CONFLICT (dedupe) WHERE dedupe IS NOT NULL DO NOTHING
		RETURNING id)
	SELECT pg_notify('` + WebhookChannel + `', '') FROM ev`

// AddIncidentWebhookEvent announces that incident id was opened or
// resolved (action), in the transaction that does it.
func (t *Tx) AddIncidentWebhookEvent(ctx context.Context, id int64, action string) error {
	if _, err := t.tx.Exec(ctx, addWebhookEvent, "incident", nil, id, nil,
		map[string]any{"action": action}, nil); err != nil {
		return fmt.Errorf("store: add incident webhook event: %w", err)
	}
	return nil
}

// AddTestWebhookEvent queues a test delivery to target webhookID alone,
// about launchID (nil when there is no launch to name), asked by actor.
func (s *Store) AddTestWebhookEvent(ctx context.Context, webhookID int64, launchID *int64, actor string) error {
	return s.WithTx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.Exec(ctx, addWebhookEvent, "test", launchID, nil, webhookID,
			map[string]any{"by": actor}, nil); err != nil {
			return fmt.Errorf("store: add test webhook event: %w", err)
		}
		return tx.AddAudit(ctx, AuditEvent{Actor: actor, Action: "webhook.test", Subject: WebhookSubject(webhookID)})
	})
}

// AddSilentWebhookEvents announces each launch that became silent at now:
// still starting or loading, and not heard from (no line, no heartbeat)
// for longer than after. A silence is announced once, keyed by when the
// launch was last heard; a launch heard again and silent again is a new
// silence. Silences that began more than a day ago are not announced (a
// long-abandoned launch when the first target is made, or after a long
// stop). It returns how many it added.
func (s *Store) AddSilentWebhookEvents(ctx context.Context, now time.Time, after time.Duration) (int, error) {
	var n int
	err := s.read(ctx).QueryRow(ctx, `
		WITH ev AS (
			INSERT INTO webhook_events (kind, launch_id, detail, dedupe, at)
			SELECT 'silent', l.id, jsonb_build_object('status', 'silent', 'last_heard', h.at),
				'silent:' || l.id || ':' || (extract(epoch FROM h.at) * 1000000)::bigint, $1
			FROM launches l
			CROSS JOIN LATERAL (SELECT GREATEST(l.created_at, l.last_line_at, l.last_heartbeat_at) AS at) h
			WHERE l.status IN ('starting', 'loading')
				AND h.at < $1::timestamptz - $2::interval
				AND h.at >= $1::timestamptz - $2::interval - interval '1 day'
				AND EXISTS (SELECT 1 FROM webhooks)
			ON CONFLICT (dedupe) WHERE dedupe IS NOT NULL DO NOTHING
			RETURNING id)
		SELECT count(*) FROM ev`, now, after).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: add silent webhook events: %w", err)
	}
	return n, nil
}
