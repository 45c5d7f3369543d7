package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrExists is returned when a row with the same unique name exists.
var ErrExists = errors.New("store: already exists")

// User is a person who signs in.
type User struct {
	ID           int64
	Name         string
	Role         string // viewer, reviewer or admin
	PasswordHash string // "" for users only a reverse proxy signs in
	Disabled     bool
	CreatedAt    time.Time
	CreatedBy    string
}

const userColumns = `id, name, role, COALESCE(password_hash, ''), disabled, created_at, created_by`

func scanUser(row pgx.Row) (User, error) {
	var u User
	err := row.Scan(&u.ID, &u.Name, &u.Role, &u.PasswordHash, &u.Disabled, &u.CreatedAt, &u.CreatedBy)
	if errors.Is(err, pgx.ErrNoRows) {
		return u, ErrNotFound
	}
	return u, err
}

func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// CreateUser adds a user (ErrExists when the name is taken, in any case)
// and its audit event.
func (s *Store) CreateUser(ctx context.Context, u User, actor string) (User, error) {
	err := s.WithTx(ctx, func(tx *Tx) error {
		var hash any
		if u.PasswordHash != "" {
			hash = u.PasswordHash
		}
		var err error
		u, err = scanUser(tx.tx.QueryRow(ctx, `INSERT INTO users (name, role, password_hash, created_by)
			VALUES ($1, $2, $3, $4) RETURNING `+userColumns, u.Name, u.Role, hash, actor))
		if isUniqueViolation(err) {
			return ErrExists
		}
		if err != nil {
			return fmt.Errorf("store: create user: %w", err)
		}
		return tx.AddAudit(ctx, AuditEvent{Actor: actor, Action: "user.create", Subject: "user:" + u.Name,
			Detail: map[string]any{"role": u.Role}})
	})
	return u, err
}

