package store

import (
	"context"
	"fmt"

	"launchwatch/internal/linesearch"
)

// backfillBatch is how many seqs one step of building a launch's search
// index reads.
const backfillBatch = 50_000

// buildSearchIndex puts every line of a launch stored before the search
// index existed into it, then marks the launch indexed: the first search
// of such a launch pays for it once (a few seconds for a million lines),
// as /compare builds its template summary on first use. Lines ingest adds
// meanwhile are indexed by ingest itself, and filters only ever gain bits,
// so a build racing ingest (or another build) leaves nothing out.
func (s *Store) buildSearchIndex(ctx context.Context, launchID int64) error {
	var last int64
	if err := s.read(ctx).QueryRow(ctx, lastSeqSQL, launchID).Scan(&last); err != nil {
		return fmt.Errorf("store: build search index: %w", err)
	}
	for from := int64(1); from <= last; from += backfillBatch {
		err := s.WithTx(ctx, func(t *Tx) error {
			r := lineRead{launch: "$1", lo: "$2", hi: "$3::bigint - 1", cols: []string{"seq", "text"}, order: true}
			rows, err := t.tx.Query(ctx, r.sql(), launchID, from, from+backfillBatch)
			if err != nil {
				return err
			}
			var lines []Line
			var fill textFill
			for rows.Next() {
				lines = append(lines, Line{})
				l := &lines[len(lines)-1]
				if err := rows.Scan(&l.Seq, fill.scan(&l.Text, &l.Seq, len(lines)-1)); err != nil {
					rows.Close()
					return err
				}
			}
			if err := rows.Err(); err != nil {
				return err
			}
			if err := fill.fill(ctx, t.tx, launchID, func(i int, text string) { lines[i].Text = text }); err != nil || len(lines) == 0 {
				return err
			}
			blooms := map[int64]linesearch.Bloom{}
			bloomsOf(blooms, lines)
			return t.addLineChunks(ctx, launchID, blooms)
		})
		if err != nil {
			return fmt.Errorf("store: build search index: %w", err)
		}
	}
	if _, err := s.pool.Exec(ctx, `UPDATE launches SET search_indexed = true WHERE id = $1`, launchID); err != nil {
		return fmt.Errorf("store: build search index: %w", err)
	}
	return nil
}
