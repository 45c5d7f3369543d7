package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Reads from a replica. Every statement of a transaction, every write,
// and every read whose context does not ask for it goes to the primary
// (the pool New was given). A read made with a context from FromReplica
// goes to the replica when the store has one (WithReplica): a streaming
// standby (--database-read-url), whose data may lag behind the primary's.
// internal/web asks for it on the page reads (list, launch, log, search,
// compare) of anyone who has not written since the replica last caught up
// (read-your-writes: LSN, ReplayedLSN).

// WithReplica gives the store a pool on a replica for the reads that ask
// for one.
func WithReplica(replica *pgxpool.Pool) Option {
	return func(s *Store) { s.replica = replica }
}

type replicaKey struct{}

// FromReplica marks ctx: the store's reads made with it may be served by
// the replica, and so may miss the latest writes.
func FromReplica(ctx context.Context) context.Context {
	return context.WithValue(ctx, replicaKey{}, true)
}

// FromPrimary takes FromReplica's mark off ctx: reads that must see what
// was just written (a write's own reads back).
func FromPrimary(ctx context.Context) context.Context {
	if ctx.Value(replicaKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, replicaKey{}, nil)
}

// HasReplica reports whether the store has a replica.
func (s *Store) HasReplica() bool { return s.replica != nil }

// Replica returns the replica's pool, nil when there is none.
func (s *Store) Replica() *pgxpool.Pool { return s.replica }

// read is the pool a read outside a transaction runs on.
func (s *Store) read(ctx context.Context) *pgxpool.Pool {
	if s.replica != nil && ctx.Value(replicaKey{}) == true {
		return s.replica
	}
	return s.pool
}

// LSN is a position in PostgreSQL's write-ahead log: what a standby has
// replayed is compared with where a write ended.
type LSN uint64

// String writes l as PostgreSQL does (16/B374D848).
func (l LSN) String() string { return fmt.Sprintf("%X/%X", uint64(l)>>32, uint64(l)&0xFFFFFFFF) }

// ParseLSN reads an LSN as PostgreSQL writes it.
func ParseLSN(s string) (LSN, error) {
	hi, lo, ok := strings.Cut(s, "/")
	if !ok || hi == "" || lo == "" || len(hi) > 8 || len(lo) > 8 {
		return 0, errors.New("store: not an LSN: " + strconv.Quote(s))
	}
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if err1 != nil || err2 != nil {
		return 0, errors.New("store: not an LSN: " + strconv.Quote(s))
	}
	return LSN(h<<32 | l), nil
}

// WrittenLSN is where the primary's log ends now: a read that must see
// the writes made before this call waits for a replica to replay this far.
func (s *Store) WrittenLSN(ctx context.Context) (LSN, error) {
	var v string
	if err := s.pool.QueryRow(ctx, `SELECT pg_current_wal_insert_lsn()::text`).Scan(&v); err != nil {
		return 0, fmt.Errorf("store: written LSN: %w", err)
	}
	return ParseLSN(v)
}

// ReplayedLSN is how far the replica has replayed the primary's log;
// primary is true when the replica is not in recovery (it was promoted,
// or is a primary itself): it then holds every write it will ever get.
func (s *Store) ReplayedLSN(ctx context.Context) (l LSN, primary bool, err error) {
	if s.replica == nil {
		return 0, true, nil
	}
	var v *string
	if err := s.replica.QueryRow(ctx, `SELECT pg_last_wal_replay_lsn()::text`).Scan(&v); err != nil {
		return 0, false, fmt.Errorf("store: replayed LSN: %w", unavailable(err))
	}
	if v == nil {
		return 0, true, nil
	}
	l, err = ParseLSN(*v)
	return l, false, err
}
