package store_test

import (
	"context"
	"log/slog"
	"testing"

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
	id1, err := st.EnsureLaunch(ctx, "a", store.LaunchAttrs{Server: "sglang"})
	if err != nil {
		t.Fatal(err)
	}
	id2, err := st.EnsureLaunch(ctx, "a", store.LaunchAttrs{Server: "vllm"})
	if err != nil {
		t.Fatal(err)
	}
	if id1 != id2 {
		t.Fatalf("same key gave two launches: %d and %d", id1, id2)
	}
	id3, err := st.EnsureLaunch(ctx, "b", store.LaunchAttrs{})
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
