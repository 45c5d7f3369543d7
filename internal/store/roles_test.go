package store_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
	"launchwatch/internal/upkeep"
)

// appRoleDB is a test database migrated by its owner (the test server's
// superuser) and a pool on it as an app role given its grants by
// store.GrantApp, as cmd/web serves with --database-owner-url.
func appRoleDB(t *testing.T) (owner, app *pgxpool.Pool, role string) {
	t.Helper()
	ctx := context.Background()
	admin := storetest.ServerURL(t, "postgres")
	b := make([]byte, 6)
	rand.Read(b) //nolint:errcheck // never fails
	role, password := "lw_app_"+hex.EncodeToString(b), hex.EncodeToString(b)+"-pw"
	exec := func(sql string) error {
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec(`CREATE ROLE ` + role + ` LOGIN PASSWORD '` + password + `'`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the database is dropped (cleanups run last first)
		if err := exec(`DROP ROLE IF EXISTS ` + role); err != nil {
			t.Logf("drop role %s: %v", role, err)
		}
	})
	owner, dbURL := storetest.NewDB(t)
	if err := store.GrantApp(ctx, owner, role); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.User, cfg.ConnConfig.Password = role, password
	app, err = pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	return owner, app, role
}

func wantDenied(t *testing.T, pool *pgxpool.Pool, sql string) {
	t.Helper()
	_, err := pool.Exec(context.Background(), sql)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "42501" { // insufficient_privilege
		t.Errorf("%s as the app role: %v, want permission denied", sql, err)
	}
}

// The role that serves requests cannot change the audit log: not get round
// its append-only trigger (only the table's owner may alter it), not
// update, delete or truncate it, not touch the chain's head, not become
// another role. It may add audit events, and they are chained.
func TestAppRoleCannotRewriteTheAuditLog(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	owner, app, _ := appRoleDB(t)
	st := store.New(app)
	if err := st.WithTx(ctx, func(tx *store.Tx) error {
		return tx.AddAudit(ctx, store.AuditEvent{Actor: "ada", Action: "rule.create", Subject: "rule:1"})
	}); err != nil {
		t.Fatalf("the app role adds an audit event: %v", err)
	}
	for _, sql := range []string{
		`ALTER TABLE audit_events DISABLE TRIGGER USER`,
		`ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only`,
		`UPDATE audit_events SET actor = 'someone else'`,
		`DELETE FROM audit_events`,
		`TRUNCATE audit_events`,
		`UPDATE audit_chain SET seq = 0`,
		`DROP TABLE audit_events`,
		`ALTER TABLE audit_events OWNER TO CURRENT_USER`,
		`DROP TRIGGER audit_events_chain ON audit_events`,
		`CREATE OR REPLACE FUNCTION audit_events_chain() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`,
	} {
		wantDenied(t, app, sql)
	}
	if _, err := app.Exec(ctx, `SET ROLE postgres`); err == nil {
		t.Errorf("the app role became postgres")
	}
	// A row it inserts with a forged place and hash is chained all the same.
	if _, err := app.Exec(ctx, `INSERT INTO audit_events (actor, action, subject, chain_seq, hash) VALUES ('x', 'y', 'z', 99, '\x00')`); err != nil {
		t.Fatal(err)
	}
	if n := checkChain(t, store.New(owner)); n != 2 {
		t.Errorf("%d rows chained, want 2", n)
	}
}

// Everything the server does with its database works as the app role:
// ingest making line partitions, reads, deletion, retention dropping whole
// partitions, compaction, and the audit events each writes.
func TestAppRoleServes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ownerPool, app, role := appRoleDB(t)
	st := store.New(app)
	pipe := pipeline.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for i := range 3 {
		key := fmt.Sprintf("as-app-%d", i)
		lines := []decode.Line{{Seq: 1, Text: "INFO engine: loading"}, {Seq: 2, Text: "Traceback (most recent call last):"},
			{Seq: 3, Text: `  File "x.py", line 1, in <module>`}, {Seq: 4, Text: "RuntimeError: boom"}}
		if _, err := pipe.Ingest(ctx, key, launchid.Attrs{Server: "sglang"}, lines); err != nil {
			t.Fatalf("ingest as the app role: %v", err)
		}
	}
	var owner string
	if err := app.QueryRow(ctx, `SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'lines_p000000'`).Scan(&owner); err != nil || owner != role {
		t.Errorf("the partition ingest made is %q's (%v), want the app role's", owner, err)
	}
	if _, err := st.DeleteLaunch(ctx, "as-app-0", "ada"); err != nil {
		t.Fatalf("delete as the app role: %v", err)
	}
	if _, err := upkeep.CompactOnce(ctx, st, time.Now().Add(time.Hour), 0); err != nil {
		t.Fatalf("compaction as the app role: %v", err)
	}
	if _, err := st.PackRetiredPartitions(ctx); err != nil {
		t.Fatalf("packing as the app role: %v", err)
	}
	// The block's launch ids are used up (as after 4096 launches), so
	// retention drops its partitions whole.
	if _, err := ownerPool.Exec(ctx, `SELECT setval(pg_get_serial_sequence('launches', 'id'), 4096)`); err != nil {
		t.Fatal(err)
	}
	res, err := st.ApplyRetention(ctx, time.Now().Add(24*time.Hour))
	if err != nil || res.Launches != 2 {
		t.Fatalf("retention as the app role: %+v, %v; want the 2 launches left expired", res, err)
	}
	var parts int
	if err := app.QueryRow(ctx, `SELECT count(*) FROM pg_class WHERE relname ~ '^(lines|line_keys|line_blocks)_p' AND relkind = 'r'`).Scan(&parts); err != nil || parts != 0 {
		t.Errorf("%d line partitions after retention dropped the block (%v), want 0", parts, err)
	}
	if n := checkChain(t, st); n != 3 { // a deletion and two expiries
		t.Errorf("%d audit rows chained, want 3", n)
	}
}

