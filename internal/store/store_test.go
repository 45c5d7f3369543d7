package store_test

import (
	"context"
	"log/slog"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

func TestMigrateUpThenDownToZeroAndBackUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t) // already at the latest version
	tables := func() int {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename IN ('launches', 'lines', 'alarms', 'rules', 'annotations', 'incidents', 'audit_events')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := tables(); got != 7 {
		t.Fatalf("after up: %d of 7 tables", got)
	}
	if err := store.MigrateDownAll(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if got := tables(); got != 0 {
		t.Fatalf("after down: %d tables left", got)
	}
	if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if got := tables(); got != 7 {
		t.Fatalf("after up again: %d of 7 tables", got)
	}
}

func TestEnsureLaunchCreatesOnceAndPartitions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	id1, err := st.EnsureLaunch(ctx, "a", launchid.Attrs{Server: "sglang"})
	if err != nil {
		t.Fatal(err)
	}
	id2, err := st.EnsureLaunch(ctx, "a", launchid.Attrs{Server: "vllm"})
	if err != nil {
		t.Fatal(err)
	}
	if id1 != id2 {
		t.Fatalf("same key gave two launches: %d and %d", id1, id2)
	}
	id3, err := st.EnsureLaunch(ctx, "b", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	if id3 != id1+1 {
		t.Errorf("second launch has id %d, want %d: ids must stay dense (they pick the line partition)", id3, id1+1)
	}
	l, err := st.LaunchByKey(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if l.Server != "sglang" || l.Status != "starting" {
		t.Errorf("launch = server %q status %q, want sglang starting", l.Server, l.Status)
	}
	var parts int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'lines'::regclass`).Scan(&parts); err != nil {
		t.Fatal(err)
	}
	if parts != 1 {
		t.Errorf("lines has %d partitions, want 1", parts)
	}
	if _, err := st.LaunchByKey(ctx, "missing"); err != store.ErrNotFound {
		t.Errorf("missing launch: err = %v, want ErrNotFound", err)
	}
}

func TestDecideOpenAlarmKeepsAnEarlierDecision(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	id, err := st.EnsureLaunch(ctx, "bulk", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	alarm := classify.Alarm{ID: 1, FirstSeq: 1, LastSeq: 3, Kind: classify.AlarmTraceback, Fatal: true,
		Headline: "KeyError: 'x'", HeadlineSeq: 3, Template: "KeyError: <str>", Fingerprint: "f", Ranks: 1}
	second := alarm
	second.ID = 2
	decided := func(no int) bool {
		var ok bool
		err := st.WithTx(ctx, func(tx *store.Tx) error {
			var err error
			ok, err = tx.DecideOpenAlarm(ctx, id, no, "dismissed", "bob", "bulk")
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		if err := tx.UpsertAlarms(ctx, id, []classify.Alarm{alarm, second}); err != nil {
			return err
		}
		_, err := tx.SetAlarmDecision(ctx, id, 1, "confirmed", "ada", "real crash")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if decided(1) {
		t.Error("a bulk dismissal overwrote ada's confirmation")
	}
	if !decided(2) {
		t.Error("a bulk dismissal did not decide an open alarm")
	}
	alarms, err := st.Alarms(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if alarms[0].State != "confirmed" || *alarms[0].DecidedBy != "ada" || alarms[1].State != "dismissed" {
		t.Errorf("alarms = %s by %s, %s", alarms[0].State, *alarms[0].DecidedBy, alarms[1].State)
	}
}
