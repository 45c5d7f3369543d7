package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// WebhookEvent is an event of the outbox with what targets are matched
// against and what payloads tell.
type WebhookEvent struct {
	ID        int64
	Kind      string // alarm, crashed, ready, silent, incident, test
	At        time.Time
	Detail    map[string]any
	WebhookID *int64         // a test event's one target
	Launch    *EventLaunch   // the launch of a launch event (and of a test event, when there is one)
	Incident  *EventIncident // the incident of an incident event
	// Updates is the page this event updates, nil for an event that pages
	// on its own: a crash or a recovery that follows a launch's alarm (its
	// detail's "from" is alarm) is the same fatal event told again, so the
	// targets the alarm was sent to get an update of it, not a new page.
	Updates *WebhookUpdate
}

// WebhookUpdate is the page an event updates: the launch's alarm event and
// the targets it was delivered to.
type WebhookUpdate struct {
	EventID  int64
	Kind     string // the page's event kind: alarm
	At       time.Time
	Webhooks []int64
}

// EventLaunch is a launch as a notification tells it.
type EventLaunch struct {
	Key, Name, Server, Host string
	Labels                  map[string]string
	Status                  string // its status when the event is routed
	Headline, AlarmKind     string // its first open or confirmed fatal alarm, if any
	ExitCode                *int
	ExitSignal              *string
}

// EventIncident is an incident as a notification tells it.
type EventIncident struct {
	ID                      int64
	Title, Severity, Status string
	Launches                []EventLaunch // in the order they were added
}

// NewDelivery is one event's rendered payload for one target.
type NewDelivery struct {
	WebhookID int64
	LaunchKey string
	Body      string
}

// RouteFunc chooses the targets of an event among hooks and renders the
// payload of each.
type RouteFunc func(hooks []Webhook, ev WebhookEvent) ([]NewDelivery, error)

