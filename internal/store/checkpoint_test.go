package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestCheckpointStatesAreLZ4 checks that a classifier checkpoint large
// enough to be compressed is stored compressed with lz4 (migration 00021),
// not the default pglz, and reads back whole.
func TestCheckpointStatesAreLZ4(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	id, err := st.EnsureLaunch(ctx, "checkpointed", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	state := []byte(`{"events":[` + strings.Repeat(`{"src":"rank0","st":2,"headline":"RuntimeError: CUDA error"},`, 120) + `{}]}`)
	if err := st.WithTx(ctx, func(tx *store.Tx) error {
		return tx.SaveCheckpoints(ctx, id, []store.Checkpoint{{Seq: 256, State: state}})
	}); err != nil {
		t.Fatal(err)
	}
	var method string
	var back []byte
	if err := pool.QueryRow(ctx, `SELECT coalesce(pg_column_compression(state), 'none'), state FROM classifier_checkpoints WHERE launch_id = $1 AND seq = 256`, id).Scan(&method, &back); err != nil {
		t.Fatal(err)
	}
	if method != "lz4" || string(back) != string(state) {
		t.Fatalf("checkpoint stored with %s compression, %d of %d bytes back", method, len(back), len(state))
	}
}

// TestSaveCheckpointsReplacesAndAdds: checkpoints at seqs already stored
// (a gap fill's replay) replace them, later ones (a growing launch's) are
// added, whatever order they come in.
func TestSaveCheckpointsReplacesAndAdds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	id, err := st.EnsureLaunch(ctx, "checkpoints", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	save := func(cs ...store.Checkpoint) {
		t.Helper()
		if err := st.WithTx(ctx, func(tx *store.Tx) error { return tx.SaveCheckpoints(ctx, id, cs) }); err != nil {
			t.Fatal(err)
		}
	}
	save(store.Checkpoint{Seq: 256, State: []byte("a")}, store.Checkpoint{Seq: 512, State: []byte("b")})
	save(store.Checkpoint{Seq: 1024, State: []byte("d")}, store.Checkpoint{Seq: 256, State: []byte("A")},
		store.Checkpoint{Seq: 768, State: []byte("c")}, store.Checkpoint{Seq: 512, State: []byte("B")})
	save() // nothing to save
	rows, err := pool.Query(ctx, `SELECT seq || '=' || convert_from(state, 'UTF8') FROM classifier_checkpoints WHERE launch_id = $1 ORDER BY seq`, id)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"256=A", "512=B", "768=c", "1024=d"}; !slices.Equal(got, want) {
		t.Fatalf("checkpoints %v, want %v", got, want)
	}
}
