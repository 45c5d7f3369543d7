package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// AuditChainRow is an audit event as its hash covers it (migration 00030).
type AuditChainRow struct {
	Seq     int64 // its place in the chain
	ID      int64
	At      time.Time
	Actor   string
	Action  string
	Subject string
	Detail  string // as PostgreSQL writes the jsonb (detail::text): what was hashed
	Hash    []byte
}

// AuditChainHead is the place and hash of the last row chained.
type AuditChainHead struct {
	Seq  int64
	Hash []byte
}

// AuditChainHead returns the chain's head: read first, then the rows up to
// it (AuditChain), so rows chained meanwhile are not taken for missing.
func (s *Store) AuditChainHead(ctx context.Context) (AuditChainHead, error) {
	var h AuditChainHead
	err := s.pool.QueryRow(ctx, `SELECT seq, hash FROM audit_chain`).Scan(&h.Seq, &h.Hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return h, fmt.Errorf("store: the audit chain has no head (migration 00030 made it)")
	}
	return h, wrapErr("audit chain head", err)
}

// AuditChain returns up to limit rows of the chain after place after, up
// to place through, in chain order.
func (s *Store) AuditChain(ctx context.Context, after, through int64, limit int) ([]AuditChainRow, error) {
	rows, err := s.pool.Query(ctx, `SELECT chain_seq, id, at, actor, action, subject, detail::text, hash
		FROM audit_events WHERE chain_seq > $1 AND chain_seq <= $2 ORDER BY chain_seq LIMIT $3`, after, through, limit)
	if err != nil {
		return nil, fmt.Errorf("store: audit chain: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AuditChainRow, error) {
		var r AuditChainRow
		return r, row.Scan(&r.Seq, &r.ID, &r.At, &r.Actor, &r.Action, &r.Subject, &r.Detail, &r.Hash)
	})
	return out, wrapErr("audit chain", err)
}
