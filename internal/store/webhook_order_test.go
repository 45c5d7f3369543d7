package store_test

import (
	"context"
	"testing"
	"time"

	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestDeliveriesToOneTargetKeepTheirOrder: while a sender holds a target's
// earlier delivery (or it waits for its retry), another sender takes no
// later delivery to that target, only other targets' ones: an incident's
// "resolved" never overtakes its "firing".
func TestDeliveriesToOneTargetKeepTheirOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	now := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	hook := func(url string) int64 {
		w, err := st.CreateWebhook(ctx, store.Webhook{URL: url, Format: "json", Events: []string{"test"}, CreatedBy: "test", CreatedAt: now})
		if err != nil {
			t.Fatal(err)
		}
		return w.ID
	}
	a, b := hook("http://a.example/hook"), hook("http://b.example/hook")
	deliver := func(webhook int64, body string) int64 {
		var ev, id int64
		if err := pool.QueryRow(ctx, `INSERT INTO webhook_events (kind, webhook_id) VALUES ('test', $1) RETURNING id`, webhook).Scan(&ev); err != nil {
			t.Fatal(err)
		}
		if err := pool.QueryRow(ctx, `INSERT INTO webhook_deliveries (webhook_id, event_id, kind, body, next_at, created_at)
			VALUES ($1, $2, 'test', $3, $4, $4) RETURNING id`, webhook, ev, body, now).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	firing, resolved, other := deliver(a, "firing"), deliver(a, "resolved"), deliver(b, "other")

	// A sender holds the target's first delivery.
	hold, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hold.Rollback(ctx)
	if _, err := hold.Exec(ctx, `SELECT 1 FROM webhook_deliveries WHERE id = $1 FOR UPDATE`, firing); err != nil {
		t.Fatal(err)
	}
	sent := func() []int64 {
		var ids []int64
		for {
			found, err := st.DeliverNext(ctx, now, func(d store.WebhookDelivery) store.DeliveryResult {
				ids = append(ids, d.ID)
				return store.DeliveryResult{State: "delivered", At: now}
			})
			if err != nil {
				t.Fatal(err)
			}
			if !found {
				return ids
			}
		}
	}
	if got := sent(); len(got) != 1 || got[0] != other {
		t.Fatalf("while the first delivery to a target is held, sent %v, want only the other target's %d", got, other)
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := sent(); len(got) != 2 || got[0] != firing || got[1] != resolved {
		t.Fatalf("sent %v, want %d then %d", got, firing, resolved)
	}
}
