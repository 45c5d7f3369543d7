package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Token is an API token; its secret is never stored, only its hash.
type Token struct {
	ID         int64
	Name       string
	Scope      string // ingest, read, review or admin
	CreatedBy  string
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	Bootstrap  bool
}

const tokenColumns = `id, name, scope, created_by, created_at, expires_at, last_used_at, revoked_at, bootstrap`

func scanToken(row pgx.Row) (Token, error) {
	var t Token
	err := row.Scan(&t.ID, &t.Name, &t.Scope, &t.CreatedBy, &t.CreatedAt, &t.ExpiresAt, &t.LastUsedAt, &t.RevokedAt, &t.Bootstrap)
	if errors.Is(err, pgx.ErrNoRows) {
		return t, ErrNotFound
	}
	return t, err
}

// CreateToken stores a token with the hash of its secret, and its audit event.
func (s *Store) CreateToken(ctx context.Context, t Token, secretHash []byte) (Token, error) {
	err := s.WithTx(ctx, func(tx *Tx) error {
		var err error
		t, err = scanToken(tx.tx.QueryRow(ctx, `INSERT INTO api_tokens (name, scope, secret_hash, created_by, created_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+tokenColumns,
			t.Name, t.Scope, secretHash, t.CreatedBy, t.CreatedAt, t.ExpiresAt))
		if isUniqueViolation(err) {
			return ErrExists // the same secret twice: only a chosen secret can collide
		}
		if err != nil {
			return fmt.Errorf("store: create token: %w", err)
		}
		return tx.AddAudit(ctx, AuditEvent{Actor: t.CreatedBy, Action: "token.create", Subject: fmt.Sprintf("token:%d", t.ID),
			Detail: map[string]any{"name": t.Name, "scope": t.Scope}})
	})
	return t, err
}

// EnsureBootstrapToken makes the admin token with exactly this secret
// exist: kept when it does, else made, and a bootstrap token with another
// secret (the setting changed) revoked. It reports whether it changed
// anything.
func (s *Store) EnsureBootstrapToken(ctx context.Context, secretHash []byte, now time.Time) (bool, error) {
	changed := false
	err := s.WithTx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.Exec(ctx, `LOCK TABLE api_tokens IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("store: bootstrap token: %w", err)
		}
		var exists bool
		if err := tx.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM api_tokens
			WHERE secret_hash = $1 AND bootstrap AND revoked_at IS NULL)`, secretHash).Scan(&exists); err != nil {
			return fmt.Errorf("store: bootstrap token: %w", err)
		}
		if exists {
			return nil
		}
		changed = true
		rows, err := tx.tx.Query(ctx, `UPDATE api_tokens SET revoked_at = $1 WHERE bootstrap AND revoked_at IS NULL RETURNING id`, now)
		if err != nil {
			return fmt.Errorf("store: bootstrap token: %w", err)
		}
		old, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return fmt.Errorf("store: bootstrap token: %w", err)
		}
		for _, id := range old {
			if err := tx.AddAudit(ctx, AuditEvent{Actor: "bootstrap", Action: "token.revoke", Subject: fmt.Sprintf("token:%d", id),
				Detail: map[string]any{"why": "the bootstrap token changed"}}); err != nil {
				return err
			}
		}
		// A token made by hand with this very secret is replaced by the
		// bootstrap one, so the secret has one meaning.
		if _, err := tx.tx.Exec(ctx, `UPDATE api_tokens SET revoked_at = $2, secret_hash = sha256(secret_hash || convert_to('revoked', 'UTF8'))
			WHERE secret_hash = $1`, secretHash, now); err != nil {
			return fmt.Errorf("store: bootstrap token: %w", err)
		}
		var id int64
		if err := tx.tx.QueryRow(ctx, `INSERT INTO api_tokens (name, scope, secret_hash, created_by, created_at, bootstrap)
			VALUES ('bootstrap', 'admin', $1, 'bootstrap', $2, true) RETURNING id`, secretHash, now).Scan(&id); err != nil {
			return fmt.Errorf("store: bootstrap token: %w", err)
		}
		return tx.AddAudit(ctx, AuditEvent{Actor: "bootstrap", Action: "token.create", Subject: fmt.Sprintf("token:%d", id),
			Detail: map[string]any{"name": "bootstrap", "scope": "admin"}})
	})
	return changed, err
}

// TokenBySecret returns the live token with this secret hash at now
// (ErrNotFound when unknown, revoked or expired).
func (s *Store) TokenBySecret(ctx context.Context, secretHash []byte, now time.Time) (Token, error) {
	t, err := scanToken(s.read(ctx).QueryRow(ctx, `SELECT `+tokenColumns+` FROM api_tokens
		WHERE secret_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)`, secretHash, now))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return t, fmt.Errorf("store: token: %w", err)
	}
	return t, err
}

// TouchToken records a use of a token at now. Callers touch at most once a
// minute per token: last use is for people, not for accounting.
func (s *Store) TouchToken(ctx context.Context, id int64, now time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE api_tokens SET last_used_at = $2
		WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)`, id, now); err != nil {
		return fmt.Errorf("store: touch token: %w", err)
	}
	return nil
}