// CreateFirstAdmin adds the first admin through the setup link: the link
// must be unused and unexpired at now and no user may exist yet, all in one
// transaction, so two browsers racing on one link make one admin.
func (s *Store) CreateFirstAdmin(ctx context.Context, linkHash []byte, now time.Time, u User) (User, error) {
	err := s.WithTx(ctx, func(tx *Tx) error {
		// The lock orders concurrent setups: the second sees the first's user.
		if _, err := tx.tx.Exec(ctx, `LOCK TABLE setup_links IN EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("store: setup: %w", err)
		}
		tag, err := tx.tx.Exec(ctx, `UPDATE setup_links SET used_at = $2
			WHERE secret_hash = $1 AND used_at IS NULL AND expires_at > $2
			AND NOT EXISTS (SELECT 1 FROM users)`, linkHash, now)
		if err != nil {
			return fmt.Errorf("store: setup: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return ErrNotFound
		}
		u, err = scanUser(tx.tx.QueryRow(ctx, `INSERT INTO users (name, role, password_hash, created_by)
			VALUES ($1, 'admin', $2, 'setup link') RETURNING `+userColumns, u.Name, u.PasswordHash))
		if err != nil {
			return fmt.Errorf("store: create first admin: %w", err)
		}
		return tx.AddAudit(ctx, AuditEvent{Actor: u.Name, Action: "user.create", Subject: "user:" + u.Name,
			Detail: map[string]any{"role": "admin", "via": "setup link"}})
	})
	return u, err
}

// SetupLinkValid reports whether a setup link can still be used at now.
func (s *Store) SetupLinkValid(ctx context.Context, linkHash []byte, now time.Time) (bool, error) {
	var ok bool
	err := s.read(ctx).QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM setup_links
		WHERE secret_hash = $1 AND used_at IS NULL AND expires_at > $2)
		AND NOT EXISTS (SELECT 1 FROM users)`, linkHash, now).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("store: setup link: %w", err)
	}
	return ok, nil
}

// ReplaceSetupLink stores a new setup link when no user exists yet,
// dropping earlier ones, and reports whether it did (false: users exist,
// no link is needed).
func (s *Store) ReplaceSetupLink(ctx context.Context, linkHash []byte, expires time.Time) (bool, error) {
	made := false
	err := s.WithTx(ctx, func(tx *Tx) error {
		if _, err := tx.tx.Exec(ctx, `LOCK TABLE setup_links IN EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("store: setup link: %w", err)
		}
		var users bool
		if err := tx.tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users)`).Scan(&users); err != nil {
			return fmt.Errorf("store: setup link: %w", err)
		}
		if users {
			return nil
		}
		if _, err := tx.tx.Exec(ctx, `DELETE FROM setup_links`); err != nil {
			return fmt.Errorf("store: setup link: %w", err)
		}
		if _, err := tx.tx.Exec(ctx, `INSERT INTO setup_links (secret_hash, expires_at) VALUES ($1, $2)`, linkHash, expires); err != nil {
			return fmt.Errorf("store: setup link: %w", err)
		}
		made = true
		return nil
	})
	return made, err
}

// UserByName returns the user with this name (any case).
func (s *Store) UserByName(ctx context.Context, name string) (User, error) {
	u, err := scanUser(s.read(ctx).QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE lower(name) = lower($1)`, name))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return u, fmt.Errorf("store: user: %w", err)
	}
	return u, err
}

// UserByID returns a user.
func (s *Store) UserByID(ctx context.Context, id int64) (User, error) {
	u, err := scanUser(s.read(ctx).QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return u, fmt.Errorf("store: user: %w", err)
	}
	return u, err
}

// EnsureProxyUser returns the user a trusted proxy names, creating it with
// role on first sight.
func (s *Store) EnsureProxyUser(ctx context.Context, name, role string) (User, error) {
	u, err := s.UserByName(ctx, name)
	if !errors.Is(err, ErrNotFound) {
		return u, err
	}
	u, err = s.CreateUser(ctx, User{Name: name, Role: role}, "auth proxy")
	if errors.Is(err, ErrExists) { // another request made it first
		return s.UserByName(ctx, name)
	}
	return u, err
}

// Users returns every user, by name.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT `+userColumns+` FROM users ORDER BY lower(name)`)
	if err != nil {
		return nil, fmt.Errorf("store: users: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (User, error) { return scanUser(row) })
	if err != nil {
		return nil, fmt.Errorf("store: users: %w", err)
	}
	return out, nil
}

// UserChange is an admin's change to a user; nil fields stay as they are.
type UserChange struct {
	Role         *string
	Disabled     *bool
	PasswordHash *string
}

// UpdateUser applies a change and its audit event. Disabling a user or
// changing their password or role ends their sessions.
func (s *Store) UpdateUser(ctx context.Context, id int64, ch UserChange, actor string) (User, error) {
	var u User
	err := s.WithTx(ctx, func(tx *Tx) error {
		var err error
		u, err = scanUser(tx.tx.QueryRow(ctx, `UPDATE users SET
			role = COALESCE($2, role), disabled = COALESCE($3, disabled),
			password_hash = COALESCE($4, password_hash)
			WHERE id = $1 RETURNING `+userColumns, id, ch.Role, ch.Disabled, ch.PasswordHash))
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				return err
			}
			return fmt.Errorf("store: update user: %w", err)
		}
		if _, err := tx.tx.Exec(ctx, `DELETE FROM sessions WHERE user_id = $1`, id); err != nil {
			return fmt.Errorf("store: end sessions: %w", err)
		}
		detail := map[string]any{}
		if ch.Role != nil {
			detail["role"] = *ch.Role
		}
		if ch.Disabled != nil {
			detail["disabled"] = *ch.Disabled
		}
		if ch.PasswordHash != nil {
			detail["password"] = "changed"
		}
		return tx.AddAudit(ctx, AuditEvent{Actor: actor, Action: "user.update", Subject: "user:" + u.Name, Detail: detail})
	})
	return u, err
}

// CreateSession stores a session of user until expires.
func (s *Store) CreateSession(ctx context.Context, secretHash []byte, userID int64, now, expires time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO sessions (secret_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
		secretHash, userID, now, expires)
	if err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	return nil
}

// SessionUser returns the user of a live session at now (ErrNotFound when
// the session is unknown, expired, or its user disabled).
func (s *Store) SessionUser(ctx context.Context, secretHash []byte, now time.Time) (User, error) {
	u, err := scanUser(s.read(ctx).QueryRow(ctx, `SELECT `+prefixed("u.", userColumns)+` FROM sessions s
		JOIN users u ON u.id = s.user_id
		WHERE s.secret_hash = $1 AND s.expires_at > $2 AND NOT u.disabled`, secretHash, now))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return u, fmt.Errorf("store: session: %w", err)
	}
	return u, err
}

// prefixed qualifies userColumns with a table alias.
func prefixed(alias, cols string) string {
	return alias + "id, " + alias + "name, " + alias + "role, COALESCE(" + alias + "password_hash, ''), " +
		alias + "disabled, " + alias + "created_at, " + alias + "created_by"
}

// DeleteSession ends a session (sign out).
func (s *Store) DeleteSession(ctx context.Context, secretHash []byte) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE secret_hash = $1`, secretHash); err != nil {
		return fmt.Errorf("store: delete session: %w", err)
	}
	return nil
}

// DeleteExpiredSessions removes sessions that ended before now.
func (s *Store) DeleteExpiredSessions(ctx context.Context, now time.Time) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE expires_at <= $1`, now); err != nil {
		return fmt.Errorf("store: delete expired sessions: %w", err)
	}
	return nil
}

// ServerSecret returns the server's secret of this name, making it from
// fresh() the first time; every process on the database gets the same one.
func (s *Store) ServerSecret(ctx context.Context, name string, fresh func() []byte) ([]byte, error) {
	if _, err := s.pool.Exec(ctx, `INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
		name, fresh()); err != nil {
		return nil, fmt.Errorf("store: server secret: %w", err)
	}
	var v []byte
	if err := s.read(ctx).QueryRow(ctx, `SELECT value FROM server_secrets WHERE name = $1`, name).Scan(&v); err != nil {
		return nil, fmt.Errorf("store: server secret: %w", err)
	}
	return v, nil
}
