// Package store holds all SQL of Launchwatch: launches, lines, alarms and
// migrations, on a pgx connection pool. Driver errors are turned into
// domain errors here (ErrNotFound) so handlers never see pgx.
package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrNotFound is returned when the requested row does not exist.
var ErrNotFound = errors.New("store: not found")

// Store is the database of Launchwatch.
type Store struct {
	pool       *pgxpool.Pool
	partitions partitionCache
}

// New returns a Store on pool. The caller keeps ownership of the pool.
func New(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool}
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
}

// WithTx runs fn in a transaction, committing when fn returns nil and
// rolling back otherwise. The rollback runs even when ctx is cancelled so a
// cancelled request never leaves a transaction open on a pooled connection.
func (s *Store) WithTx(ctx context.Context, fn func(*Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("store: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // a no-op after Commit
	if err := fn(&Tx{tx: tx}); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("store: commit: %w", err)
	}
	return nil
}

// IsUnavailable reports whether err means the database cannot be reached or
// is shutting down, so that a client should retry later (HTTP 503) rather
// than treat the request as failed for good.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code[:2] {
		case "08", "53", "57": // connection exception, insufficient resources, operator intervention
			return true
		}
		return pgErr.Code == "40001" || pgErr.Code == "40P01" // serialization failure, deadlock: retry
	}
	if pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	return pgconn.SafeToRetry(err)
}
