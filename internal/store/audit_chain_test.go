package store_test

import (
	"context"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"launchwatch/internal/auditchain"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// checkChain reads the whole chain and checks it as `launchwatch audit
// verify` does, returning its length.
func checkChain(t *testing.T, st *store.Store) int64 {
	t.Helper()
	ctx := context.Background()
	head, err := st.AuditChainHead(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.AuditChain(ctx, 0, head.Seq, 100000)
	if err != nil {
		t.Fatal(err)
	}
	v := auditchain.NewVerifier()
	for _, r := range rows {
		row := auditchain.Row{Seq: r.Seq, ID: r.ID, AtMicro: r.At.UnixMicro(), Actor: r.Actor, Action: r.Action, Subject: r.Subject, Detail: r.Detail}
		if err := v.Check(row, r.Hash); err != nil {
			t.Fatalf("%v (hash %s)", err, hex.EncodeToString(r.Hash))
		}
	}
	if err := v.End(head.Seq, head.Hash); err != nil {
		t.Fatal(err)
	}
	return v.Rows()
}

// The hash the database computes when a row is inserted is the one Go
// computes from what the API shows, whatever the row holds: text in any
// script, newlines, quotes, a field that looks like the format's
// separators, nested and numeric JSON, and transactions of many rows.
func TestAuditChainMatchesGo(t *testing.T) {
	t.Parallel()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	ctx := context.Background()
	tricky := []store.AuditEvent{
		{Actor: "ada", Action: "rule.create", Subject: "rule:1", Detail: map[string]any{"reason": "línea\n\"two\"\t3:4\n", "n": 1.5e300, "z": []any{nil, true, "x"}}},
		{Actor: "用户", Action: "alarm.dismiss", Subject: "alarm:k/1", Detail: map[string]any{"b": map[string]any{"y": 1, "a": -2.5e-7}, "a": "\u2028"}},
		{Actor: "2:ab\n", Action: "x", Subject: ""},
	}
	for _, e := range tricky {
		if err := st.WithTx(ctx, func(tx *store.Tx) error { return tx.AddAudit(ctx, e) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.WithTx(ctx, func(tx *store.Tx) error {
		for i := range 50 {
			if err := tx.AddAudit(ctx, store.AuditEvent{Actor: "bulk", Action: "alarm.confirm", Subject: fmt.Sprintf("alarm:k/%d", i)}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n := checkChain(t, st); n != 53 {
		t.Errorf("%d rows chained, want 53", n)
	}
}

// Transactions that audit at once make one chain: every place once, each
// hash following the one before.
func TestAuditChainStaysOneLineUnderConcurrency(t *testing.T) {
	t.Parallel()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 15 {
				err := st.WithTx(ctx, func(tx *store.Tx) error {
					for j := range 2 {
						if err := tx.AddAudit(ctx, store.AuditEvent{Actor: fmt.Sprintf("w%d", w), Action: "test", Subject: fmt.Sprintf("%d/%d", i, j)}); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := checkChain(t, st); n != 8*15*2 {
		t.Errorf("%d rows chained, want %d", n, 8*15*2)
	}
}

// Rows written before the chain existed are chained by its migration, in
// id order, and rows after continue the chain.
func TestAuditChainMigrationChainsEarlierRows(t *testing.T) {
	t.Parallel()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	ctx := context.Background()
	if err := store.MigrateDownTo(ctx, pool, 29); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := pool.Exec(ctx, `INSERT INTO audit_events (actor, action, subject, detail) VALUES ($1, 'old', 'x', '{"k": [1, 2]}')`, fmt.Sprint("before-", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	if err := st.WithTx(ctx, func(tx *store.Tx) error { return tx.AddAudit(ctx, store.AuditEvent{Actor: "after", Action: "new"}) }); err != nil {
		t.Fatal(err)
	}
	if n := checkChain(t, st); n != 6 {
		t.Errorf("%d rows chained, want 6", n)
	}
}

// What the delivery log kept of targets' answers before migration 00031
// goes: the status stays, the body does not; other errors stay as they are.
func TestMigrationDropsKeptAnswerBodies(t *testing.T) {
	t.Parallel()
	pool, _ := storetest.NewDB(t)
	ctx := context.Background()
	if err := store.MigrateDownTo(ctx, pool, 30); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`INSERT INTO webhooks (url, format, events, created_by) VALUES ('http://10.0.0.9/', 'json', '{crashed}', 'ada')`,
		`INSERT INTO webhook_events (kind) VALUES ('test'), ('test')`,
		`INSERT INTO webhook_deliveries (webhook_id, event_id, kind, body, next_at, created_at, last_status, last_error)
			VALUES (1, 1, 'test', '{}', now(), now(), 401, 'HTTP 401: <html>internal admin page: password=hunter2'),
			(1, 2, 'test', '{}', now(), now(), NULL, 'dial tcp 10.0.0.9:80: connect: connection refused')`,
	} {
		if _, err := pool.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT last_error FROM webhook_deliveries ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if len(got) != 2 || got[0] != "HTTP 401" || got[1] != "dial tcp 10.0.0.9:80: connect: connection refused" {
		t.Errorf("last errors after the migration: %q", got)
	}
}
