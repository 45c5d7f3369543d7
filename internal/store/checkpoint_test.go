package store_test

import (
	"context"
	"strings"
	"testing"

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
	id, err := st.EnsureLaunch(ctx, "checkpointed", store.LaunchAttrs{})
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