// RouteWebhookEvents takes up to limit events not routed yet (skipping
// those another web process is routing), turns each into the deliveries
// route returns, due at now, and marks it routed, in one transaction. It
// returns how many events it routed.
func (s *Store) RouteWebhookEvents(ctx context.Context, now time.Time, limit int, route RouteFunc) (int, error) {
	n := 0
	err := s.WithTx(ctx, func(tx *Tx) error {
		n = 0
		rows, err := tx.tx.Query(ctx, `SELECT id, kind, at, detail, webhook_id, launch_id, incident_id
			FROM webhook_events WHERE routed_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, limit)
		if err != nil {
			return fmt.Errorf("store: unrouted webhook events: %w", err)
		}
		type claimed struct {
			ev                   WebhookEvent
			launchID, incidentID *int64
		}
		evs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (claimed, error) {
			var c claimed
			return c, row.Scan(&c.ev.ID, &c.ev.Kind, &c.ev.At, &c.ev.Detail, &c.ev.WebhookID, &c.launchID, &c.incidentID)
		})
		if err != nil || len(evs) == 0 {
			return wrapErr("unrouted webhook events", err)
		}
		hooks, err := tx.webhooks(ctx)
		if err != nil {
			return err
		}
		for _, c := range evs {
			ev := c.ev
			if c.launchID != nil {
				if ev.Launch, err = tx.eventLaunch(ctx, *c.launchID); err != nil {
					return err
				}
				var ready bool
				if ev.Updates, ready, err = tx.pageUpdated(ctx, *c.launchID, ev); err != nil {
					return err
				}
				if !ready {
					continue // its page is being routed by another process: next time
				}
			}
			if c.incidentID != nil {
				if ev.Incident, err = tx.eventIncident(ctx, *c.incidentID); err != nil {
					return err
				}
			}
			ds, err := route(hooks, ev)
			if err != nil {
				return err
			}
			for _, d := range ds {
				if _, err := tx.tx.Exec(ctx, `INSERT INTO webhook_deliveries
					(webhook_id, event_id, kind, launch_key, body, next_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
					ON CONFLICT (webhook_id, event_id) DO NOTHING`, d.WebhookID, ev.ID, ev.Kind, d.LaunchKey, d.Body, now); err != nil {
					return fmt.Errorf("store: add webhook delivery: %w", err)
				}
			}
			if _, err := tx.tx.Exec(ctx, `UPDATE webhook_events SET routed_at = $2 WHERE id = $1`, ev.ID, now); err != nil {
				return fmt.Errorf("store: mark webhook event routed: %w", err)
			}
			n++
		}
		return nil
	})
	return n, err
}

// pageUpdated finds the page ev updates: for a crash or a recovery from
// alarm, the launch's last alarm event before it, with the targets it was
// routed to. ready is false while that alarm event is not routed yet (in
// another web process's batch): ev waits for it, so no target is paged
// twice for want of knowing it was paged once.
func (t *Tx) pageUpdated(ctx context.Context, launchID int64, ev WebhookEvent) (*WebhookUpdate, bool, error) {
	if from, _ := ev.Detail["from"].(string); from != "alarm" || (ev.Kind != "crashed" && ev.Kind != "ready") {
		return nil, true, nil
	}
	u := WebhookUpdate{Kind: "alarm"}
	var routed *time.Time
	err := t.tx.QueryRow(ctx, `
		SELECT e.id, e.at, e.routed_at,
			coalesce((SELECT array_agg(d.webhook_id ORDER BY d.webhook_id) FROM webhook_deliveries d WHERE d.event_id = e.id), '{}')
		FROM webhook_events e
		WHERE e.launch_id = $1 AND e.kind = 'alarm' AND e.id < $2
		ORDER BY e.id DESC LIMIT 1`, launchID, ev.ID).Scan(&u.EventID, &u.At, &routed, &u.Webhooks)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return nil, true, nil // the alarm was never announced (no target then)
	case err != nil:
		return nil, false, fmt.Errorf("store: webhook page updated: %w", err)
	case routed == nil:
		return nil, false, nil
	}
	if ev.Kind == "crashed" {
		// The crash is the paged alarm's only if the fatal alarm that paged
		// still stands: an alarm dismissed since, and a new traceback that
		// settles and crashes in one transaction (its alarm never
		// announced), is a new fatal event.
		var standing bool
		if err := t.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM alarms WHERE launch_id = $1 AND fatal AND NOT withdrawn
			AND state IN ('open', 'confirmed') AND created_at <= $2)`, launchID, u.At).Scan(&standing); err != nil {
			return nil, false, fmt.Errorf("store: webhook page updated: %w", err)
		}
		if !standing {
			return nil, true, nil
		}
	}
	return &u, true, nil
}

func wrapErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("store: %s: %w", what, err)
}

func (t *Tx) webhooks(ctx context.Context) ([]Webhook, error) {
	rows, err := t.tx.Query(ctx, `SELECT `+webhookColumns+` FROM webhooks ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: webhooks: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Webhook, error) { return scanWebhook(row) })
	return out, wrapErr("webhooks", err)
}

func (t *Tx) eventLaunch(ctx context.Context, id int64) (*EventLaunch, error) {
	var l EventLaunch
	err := t.tx.QueryRow(ctx, `
		SELECT l.key, l.name, l.server, l.host, l.labels, l.status, l.exit_code, l.exit_signal,
			coalesce(a.headline, ''), coalesce(a.kind, '')
		FROM launches l
		LEFT JOIN LATERAL (SELECT headline, kind FROM alarms
			WHERE launch_id = l.id AND fatal AND NOT withdrawn AND state IN ('open', 'confirmed')
			ORDER BY state = 'confirmed' DESC, alarm_no LIMIT 1) a ON true
		WHERE l.id = $1`, id).Scan(&l.Key, &l.Name, &l.Server, &l.Host, &l.Labels, &l.Status, &l.ExitCode, &l.ExitSignal,
		&l.Headline, &l.AlarmKind)
	if err != nil {
		return nil, fmt.Errorf("store: webhook event launch: %w", err)
	}
	return &l, nil
}

func (t *Tx) eventIncident(ctx context.Context, id int64) (*EventIncident, error) {
	in := EventIncident{ID: id}
	err := t.tx.QueryRow(ctx, `SELECT title, severity, status FROM incidents WHERE id = $1`, id).
		Scan(&in.Title, &in.Severity, &in.Status)
	if err != nil {
		return nil, fmt.Errorf("store: webhook event incident: %w", err)
	}
	rows, err := t.tx.Query(ctx, `SELECT l.key, l.name, l.server, l.host, l.labels, l.status
		FROM incident_launches il JOIN launches l ON l.id = il.launch_id
		WHERE il.incident_id = $1 ORDER BY il.added_at, l.id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: webhook event incident launches: %w", err)
	}
	in.Launches, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (EventLaunch, error) {
		var l EventLaunch
		return l, row.Scan(&l.Key, &l.Name, &l.Server, &l.Host, &l.Labels, &l.Status)
	})
	return &in, wrapErr("webhook event incident launches", err)
}
