package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// PreviousLaunch returns the key of the newest launch made before l with
// the same name or on the same host: the one an engineer compares a failure
// with. ErrNotFound when there is none.
func (s *Store) PreviousLaunch(ctx context.Context, l *Launch) (string, error) {
	var key string
	err := s.read(ctx).QueryRow(ctx, `
		SELECT key FROM launches
		WHERE id <> $1 AND (created_at, id) < ($2, $1)
			AND (($3 <> '' AND name = $3) OR ($4 <> '' AND host = $4))
		ORDER BY created_at DESC, id DESC LIMIT 1`, l.ID, l.CreatedAt, l.Name, l.Host).Scan(&key)
	if err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return "", ErrNotFound
		}
		return "", fmt.Errorf("store: previous launch: %w", err)
	}
	return key, nil
}

// LaunchByID returns the launch with id, or ErrNotFound.
func (s *Store) LaunchByID(ctx context.Context, id int64) (*Launch, error) {
	l, err := scanLaunch(s.read(ctx).QueryRow(ctx, `SELECT `+launchColumns+` FROM launches l WHERE l.id = $1`, id))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("store: launch by id: %w", err)
	}
	return l, err
}
