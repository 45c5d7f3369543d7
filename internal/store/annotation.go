package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Annotation is a person's note on a launch, at a line or on the whole launch.
type Annotation struct {
	ID        int64
	Seq       *int64     // the line it is about, if any
	At        *time.Time // the time of that line
	Author    string
	Body      string
	CreatedAt time.Time
}

// AddAnnotation stores a note on a launch and returns its id. The time of
// the line it is about is kept with it so the timeline can place it.
func (t *Tx) AddAnnotation(ctx context.Context, launchID int64, seq *int64, author, body string) (int64, error) {
	var id int64
	err := t.tx.QueryRow(ctx, `
		INSERT INTO annotations (launch_id, seq, at, author, body)
		VALUES ($1, $2, (SELECT ts FROM (`+lineRead{launch: "$1", lo: "$2", hi: "$2", cols: []string{"ts"}}.sql()+`) x), $3, $4) RETURNING id`,
		launchID, seq, author, body).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: add annotation: %w", err)
	}
	return id, nil
}

// Annotations returns the notes on a launch, oldest first.
func (s *Store) Annotations(ctx context.Context, launchID int64) ([]Annotation, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT id, seq, at, author, body, created_at FROM annotations
		WHERE launch_id = $1 ORDER BY id`, launchID)
	if err != nil {
		return nil, fmt.Errorf("store: annotations: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Annotation, error) {
		var a Annotation
		return a, row.Scan(&a.ID, &a.Seq, &a.At, &a.Author, &a.Body, &a.CreatedAt)
	})
	if err != nil {
		return nil, fmt.Errorf("store: annotations: %w", err)
	}
	return out, nil
}