// Tokens returns every token, newest first, revoked ones included.
func (s *Store) Tokens(ctx context.Context) ([]Token, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT `+tokenColumns+` FROM api_tokens ORDER BY id DESC`)
	if err != nil {
		return nil, fmt.Errorf("store: tokens: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Token, error) { return scanToken(row) })
	if err != nil {
		return nil, fmt.Errorf("store: tokens: %w", err)
	}
	return out, nil
}

// RevokeToken revokes a token at now, with its audit event. Revoking a
// revoked token changes nothing and succeeds.
func (s *Store) RevokeToken(ctx context.Context, id int64, now time.Time, actor string) (Token, error) {
	var t Token
	err := s.WithTx(ctx, func(tx *Tx) error {
		var err error
		t, err = scanToken(tx.tx.QueryRow(ctx, `UPDATE api_tokens SET revoked_at = COALESCE(revoked_at, $2)
			WHERE id = $1 RETURNING `+tokenColumns, id, now))
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return err
			}
			return fmt.Errorf("store: revoke token: %w", err)
		}
		return tx.AddAudit(ctx, AuditEvent{Actor: actor, Action: "token.revoke", Subject: fmt.Sprintf("token:%d", id),
			Detail: map[string]any{"name": t.Name, "scope": t.Scope}})
	})
	return t, err
}

// Audit records an event that is not part of another change (a sign-in).
func (s *Store) Audit(ctx context.Context, e AuditEvent) error {
	return s.WithTx(ctx, func(tx *Tx) error { return tx.AddAudit(ctx, e) })
}

// AuditQuery filters the audit log; empty fields match everything.
type AuditQuery struct {
	Actor   string // exactly this actor
	Subject string // subjects starting with this
	Before  int64  // ids below this (paging back); 0 from the newest
	Limit   int
}

// AuditEntry is an audit event with its id, for paging.
type AuditEntry struct {
	ID int64
	AuditEvent
}

// AuditLog returns audit events newest first.
func (s *Store) AuditLog(ctx context.Context, q AuditQuery) ([]AuditEntry, error) {
	if q.Limit <= 0 || q.Limit > 500 {
		q.Limit = 100
	}
	rows, err := s.read(ctx).Query(ctx, `SELECT id, actor, action, subject, detail, at FROM audit_events
		WHERE ($1 = '' OR actor = $1)
		AND ($2 = '' OR starts_with(subject COLLATE "C", $2))
		AND ($3 = 0 OR id < $3)
		ORDER BY id DESC LIMIT $4`, q.Actor, q.Subject, q.Before, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("store: audit log: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (AuditEntry, error) {
		var e AuditEntry
		return e, row.Scan(&e.ID, &e.Actor, &e.Action, &e.Subject, &e.Detail, &e.At)
	})
	if err != nil {
		return nil, fmt.Errorf("store: audit log: %w", err)
	}
	return out, nil
}
