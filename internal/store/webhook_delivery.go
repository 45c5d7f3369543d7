package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// WebhookDelivery is one event's delivery to one target, as its log shows.
type WebhookDelivery struct {
	ID         int64
	WebhookID  int64
	URL        string // the target's
	Kind       string
	LaunchKey  string
	Body       string
	State      string // pending, delivered, failed
	Attempts   int
	NextAt     time.Time
	LastStatus *int // the target's HTTP status at the last attempt, if it answered
	LastError  string
	CreatedAt  time.Time
	LastAt     *time.Time
}

// DeliveryResult is what an attempt came to.
type DeliveryResult struct {
	State      string // delivered; pending to try again at NextAt; failed to give up
	NextAt     time.Time
	LastStatus *int
	LastError  string
	At         time.Time // when the attempt was made
}

// SendFunc attempts delivery d (Attempts counts the earlier attempts).
type SendFunc func(d WebhookDelivery) DeliveryResult

// DeliverNext takes the earliest delivery due at now that no other web
// process holds, attempts it with send while holding its row lock, and
// records the result. The lock makes one process the only sender; should
// this one die while sending, its transaction ends and another takes the
// delivery. It reports whether there was one.
//
// A delivery is sent only once every standby streaming from this primary,
// and every standby with a physical replication slot on it connected or
// not, has flushed it (standbysHold): until then it is put off by
// StandbyWait, not attempted. A promoted standby therefore holds every
// delivery that was ever sent, with its id: what it re-sends (a result
// the failover lost) carries the id the receiver saw, and no id is handed
// out again to another message.
//
// A target's deliveries go out in the order they were made: one waits
// while an earlier one to the same webhook is pending (being sent by
// another sender, or waiting for its retry), so an Alertmanager never
// sees an incident resolved before it saw it firing.

func (s *Store) DeliverNext(ctx context.Context, now time.Time, send SendFunc) (bool, error) {
	found := false
	err := s.WithTx(ctx, func(tx *Tx) error {
		var after *string
		d, err := scanDelivery(tx.tx.QueryRow(ctx, `SELECT `+deliveryColumns+`, d.send_after_lsn::text
			FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
			WHERE d.state = 'pending' AND d.next_at <= $1
				AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
					WHERE e.webhook_id = d.webhook_id AND e.id < d.id AND e.state = 'pending')
			ORDER BY d.next_at, d.id LIMIT 1 FOR UPDATE OF d SKIP LOCKED`, now), &after)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("store: next webhook delivery: %w", err)
		}
		found = true
		var held bool
		if err := tx.tx.QueryRow(ctx, `
			WITH mark AS (
				UPDATE webhook_deliveries SET send_after_lsn = pg_current_wal_insert_lsn()
				WHERE id = $1 AND send_after_lsn IS NULL RETURNING send_after_lsn),
			at AS (SELECT COALESCE((SELECT send_after_lsn FROM mark), $2::pg_lsn) AS lsn)
			SELECT `+standbysHold+` FROM at`,
			d.ID, after).Scan(&held); err != nil {
			return fmt.Errorf("store: webhook delivery's standbys: %w", err)
		}
		if !held {
			_, err := tx.tx.Exec(ctx, `UPDATE webhook_deliveries SET next_at = $2 WHERE id = $1`, d.ID, now.Add(StandbyWait))
			return wrapErr("put off webhook delivery", err)
		}
		r := send(d)
		_, err = tx.tx.Exec(ctx, `UPDATE webhook_deliveries SET state = $2, attempts = attempts + 1, next_at = $3,
			last_status = $4, last_error = $5, last_at = $6 WHERE id = $1`,
			d.ID, r.State, r.NextAt, r.LastStatus, r.LastError, r.At)
		return wrapErr("record webhook delivery", err)
	})
	return found, err
}

// StandbyWait is how long a delivery that a standby does not hold yet is
// put off before it is looked at again.
const StandbyWait = 100 * time.Millisecond

// standbysHold holds when every standby that could be promoted has
// flushed its log through at.lsn:
//
//   - each walsender of pg_stat_replication that streams or catches up
//     (flush_lsn, as the standby last reported it), and
//   - each physical replication slot, whether its standby is connected or
//     not (restart_lsn: a physical slot's is the flush position its standby
//     last confirmed, kept by the primary while the standby is away).
//
// The slots are what make the rule hold when a walsender is gone before
// the backend that reads pg_stat_replication: its standby timed out
// (wal_sender_timeout) or was cut off, or the postmaster died and the
// walsenders exited at once while a backend ran on for a moment and sent
// what the standby lacked (docs/scale.md). A slot that holds nothing (no
// restart_lsn: never used, or invalidated, wal_status lost) and temporary
// slots (a base backup's, gone with its connection) are not waited for.
//
// Nothing to wait for (a lone primary; standbys without slots that are
// not connected) holds at once; so does a flush position the role may not
// see (without pg_read_all_stats or pg_monitor pg_stat_replication shows
// it NULL; pg_replication_slots is readable by every role).
const standbysHold = `
	(SELECT COALESCE(bool_and(r.flush_lsn >= at.lsn), true) FROM pg_stat_replication r
		WHERE r.state IN ('streaming', 'catchup') AND r.flush_lsn IS NOT NULL)
	AND (SELECT COALESCE(bool_and(s.restart_lsn >= at.lsn), true) FROM pg_replication_slots s
		WHERE s.slot_type = 'physical' AND NOT s.temporary AND s.restart_lsn IS NOT NULL AND s.wal_status <> 'lost')`

// NextWebhookDue returns when the earliest pending delivery is due (zero
// when none is pending).
func (s *Store) NextWebhookDue(ctx context.Context) (time.Time, error) {
	var at *time.Time
	err := s.read(ctx).QueryRow(ctx, `SELECT min(next_at) FROM webhook_deliveries WHERE state = 'pending'`).Scan(&at)
	if err != nil || at == nil {
		return time.Time{}, wrapErr("next webhook due", err)
	}
	return *at, nil
}

// WebhookDeliveries returns the last limit deliveries of target
// webhookID, newest first.
func (s *Store) WebhookDeliveries(ctx context.Context, webhookID int64, limit int) ([]WebhookDelivery, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT `+deliveryColumns+`
		FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
		WHERE d.webhook_id = $1 ORDER BY d.id DESC LIMIT $2`, webhookID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: webhook deliveries: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (WebhookDelivery, error) { return scanDelivery(row) })
	return out, wrapErr("webhook deliveries", err)
}

// LatestLaunchID returns the id of the launch created last, for a test
// delivery to name a real launch; nil when there is none.
func (s *Store) LatestLaunchID(ctx context.Context) (*int64, error) {
	var id int64
	err := s.read(ctx).QueryRow(ctx, `SELECT id FROM launches ORDER BY created_at DESC, id DESC LIMIT 1`).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: latest launch: %w", err)
	}
	return &id, nil
}

const deliveryColumns = `d.id, d.webhook_id, w.url, d.kind, d.launch_key, d.body, d.state, d.attempts, d.next_at,
	d.last_status, d.last_error, d.created_at, d.last_at`

func scanDelivery(row pgx.Row, more ...any) (WebhookDelivery, error) {
	var d WebhookDelivery
	err := row.Scan(append([]any{&d.ID, &d.WebhookID, &d.URL, &d.Kind, &d.LaunchKey, &d.Body, &d.State, &d.Attempts, &d.NextAt,
		&d.LastStatus, &d.LastError, &d.CreatedAt, &d.LastAt}, more...)...)
	if errors.Is(err, pgx.ErrNoRows) {
		return d, ErrNotFound
	}
	return d, err
}
