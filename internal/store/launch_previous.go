package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"github.com/jackc/pgx/v5"
)

// Previous is the launch an engineer compares a launch with, and how it
// was chosen (By): "name and server", "key stem and server", "name", "key
// stem" or "host", the first that an earlier launch shares, in that order.
type Previous struct {
	Key string
	By  string
}

// keyStemPattern is what KeyStem cuts off a key: its trailing counters,
// dates and times ("-7", "_20261129-1030"). The same expression serves Go
// and PostgreSQL (RE2 and POSIX read it alike).
const keyStemPattern = `([-_.:]?[0-9]+)+$`

var keyStemRE = regexp.MustCompile(keyStemPattern)

// KeyStem is a launch key without its trailing counters: "llama-0412" and
// "llama-0413" share the stem "llama"; "" when nothing is left.
func KeyStem(key string) string { return keyStemRE.ReplaceAllString(key, "") }

// previousCandidates bounds the earlier launches PreviousLaunch weighs:
// the newest that share anything with the launch.
const previousCandidates = 200

// PreviousLaunch returns the launch made before l that an engineer compares
// it with: the newest of the same name and server, else of the same key
// stem and server, else of the same name, else of the same key stem, else
// on the same host; ErrNotFound when none shares any of them. A shared
// host alone is the weakest tie: another model's launch on the same GPU
// box says little about this one.
func (s *Store) PreviousLaunch(ctx context.Context, l *Launch) (Previous, error) {
	stem := KeyStem(l.Key)
	rows, err := s.read(ctx).Query(ctx, `
		SELECT key, name, server, host, regexp_replace(key, $6, '') FROM launches
		WHERE id <> $1 AND (created_at, id) < ($2, $1)
			AND (($3 <> '' AND name = $3) OR ($4 <> '' AND host = $4) OR ($5 <> '' AND regexp_replace(key, $6, '') = $5))
		ORDER BY created_at DESC, id DESC LIMIT $7`, l.ID, l.CreatedAt, l.Name, l.Host, stem, keyStemPattern, previousCandidates)
	if err != nil {
		return Previous{}, fmt.Errorf("store: previous launch: %w", err)
	}
	type candidate struct{ key, name, server, host, stem string }
	cands, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (candidate, error) {
		var c candidate
		err := row.Scan(&c.key, &c.name, &c.server, &c.host, &c.stem)
		return c, err
	})
	if err != nil {
		return Previous{}, fmt.Errorf("store: previous launch: %w", err)
	}
	sameName := func(c candidate) bool { return l.Name != "" && c.name == l.Name }
	sameStem := func(c candidate) bool { return stem != "" && c.stem == stem }
	sameServer := func(c candidate) bool { return c.server == l.Server }
	for _, rule := range []struct {
		by    string
		match func(candidate) bool
	}{
		{"name and server", func(c candidate) bool { return sameName(c) && sameServer(c) }},
		{"key stem and server", func(c candidate) bool { return sameStem(c) && sameServer(c) }},
		{"name", sameName},
		{"key stem", sameStem},
		{"host", func(c candidate) bool { return l.Host != "" && c.host == l.Host }},
	} {
		for _, c := range cands {
			if rule.match(c) {
				return Previous{Key: c.key, By: rule.by}, nil
			}
		}
	}
	return Previous{}, ErrNotFound
}

// LaunchByID returns the launch with id, or ErrNotFound.
func (s *Store) LaunchByID(ctx context.Context, id int64) (*Launch, error) {
	l, err := scanLaunch(s.read(ctx).QueryRow(ctx, `SELECT `+launchColumns+` FROM launches l WHERE l.id = $1`, id))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("store: launch by id: %w", err)
	}
	return l, err
}
