package storetest

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/pgserver"
	"launchwatch/internal/store"
)

// Pair is a primary and an asynchronous streaming standby of it, from
// Debian's server binaries: clusters of their own (not the shared test
// server), with database DB migrated on the primary and streamed to the
// standby. For tests of read replicas and failover.
type Pair struct {
	t                testing.TB
	Primary, Standby *pgserver.Server
	DB               string
}

// PairDB is the database a Pair migrates.
const PairDB = "launchwatch"

// NewPair starts a primary, migrates PairDB on it, starts a standby from a
// base backup and waits until it streams. Both are stopped and removed
// when the test ends. The primary commits synchronously (its own WAL
// flushed before a commit is acknowledged, PostgreSQL's default), so what
// separates the standby from the primary is replication alone.
func NewPair(t testing.TB) *Pair {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "lwpair-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	log := slog.New(slog.DiscardHandler)
	primary, err := pgserver.Start(ctx, pgserver.Config{DataDir: filepath.Join(dir, "primary"), Ephemeral: true, Logger: log,
		Settings: []string{"synchronous_commit=on"}})
	if err != nil {
		t.Fatalf("storetest: primary: %v", err)
	}
	p := &Pair{t: t, Primary: primary, DB: PairDB}
	t.Cleanup(func() {
		if err := primary.Stop(); err != nil {
			t.Errorf("storetest: stopping the primary: %v", err)
		}
	})
	if err := store.EnsureDatabase(ctx, primary.ConnString("postgres"), PairDB); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, primary.ConnString(PairDB))
	if err != nil {
		t.Fatal(err)
	}
	err = store.Migrate(ctx, pool, log)
	pool.Close()
	if err != nil {
		t.Fatalf("storetest: migrate the primary: %v", err)
	}
	standby, err := pgserver.StartStandby(ctx, pgserver.Config{DataDir: filepath.Join(dir, "standby"), Ephemeral: true, Logger: log}, primary)
	if err != nil {
		t.Fatalf("storetest: standby: %v", err)
	}
	p.Standby = standby
	t.Cleanup(func() {
		if err := standby.Stop(); err != nil {
			t.Errorf("storetest: stopping the standby: %v", err)
		}
	})
	p.WaitReplayed()
	return p
}

// PairPool is a pool on url (one of a Pair's), closed when the test ends.
func PairPool(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// PrimaryURL and StandbyURL connect to DB on one server each.
func (p *Pair) PrimaryURL() string { return p.Primary.ConnString(p.DB) }

// StandbyURL connects to DB on the standby.
func (p *Pair) StandbyURL() string { return p.Standby.ConnString(p.DB) }

// BothURL lists both servers, the primary first, for a client that wants
// whichever accepts writes (target_session_attrs=read-write): the
// DATABASE_URL of an HA set-up.
func (p *Pair) BothURL() string {
	return fmt.Sprintf("host=%s,%s port=5432,5432 user=postgres dbname=%s sslmode=disable target_session_attrs=read-write",
		p.Primary.SocketDir(), p.Standby.SocketDir(), p.DB)
}

// Exec runs a statement on server s's DB.
func (p *Pair) Exec(s *pgserver.Server, sql string, args ...any) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.ConnString(p.DB))
	if err != nil {
		p.t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		p.t.Fatalf("%s: %v", sql, err)
	}
}

// LSN reads one position in the log with sql on server s.
func (p *Pair) LSN(s *pgserver.Server, sql string) store.LSN {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.ConnString(p.DB))
	if err != nil {
		p.t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v *string
	if err := conn.QueryRow(ctx, sql).Scan(&v); err != nil {
		p.t.Fatalf("%s: %v", sql, err)
	}
	if v == nil {
		return 0
	}
	l, err := store.ParseLSN(*v)
	if err != nil {
		p.t.Fatal(err)
	}
	return l
}

// WaitReplayed waits until the standby has replayed everything the
// primary has written so far.
func (p *Pair) WaitReplayed() {
	p.t.Helper()
	want := p.LSN(p.Primary, `SELECT pg_current_wal_insert_lsn()::text`)
	p.WaitReplayedTo(want)
}

