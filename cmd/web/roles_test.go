package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// socketDirOf is the private cluster's socket directory, from the fifth
// line of its postmaster.pid.
func socketDirOf(t *testing.T, dataDir string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dataDir, "pg", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 5 || lines[4] == "" {
		t.Fatalf("postmaster.pid has no socket directory: %q", data)
	}
	return lines[4]
}

func connectAs(t *testing.T, sockDir, user string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, "host="+sockDir+" port=5432 dbname=launchwatch sslmode=disable user="+user)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// With the private PostgreSQL (make run), the server does not serve as the
// cluster's superuser: migrations ran as launchwatch_owner, and every
// connection that serves requests is launchwatch_app, which can neither get
// round the audit log's append-only trigger nor update, delete or truncate
// it.
func TestPrivateClusterServesAsTheAppRole(t *testing.T) {
	t.Parallel()
	dataDir := publicTempDir(t)
	web := startWeb(t, dataDir)
	if ack := web.post("/api/v1/launches/roles/lines?server=sglang", "one\ntwo\n"); ack["accepted"] != 2.0 {
		t.Fatalf("ack = %v", ack)
	}
	ctx := context.Background()
	sock := socketDirOf(t, dataDir)
	super := connectAs(t, sock, "postgres")
	rows, err := super.Query(ctx, `SELECT DISTINCT usename::text FROM pg_stat_activity
		WHERE datname = 'launchwatch' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`)
	if err != nil {
		t.Fatal(err)
	}
	users, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || !slices.Equal(users, []string{"launchwatch_app"}) {
		t.Errorf("the server's connections are %q (%v), want launchwatch_app's alone", users, err)
	}
	var owner string
	if err := super.QueryRow(ctx, `SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'audit_events'::regclass`).Scan(&owner); err != nil || owner != "launchwatch_owner" {
		t.Errorf("audit_events belongs to %q (%v), want launchwatch_owner", owner, err)
	}
	app := connectAs(t, sock, "launchwatch_app")
	for _, sql := range []string{
		`ALTER TABLE audit_events DISABLE TRIGGER USER`,
		`UPDATE audit_events SET actor = 'someone else'`,
		`DELETE FROM audit_events`,
		`TRUNCATE audit_events`,
	} {
		_, err := app.Exec(ctx, sql)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42501" {
			t.Errorf("%s as launchwatch_app: %v, want permission denied", sql, err)
		}
	}
	if err := web.stop(syscall.SIGTERM); err != nil {
		t.Fatalf("exit: %v", err)
	}
	if strings.Contains(web.logs.String(), "owns the audit log") {
		t.Errorf("the private cluster warns that the serving role owns the audit log:\n%s", web.logs)
	}
}
