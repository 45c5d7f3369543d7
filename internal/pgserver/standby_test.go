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

// Kill stops every process of the server before it kills any, and
// returns once all are dead: a backend in the middle of a statement that
// never waits (so never notices the postmaster's death) runs no further.
// Each child of the postmaster is a process group of its own (setsid), so
// a signal to the postmaster's group alone would leave it running.
func TestKillEndsEveryProcess(t *testing.T) {
	t.Parallel()
	dir := traversableTempDir(t)
	ctx := context.Background()
	s := startServer(t, Config{DataDir: filepath.Join(dir, "pg"), Ephemeral: true})
	busy, watch := connect(t, s), connect(t, s)
	var pid int
	if err := busy.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	answered := make(chan error, 1)
	go func() {
		// Hours of work that checks for nothing but interrupts.
		_, err := busy.Exec(context.Background(), `SELECT count(*) FROM generate_series(1, 1e12::bigint)`)
		answered <- err
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var active bool
		if err := watch.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity WHERE pid = $1 AND state = 'active')`, pid).Scan(&active); err != nil {
			t.Fatal(err)
		}
		if active {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the busy statement did not start")
		}
		time.Sleep(10 * time.Millisecond) // polling pg_stat_activity
	}
	if err := s.Kill(); err != nil {
		t.Fatal(err)
	}
	if processRuns(pid) {
		t.Fatalf("backend %d runs on after Kill returned", pid)
	}
	if err := <-answered; err == nil {
		t.Fatal("the busy statement was answered")
	}
}
