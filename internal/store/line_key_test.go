package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
	"launchwatch/migrations"
)

// TestLineKeysPartitionedWithLines: migration 4 gives every existing lines
// partition a line_keys partition with the same bounds, new launches get
// both, and keys are found again.
func TestLineKeysPartitionedWithLines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	id, err := st.EnsureLaunch(ctx, "a", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	// Back to before line_keys, with a lines partition in place, and up again.
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	var bounds, keyBounds string
	err = pool.QueryRow(ctx, `
		SELECT pg_get_expr(l.relpartbound, l.oid), pg_get_expr(k.relpartbound, k.oid)
		FROM pg_class l, pg_class k WHERE l.relname = 'lines_p000000' AND k.relname = 'line_keys_p000000'`).Scan(&bounds, &keyBounds)
	if err != nil {
		t.Fatalf("the line_keys partition beside lines_p000000: %v", err)
	}
	if bounds != keyBounds {
		t.Errorf("line_keys partition bounds %q, want those of lines %q", keyBounds, bounds)
	}

	key := []byte("0123456789abcdef")
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		return tx.CopyLineKeys(ctx, id, []store.LineKey{{Key: key, Seq: 1}})
	})
	if err != nil {
		t.Fatal(err)
	}
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		found, err := tx.ExistingLineKeys(ctx, id, [][]byte{key, []byte("other")})
		if err != nil {
			return err
		}
		if !found[string(key)] || len(found) != 1 {
			t.Errorf("existing keys %v, want only the stored one", found)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
