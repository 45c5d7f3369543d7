package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"launchwatch/internal/linesearch"
)

// The search index (migrations/00012_lines_trgm.sql) is one trigram
// filter per chunk of linesearch.ChunkSize consecutive seqs of a launch;
// internal/linesearch computes the filters and what a search requires of
// them, this file stores and queries them.

// bloomBits is filter b as a PostgreSQL bit string.
func bloomBits(b linesearch.Bloom) pgtype.Bits {
	return pgtype.Bits{Bytes: b, Len: linesearch.BloomBits, Valid: true}
}

// bloomsOf adds the trigrams of lines to the filters of their chunks.
// Lines come in seq order, usually: a chunk's filter is looked up once
// for its run of lines.
func bloomsOf(blooms map[int64]linesearch.Bloom, lines []Line) {
	var b linesearch.Bloom
	last := int64(-1)
	for i := range lines {
		if c := lines[i].Seq >> linesearch.ChunkShift; c != last || b == nil {
			var ok bool
			if b, ok = blooms[c]; !ok {
				b = linesearch.NewBloom()
				blooms[c] = b
			}
			last = c
		}
		b.AddText(lines[i].Text)
	}
}

// addLineChunks ORs the trigrams of new lines (LineIndex) into their
// chunks' filters, in the transaction that stores the lines. Chunks past
// the launch's highest stored one are new (a growing launch's usual
// batch: all but its first chunk) and are COPYed, which took the
// database 9 ms for a 50,000-line batch's 782 chunks where the upsert
// took 15; the others are merged into their stored filters.
func (t *Tx) addLineChunks(ctx context.Context, launchID int64, blooms map[int64]linesearch.Bloom) error {
	if len(blooms) == 0 {
		return nil
	}
	chunks := slices.Sorted(maps.Keys(blooms))
	err := t.upsertOrCopy(ctx, "line_chunks", "chunk", []string{"launch_id", "chunk", "bloom"}, launchID, len(chunks),
		func(i int) int64 { return chunks[i] },
		func(stored int) error {
			bits := make([]pgtype.Bits, stored)
			for i, c := range chunks[:stored] {
				bits[i] = bloomBits(blooms[c])
			}
			_, err := t.tx.Exec(ctx, `
				INSERT INTO line_chunks (launch_id, chunk, bloom)
				SELECT $1, c, b FROM unnest($2::bigint[], $3::varbit[]) AS u(c, b)
				ON CONFLICT (launch_id, chunk) DO UPDATE SET bloom = line_chunks.bloom | EXCLUDED.bloom`,
				launchID, chunks[:stored], bits)
			return err
		},
		func(i int) []any { return []any{launchID, chunks[i], bloomBits(blooms[chunks[i]])} })
	if err != nil {
		return fmt.Errorf("store: add line chunks: %w", err)
	}
	return nil
}

// searchIndexed reports whether every line of the launch is in the index.
func (s *Store) searchIndexed(ctx context.Context, launchID int64) (bool, error) {
	var ok bool
	if err := s.read(ctx).QueryRow(ctx, `SELECT search_indexed FROM launches WHERE id = $1`, launchID).Scan(&ok); err != nil {
		return false, fmt.Errorf("store: search indexed: %w", err)
	}
	return ok, nil
}

// bloomCondition is the SQL condition on line_chunks.bloom of prefilter p,
// its masks added to q's arguments; "" when no clause has a usable
// trigram (the index cannot narrow the search).
func bloomCondition(q *launchQuery, p linesearch.Prefilter) string {
	var conds []string
clauses:
	for _, clause := range p {
		var ors []string
		for _, lit := range clause {
			m, ok := linesearch.LiteralMask(lit)
			if !ok {
				continue clauses // this literal may be anywhere: the clause narrows nothing
			}
			arg := q.arg(bloomBits(m))
			ors = append(ors, "bloom & "+arg+" = "+arg)
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	return strings.Join(conds, " AND ")
}

// candidateChunks returns the chunks, in the reading direction, of
// [lo, hi] whose filters pass cond (built by bloomCondition on q, whose
// first argument is the launch id).
func (s *Store) candidateChunks(ctx context.Context, q *launchQuery, cond string, lo, hi int64, back bool) ([]int64, error) {
	order := "chunk"
	if back {
		order = "chunk DESC"
	}
	sql := `SELECT chunk FROM line_chunks WHERE launch_id = $1 AND chunk BETWEEN ` + q.arg(lo>>linesearch.ChunkShift) +
		` AND ` + q.arg(hi>>linesearch.ChunkShift) + ` AND ` + cond + ` ORDER BY ` + order
	rows, err := s.read(ctx).Query(ctx, sql, q.args...)
	if err != nil {
		return nil, fmt.Errorf("store: search chunks: %w", err)
	}
	chunks, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: search chunks: %w", err)
	}
	return chunks, nil
}