// WaitReplayedTo waits until the standby has replayed the log through l.
func (p *Pair) WaitReplayedTo(l store.LSN) {
	p.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := p.LSN(p.Standby, `SELECT pg_last_wal_replay_lsn()::text`)
		if got >= l {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("storetest: the standby replayed through %s, not %s", got, l)
		}
		time.Sleep(10 * time.Millisecond) // polling replication
	}
}

// PauseReplay has the standby stop applying what it receives (it still
// receives it): its reads stay where they are until ResumeReplay.
func (p *Pair) PauseReplay() {
	p.t.Helper()
	p.Exec(p.Standby, `SELECT pg_wal_replay_pause()`)
	deadline := time.Now().Add(time.Minute)
	for p.replayState() != "paused" {
		if time.Now().After(deadline) {
			p.t.Fatal("storetest: the standby's replay does not pause")
		}
		time.Sleep(10 * time.Millisecond) // polling the startup process
	}
}

// ResumeReplay undoes PauseReplay.
func (p *Pair) ResumeReplay() {
	p.t.Helper()
	p.Exec(p.Standby, `SELECT pg_wal_replay_resume()`)
}

func (p *Pair) replayState() string {
	p.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, p.Standby.ConnString(p.DB))
	if err != nil {
		p.t.Fatal(err)
	}
	defer conn.Close(ctx)
	var st string
	if err := conn.QueryRow(ctx, `SELECT pg_get_wal_replay_pause_state()`).Scan(&st); err != nil {
		p.t.Fatal(err)
	}
	return st
}

// StopReceiving freezes the standby's WAL receiver (SIGSTOP): the primary
// goes on acknowledging commits the standby never gets (beyond what the
// socket between them buffers). The returned function lets it go on
// (SIGCONT).
func (p *Pair) StopReceiving() (resume func()) {
	p.t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, p.Standby.ConnString(p.DB))
	if err != nil {
		p.t.Fatal(err)
	}
	defer conn.Close(ctx)
	var pid int
	if err := conn.QueryRow(ctx, `SELECT pid FROM pg_stat_wal_receiver`).Scan(&pid); err != nil {
		p.t.Fatalf("storetest: the standby's WAL receiver: %v", err)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		p.t.Fatal(err)
	}
	resumed := false
	resume = func() {
		if !resumed {
			resumed = true
			syscall.Kill(pid, syscall.SIGCONT) //nolint:errcheck // gone already: nothing to resume
		}
	}
	p.t.Cleanup(resume)
	return resume
}

// CutReplication ends the primary's WAL senders (pg_terminate_backend), as
// wal_sender_timeout does to a standby that stopped answering, and waits
// until pg_stat_replication lists none. A standby whose WAL receiver is
// frozen (StopReceiving) stays away until it is resumed; its replication
// slot stays, inactive, with the flush position the standby last
// confirmed.
func (p *Pair) CutReplication() {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.PrimaryURL())
	if err != nil {
		p.t.Fatal(err)
	}
	defer conn.Close(ctx)
	for {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_replication`).Scan(&n); err != nil {
			p.t.Fatalf("storetest: cutting replication: %v", err)
		}
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond) // polling the WAL senders' exit
	}
}

// KillPrimary kills the primary as a machine losing power would: every
// process of it stops, then all die.
func (p *Pair) KillPrimary() {
	p.t.Helper()
	if err := p.Primary.Kill(); err != nil {
		p.t.Fatal(err)
	}
}

// KillPrimaryPostmaster kills the primary's postmaster alone: its WAL
// senders exit at once, a backend in the middle of a statement finishes it
// first (pgserver.Server.KillPostmaster).
func (p *Pair) KillPrimaryPostmaster() {
	p.t.Helper()
	if err := p.Primary.KillPostmaster(); err != nil {
		p.t.Fatal(err)
	}
}

// Promote makes the standby the primary.
func (p *Pair) Promote() {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := p.Standby.Promote(ctx); err != nil {
		p.t.Fatal(err)
	}
}

// String names the two servers, for failure messages.
func (p *Pair) String() string {
	return strings.Join([]string{"primary " + p.Primary.Dir(), "standby " + p.Standby.Dir()}, ", ")
}
