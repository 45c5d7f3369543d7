package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Reads from a replica. Every statement of a transaction, every write,
// and every read whose context does not ask for it goes to the primary
// (the pool New was given). A read made with a context from UseReplica
// goes to the replica connection it names (WithReplica, ReplicaReads): a
// streaming standby (--database-read-url), whose data may lag behind the
// primary's.
// internal/web asks for it on the page reads (list, launch, log, search,
// compare) of anyone who has not written since the replica last caught up
// (read-your-writes: WrittenLSN, ReplicaReads.Replayed).

// WithReplica gives the store a pool on a replica for the reads that ask
// for one.
func WithReplica(replica *pgxpool.Pool) Option {
	return func(s *Store) { s.replica = replica }
}

type replicaKey struct{}

// querier is what a read outside a transaction runs on: the primary's
// pool, or the one replica connection of a request (FromReplica).
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// ReplicaReads is what a request reads from a replica with: one
// connection of the replica for all its reads, so that they see one
// standby at one place in its replay (a read URL may name several
// standbys: each connection may be to another, at another place).
type ReplicaReads struct {
	conn *pgxpool.Conn
}

// Release gives the connection back; the reads of the context end.
func (r *ReplicaReads) Release() { r.conn.Release() }

// Replayed is how far the connection's standby has replayed the primary's
// log; promoted is true when it is not in recovery (a primary now: it
// holds every write). An error is ErrUnavailable.
func (r *ReplicaReads) Replayed(ctx context.Context) (l LSN, promoted bool, err error) {
	var v *string
	if err := r.conn.QueryRow(ctx, `SELECT pg_last_wal_replay_lsn()::text`).Scan(&v); err != nil {
		return 0, false, fmt.Errorf("store: replayed LSN: %w", unavailable(err))
	}
	if v == nil {
		return 0, true, nil
	}
	l, err = ParseLSN(*v)
	return l, false, err
}

// ReplicaReads takes a connection of the replica; UseReplica then has a
// context's reads served by it. Call Release when the reads are done. It
// fails when the store has no replica or the replica does not answer (an
// ErrUnavailable).
func (s *Store) ReplicaReads(ctx context.Context) (*ReplicaReads, error) {
	if s.replica == nil {
		return nil, errors.New("store: no replica")
	}
	conn, err := s.replica.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: replica: %w", unavailable(err))
	}
	return &ReplicaReads{conn: conn}, nil
}

// UseReplica marks ctx: the store's reads made with it outside a
// transaction are served by r's connection, and so may miss the latest
// writes. Reads are made one at a time on it (a page's reads are).
func UseReplica(ctx context.Context, r *ReplicaReads) context.Context {
	return context.WithValue(ctx, replicaKey{}, r)
}

// FromPrimary takes UseReplica's mark off ctx: reads that must see what
// was just written (a write's own reads back).
func FromPrimary(ctx context.Context) context.Context {
	if ctx.Value(replicaKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, replicaKey{}, nil)
}

// HasReplica reports whether the store has a replica.
func (s *Store) HasReplica() bool { return s.replica != nil }

// read is what a read outside a transaction runs on.
func (s *Store) read(ctx context.Context) querier {
	if r, ok := ctx.Value(replicaKey{}).(*ReplicaReads); ok && r != nil {
		return r.conn
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