// A database a server without roles migrated as the superuser (every
// database before there were roles) is handed to an owner role, which
// migrates and grants an app role, which then serves; the owner may get
// round the audit log's trigger, the app may not.
func TestPrepareRolesAdoptsASuperusersSchema(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin := storetest.ServerURL(t, "postgres")
	b := make([]byte, 6)
	rand.Read(b) //nolint:errcheck // never fails
	owner, app, password := "lw_owner_"+hex.EncodeToString(b), "lw_app_"+hex.EncodeToString(b), hex.EncodeToString(b)+"-pw"
	exec := func(sql string) error {
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	for _, r := range []string{owner, app} {
		if err := exec(`CREATE ROLE ` + r + ` LOGIN PASSWORD '` + password + `'`); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := exec(`DROP ROLE IF EXISTS ` + r); err != nil {
				t.Logf("drop role %s: %v", r, err)
			}
		})
	}
	super, dbURL := storetest.NewDB(t) // migrated as the superuser
	if err := store.PrepareRoles(ctx, dbURL, owner, app); err != nil {
		t.Fatal(err)
	}
	as := func(role string) *pgxpool.Pool {
		cfg, err := pgxpool.ParseConfig(dbURL)
		if err != nil {
			t.Fatal(err)
		}
		cfg.ConnConfig.User, cfg.ConnConfig.Password = role, password
		p, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		return p
	}
	ownerPool, appPool := as(owner), as(app)
	if err := store.Migrate(ctx, ownerPool, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatalf("the owner migrates: %v", err)
	}
	if err := store.GrantApp(ctx, ownerPool, app); err != nil {
		t.Fatal(err)
	}
	var left []string
	rows, err := super.Query(ctx, `SELECT relname::text FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
		UNION ALL SELECT proname::text FROM pg_proc WHERE pronamespace = 'public'::regnamespace AND proowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)`)
	if err == nil {
		left, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil || len(left) > 0 {
		t.Errorf("the superuser still owns %q (%v)", left, err)
	}
	pipe := pipeline.New(store.New(appPool), slog.New(slog.DiscardHandler))
	if _, err := pipe.Ingest(ctx, "adopted", launchid.Attrs{}, []decode.Line{{Seq: 1, Text: "INFO up"}}); err != nil {
		t.Fatalf("ingest as the app role: %v", err)
	}
	wantDenied(t, appPool, `ALTER TABLE audit_events DISABLE TRIGGER USER`)
	if _, err := ownerPool.Exec(ctx, `ALTER TABLE audit_events DISABLE TRIGGER USER`); err != nil {
		t.Errorf("the owner may alter the audit log (and the chain shows what it changes): %v", err)
	}
	if may, err := store.MayChangeAuditLog(ctx, appPool); err != nil || may {
		t.Errorf("MayChangeAuditLog(app) = %v, %v", may, err)
	}
	if may, err := store.MayChangeAuditLog(ctx, ownerPool); err != nil || !may {
		t.Errorf("MayChangeAuditLog(owner) = %v, %v", may, err)
	}
	// The app role a member of the owner's would defeat it all; PostgreSQL
	// refuses the circle (and GrantApp would refuse such an app role).
	var pgErr *pgconn.PgError
	if err := exec(`GRANT ` + owner + ` TO ` + app); !errors.As(err, &pgErr) || pgErr.Code != "0LP01" {
		t.Errorf("making the app role a member of the owner's: %v, want invalid_grant_operation", err)
	}
}
