package pgserver

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A standby streams what its primary commits and answers reads, refuses
// writes; killed, the primary's clients lose their connections; promoted,
// the standby takes writes on a new timeline and keeps what it had.
func TestStandbyStreamsAndIsPromotedWhenThePrimaryDies(t *testing.T) {
	t.Parallel()
	dir := traversableTempDir(t)
	ctx := context.Background()
	primary := startServer(t, Config{DataDir: filepath.Join(dir, "primary"), Ephemeral: true})
	p := connect(t, primary)
	if _, err := p.Exec(ctx, `CREATE TABLE t (n int); INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	log, _ := newTestLogger(t)
	startCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	standby, err := StartStandby(startCtx, Config{DataDir: filepath.Join(dir, "standby"), Ephemeral: true, Logger: log}, primary)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := standby.Stop(); err != nil {
			t.Errorf("Stop standby: %v", err)
		}
	})
	if _, err := p.Exec(ctx, `INSERT INTO t VALUES (2)`); err != nil {
		t.Fatal(err)
	}
	s := connect(t, standby)
	deadline := time.Now().Add(30 * time.Second)
	for {
		var n int
		if err := s.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby holds %d rows, want the primary's 2", n)
		}
		time.Sleep(10 * time.Millisecond) // polling replication
	}
	var pe *pgconn.PgError
	if _, err := s.Exec(ctx, `INSERT INTO t VALUES (3)`); !errors.As(err, &pe) || pe.Code != "25006" {
		t.Fatalf("a write on the standby: %v, want read_only_sql_transaction", err)
	}

	if err := primary.Kill(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Exec(ctx, `SELECT 1`); err == nil {
		t.Fatal("the killed primary's connection still answers")
	}
	if err := standby.Promote(ctx); err != nil {
		t.Fatal(err)
	}
	w, err := pgx.Connect(ctx, standby.ConnString("postgres")+" target_session_attrs=read-write")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close(ctx)
	if _, err := w.Exec(ctx, `INSERT INTO t VALUES (3)`); err != nil {
		t.Fatal(err)
	}
	var n, timeline int
	if err := w.QueryRow(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 3 {
		t.Errorf("the promoted standby holds %d rows (%v), want 3", n, err)
	}
	if err := w.QueryRow(ctx, `SELECT ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int`).Scan(&timeline); err != nil || timeline != 2 {
		t.Errorf("the promoted standby writes on timeline %d (%v), want 2", timeline, err)
	}
}
