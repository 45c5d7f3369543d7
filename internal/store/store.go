// Package store holds all SQL of Launchwatch: launches, lines, alarms and
// migrations, on a pgx connection pool. Driver errors are turned into
// domain errors here (ErrNotFound) so handlers never see pgx.
package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNotFound is returned when the requested row does not exist.
var ErrNotFound = errors.New("store: not found")

// Store is the database of Launchwatch.
type Store struct {
	pool *pgxpool.Pool
	// replica serves the reads whose context asks for it (FromReplica):
	// a streaming standby, which may lag behind pool (replica.go).
	replica    *pgxpool.Pool
	partitions partitionCache
	// searchByRows reads every group of a search's candidates as its
	// blocks change under it (searchGroupInGo), for a test to compare.
	searchByRows bool
}

// Option configures a Store.
type Option func(*Store)

// New returns a Store on pool. The caller keeps ownership of the pools.
func New(pool *pgxpool.Pool, opts ...Option) *Store {
	s := &Store{pool: pool}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Pool returns the underlying pool, for health checks and metrics.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// Tx is a transaction on the store; its methods are the writes that must
// happen together with the lines of a batch.
type Tx struct {
	tx pgx.Tx
	// compacted holds the compacted_through of the launches this
	// transaction locked (LockLaunch): no block lies at or beyond it, so
	// ThawLines needs no statement for lines there.
	compacted map[int64]int64
	// audits are the audit events to write just before commit (AddAudit).
	audits []pendingAudit
}

// WithTx runs fn in a transaction, committing when fn returns nil and
// rolling back otherwise. The rollback runs even when ctx is cancelled so a
// cancelled request never leaves a transaction open on a pooled connection,
// but for a bounded time: a hung server must not hang the caller.
//
// An error that broke the connection is marked ErrUnavailable, whatever
// statement it hit. A commit whose answer was lost is asked about on another
// connection: nil if the transaction did commit (its work is stored), an
// ErrUnavailable error if it did not or nobody can tell.
func (s *Store) WithTx(ctx context.Context, fn func(*Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return unavailableIf(fmt.Errorf("store: begin: %w", err))
	}
	defer func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
		defer cancel()
		tx.Rollback(rctx) //nolint:errcheck // a no-op after Commit
	}()
	// The transaction's id is what tells, after a lost commit answer,
	// whether it committed; assigning it costs nothing extra, since every
	// transaction here writes. The same round trip bounds its statements
	// (a migration on the same pool is not bounded).
	var xid int64
	if err := tx.QueryRow(ctx, `SELECT txid_current(), set_config('statement_timeout', $1, true)`,
		statementTimeout).Scan(&xid, nil); err != nil {
		return unavailableIf(fmt.Errorf("store: begin: %w", err))
	}
	stx := &Tx{tx: tx}
	err = fn(stx)
	if err == nil {
		err = stx.flushAudit(ctx)
	}
	if err != nil {
		if tx.Conn().IsClosed() {
			// The connection broke under fn: whatever the statement, the
			// transaction is gone and the database is at fault.
			return unavailable(err)
		}
		return unavailableIf(err)
	}
	err = tx.Commit(ctx)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("store: commit: %w", err)
	if errors.Is(err, pgx.ErrTxCommitRollback) || !tx.Conn().IsClosed() && !IsUnavailable(err) {
		return err
	}
	committed, cerr := s.committed(context.WithoutCancel(ctx), xid)
	if cerr == nil && committed {
		return nil
	}
	return unavailable(err)
}

// rollbackTimeout bounds a rollback; past it the connection is dropped and
// the server rolls back by itself.
const rollbackTimeout = 2 * time.Second

// commitCheckTimeout bounds the question whether a transaction committed.
const commitCheckTimeout = 1500 * time.Millisecond

// committed asks the server, on another connection, whether transaction
// xid committed.
func (s *Store) committed(ctx context.Context, xid int64) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, commitCheckTimeout)
	defer cancel()
	var status *string
	if err := s.pool.QueryRow(ctx, `SELECT txid_status($1)`, xid).Scan(&status); err != nil {
		return false, fmt.Errorf("store: transaction status: %w", err)
	}
	return status != nil && *status == "committed", nil
}

// unavailableIf marks err ErrUnavailable when it is a database fault.
func unavailableIf(err error) error {
	if IsUnavailable(err) {
		return unavailable(err)
	}
	return err
}

// Probe asks the database, on a new connection of its own, whether it
// answers. The pool may be busy, or hold connections to a server that
// hangs: only a new connection tells a hung server from a busy pool.
func (s *Store) Probe(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("store: probe: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx)) //nolint:errcheck // a terminate message; the socket closes anyway
	if _, err := conn.Exec(ctx, `SELECT 1`); err != nil {
		return fmt.Errorf("store: probe: %w", err)
	}
	return nil
}

// statementTimeout bounds each statement of a transaction (WithTx): a
// runaway one ends rather than holding its launch's row lock.
const statementTimeout = "2min"

// Limits every connection of the pool gets unless the database URL sets
// its own: a transaction left idle by a hung client gives its row locks
// back, and a connection attempt to a server that does not answer gives up.
const (
	defaultIdleInTxTimeout     = "1min"
	defaultConnectTimeout      = 5 * time.Second
	idleInTransactionTimeoutPm = "idle_in_transaction_session_timeout"
)

// ConfigurePool sets the pool's connection deadlines where the connection
// string left them unset.
func ConfigurePool(cfg *pgxpool.Config) {
	cc := cfg.ConnConfig
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = defaultConnectTimeout
	}
	if cc.RuntimeParams == nil {
		cc.RuntimeParams = map[string]string{}
	}
	if _, ok := cc.RuntimeParams[idleInTransactionTimeoutPm]; !ok {
		cc.RuntimeParams[idleInTransactionTimeoutPm] = defaultIdleInTxTimeout
	}
}
