package notify_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/notify"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// A delivery is sent only once the standby holds it: with the standby's
// WAL receiver frozen, the worker puts it off (nothing reaches the
// receiver however often it looks); once the standby receives again, the
// delivery goes out, once.
func TestDeliveryWaitsUntilTheStandbyHoldsIt(t *testing.T) {
	t.Parallel()
	heldBack(t, false)
}

// A standby that is not connected any more still holds deliveries back
// through its replication slot: its WAL sender ended (as
// wal_sender_timeout ends it, or the postmaster's death before a backend
// that still runs a worker's statement), pg_stat_replication lists no
// standby, and the delivery still waits, until the standby is back and
// has flushed it.
func TestDeliveryWaitsForAStandbyThatIsAway(t *testing.T) {
	t.Parallel()
	heldBack(t, true)
}

// heldBack creates a delivery while the standby's WAL receiver is frozen,
// with its WAL sender ended too when away, and requires it held back until
// the standby receives again.
func heldBack(t *testing.T, away bool) {
	pair := storetest.NewPair(t)
	ctx := context.Background()
	pool := storetest.PairPool(t, pair.PrimaryURL())
	st := store.New(pool)
	clk := clock.Real{}
	b := &testBundle{ctx: ctx, st: st, pipe: pipeline.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)), pipeline.WithClock(clk))}
	rcv := newReceiver(t, 0)
	w, err := st.CreateWebhook(ctx, store.Webhook{URL: rcv.srv.URL, Format: "json", Events: []string{"crashed"}, CreatedBy: "test", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	// The worker's clock is the test's: each look is due when the clock
	// has moved past the delay the last one put the delivery off by.
	wclk := clock.NewFake(time.Now())
	worker := notify.New(st, notify.Config{PublicURL: "https://launchwatch.example.org", Client: &http.Client{Transport: tr, Timeout: 10 * time.Second},
		Clock: wclk})

	resume := pair.StopReceiving()
	if away {
		pair.CutReplication()
	}
	b.crash(t, "held-back")
	// Looked at again and again while the standby lacks it.
	const looks = 20
	for range looks {
		if _, err := worker.Work(ctx); err != nil {
			t.Fatal(err)
		}
		wclk.Advance(store.StandbyWait) // the delivery is put off this long each time
	}
	if got := rcv.deliveries(); len(got) != 0 {
		t.Fatalf("%d deliveries sent while the standby did not hold them (%d looks)", len(got), looks)
	}
	if away {
		var connected int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_replication`).Scan(&connected); err != nil || connected != 0 {
			t.Fatalf("%d standbys connected (%v), want none: the WAL receiver is frozen", connected, err)
		}
	}
	if ds, err := st.WebhookDeliveries(ctx, w.ID, 10); err != nil || len(ds) != 1 || ds[0].State != "pending" || ds[0].Attempts != 0 {
		t.Fatalf("delivery log %+v (%v): want one pending delivery, not attempted", ds, err)
	}
	resume()
	// Once away, the standby is back after wal_retrieve_retry_interval (5 s).
	deadline := time.Now().Add(time.Minute)
	for len(rcv.deliveries()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the delivery was not sent once the standby received again")
		}
		if _, err := worker.Work(ctx); err != nil {
			t.Fatal(err)
		}
		wclk.Advance(store.StandbyWait)
		time.Sleep(10 * time.Millisecond) // polling the standby's replication, a real process, with a deadline
	}
	if got := rcv.deliveries(); len(got) != 1 || got[0].event != "crashed" {
		t.Errorf("deliveries %+v, want the one crash", got)
	}
}
