package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// IncidentNote is a note on an incident with its edit history.
type IncidentNote struct {
	ID        int64
	Author    string    // who wrote it first
	Body      string    // its current text
	CreatedAt time.Time // when it was first written
	// Revisions are the texts it had before, oldest first; empty when it
	// was never edited.
	Revisions []NoteRevision
}

// NoteRevision is a text a note had before an edit.
type NoteRevision struct {
	Body      string
	Author    string    // who wrote that text
	WrittenAt time.Time // when
	EditedBy  string    // who replaced it
	EditedAt  time.Time // when
}

// EditedBy is who wrote the note's current text and when: its author, or
// its last editor.
func (n IncidentNote) EditedBy() (string, time.Time) {
	if k := len(n.Revisions); k > 0 {
		return n.Revisions[k-1].EditedBy, n.Revisions[k-1].EditedAt
	}
	return n.Author, n.CreatedAt
}

// AddIncidentNote stores a note on an incident and returns its id.
func (t *Tx) AddIncidentNote(ctx context.Context, incidentID int64, author, body string) (int64, error) {
	var id int64
	err := t.tx.QueryRow(ctx, `INSERT INTO annotations (incident_id, author, body) VALUES ($1, $2, $3) RETURNING id`,
		incidentID, author, body).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("store: add incident note: %w", err)
	}
	return id, nil
}

// EditIncidentNote replaces a note's text, keeping the text it replaces
// as a revision; changed is false when the text is the same. ErrNotFound
// when the incident has no such note.
func (t *Tx) EditIncidentNote(ctx context.Context, incidentID, noteID int64, body, editor string) (changed bool, err error) {
	var old, author string
	var written time.Time
	err = t.tx.QueryRow(ctx, `
		SELECT a.body, coalesce(r.edited_by, a.author), coalesce(r.edited_at, a.created_at)
		FROM annotations a
		LEFT JOIN LATERAL (SELECT edited_by, edited_at FROM annotation_revisions
			WHERE annotation_id = a.id ORDER BY id DESC LIMIT 1) r ON true
		WHERE a.id = $1 AND a.incident_id = $2 FOR UPDATE OF a`, noteID, incidentID).Scan(&old, &author, &written)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, ErrNotFound
	}
	if err != nil {
		return false, fmt.Errorf("store: edit incident note: %w", err)
	}
	if old == body {
		return false, nil
	}
	_, err = t.tx.Exec(ctx, `INSERT INTO annotation_revisions (annotation_id, body, author, written_at, edited_by)
		VALUES ($1, $2, $3, $4, $5)`, noteID, old, author, written, editor)
	if err == nil {
		_, err = t.tx.Exec(ctx, `UPDATE annotations SET body = $2 WHERE id = $1`, noteID, body)
	}
	if err != nil {
		return false, fmt.Errorf("store: edit incident note: %w", err)
	}
	return true, nil
}

// IncidentNotes returns an incident's notes, oldest first, each with its
// revisions.
func (s *Store) IncidentNotes(ctx context.Context, incidentID int64) ([]IncidentNote, error) {
	rows, err := s.read(ctx).Query(ctx, `SELECT id, author, body, created_at FROM annotations
		WHERE incident_id = $1 ORDER BY id`, incidentID)
	if err != nil {
		return nil, fmt.Errorf("store: incident notes: %w", err)
	}
	notes, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (IncidentNote, error) {
		var n IncidentNote
		return n, row.Scan(&n.ID, &n.Author, &n.Body, &n.CreatedAt)
	})
	if err != nil {
		return nil, fmt.Errorf("store: incident notes: %w", err)
	}
	rows, err = s.read(ctx).Query(ctx, `SELECT r.annotation_id, r.body, r.author, r.written_at, r.edited_by, r.edited_at
		FROM annotation_revisions r JOIN annotations a ON a.id = r.annotation_id
		WHERE a.incident_id = $1 ORDER BY r.id`, incidentID)
	if err != nil {
		return nil, fmt.Errorf("store: incident note revisions: %w", err)
	}
	byID := make(map[int64]*IncidentNote, len(notes))
	for i := range notes {
		byID[notes[i].ID] = &notes[i]
	}
	var noteID int64
	var r NoteRevision
	_, err = pgx.ForEachRow(rows, []any{&noteID, &r.Body, &r.Author, &r.WrittenAt, &r.EditedBy, &r.EditedAt}, func() error {
		if n := byID[noteID]; n != nil {
			n.Revisions = append(n.Revisions, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: incident note revisions: %w", err)
	}
	return notes, nil
}
