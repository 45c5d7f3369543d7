package store

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Reads of many subjects at once, for the read models of list pages (a
// page lists N things: it makes one query per kind of thing, not N).

// AuditForSubjects returns the audit events of each of subjects, oldest
// first, keyed by subject; a subject with none is absent.
func (s *Store) AuditForSubjects(ctx context.Context, subjects []string) (map[string][]AuditEvent, error) {
	out := map[string][]AuditEvent{}
	if len(subjects) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT actor, action, subject, detail, at FROM audit_events
		WHERE subject COLLATE "C" = ANY($1::text[]) ORDER BY id`, subjects)
	events, err := collectAudit(rows, err)
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		out[e.Subject] = append(out[e.Subject], e)
	}
	return out, nil
}

// LaunchKeys returns the keys of the launches ids, keyed by id; a launch
// that no longer exists is absent.
func (s *Store) LaunchKeys(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT id, key FROM launches WHERE id = ANY($1::bigint[])`, ids)
	if err != nil {
		return nil, fmt.Errorf("store: launch keys: %w", err)
	}
	type idKey struct {
		id  int64
		key string
	}
	got, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (idKey, error) {
		var k idKey
		return k, row.Scan(&k.id, &k.key)
	})
	if err != nil {
		return nil, fmt.Errorf("store: launch keys: %w", err)
	}
	for _, k := range got {
		out[k.id] = k.key
	}
	return out, nil
}

// linesInRangesSQL reads the lines of each range ($2[i], $3[i]), at most
// $4 a range, as LinesBetween reads one: one statement for the ranges of
// a page (an alarm card's lines with their context, each alarm).
var linesInRangesSQL = `SELECT r.i, l.* FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS r(lo, hi, i)
	CROSS JOIN LATERAL (` + lineRead{launch: "$1", lo: "r.lo", hi: "r.hi", cols: lineColumnList, order: true, limit: "$4"}.sql() + `) AS l
	ORDER BY r.i, l.seq`

// LinesInRanges returns, for each of ranges (from, to seqs, inclusive),
// the lines of launchID in it, at most limit, in seq order: out[i] holds
// what LinesBetween(launchID, ranges[i][0], ranges[i][1], limit) would.
func (s *Store) LinesInRanges(ctx context.Context, launchID int64, ranges [][2]int64, limit int) ([][]Line, error) {
	out := make([][]Line, len(ranges))
	if len(ranges) == 0 {
		return out, nil
	}
	los, his := make([]int64, len(ranges)), make([]int64, len(ranges))
	for i, r := range ranges {
		los[i], his[i] = r[0], r[1]
	}
	q := s.read(ctx)
	rows, err := q.Query(ctx, linesInRangesSQL, launchID, los, his, limit)
	if err != nil {
		return nil, fmt.Errorf("store: lines in ranges: %w", err)
	}
	defer rows.Close()
	var all []Line
	var in []int // the range of each of all
	var fill textFill
	for rows.Next() {
		var i int
		all = append(all, Line{})
		l := &all[len(all)-1]
		if err := rows.Scan(&i, &l.Seq, &l.TS, &l.ReceivedAt, &l.Stream, &l.Kind, &l.Level, &l.Rank, &l.AlarmNo, fill.scan(&l.Text, &l.Seq, len(all)-1)); err != nil {
			return nil, fmt.Errorf("store: lines in ranges: %w", err)
		}
		in = append(in, i-1)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: lines in ranges: %w", err)
	}
	if err := fill.fill(ctx, q, launchID, func(i int, text string) { all[i].Text = text }); err != nil {
		return nil, err
	}
	for k, l := range all {
		out[in[k]] = append(out[in[k]], l)
	}
	return out, nil
}

// SignatureLaunchesFor returns, for each of ids, the keys of the launches
// the signature matched lines of, newest first, at most limit a signature,
// keyed by id; a signature with none is absent.
func (s *Store) SignatureLaunchesFor(ctx context.Context, ids []int64, limit int) (map[int64][]string, error) {
	out := map[int64][]string{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, `
		SELECT s.id, k.key FROM unnest($1::bigint[]) WITH ORDINALITY AS s(id, i)
		CROSS JOIN LATERAL (
			SELECT l.key, l.created_at, l.id FROM signature_hits h JOIN launches l ON l.id = h.launch_id
			WHERE h.signature_id = s.id ORDER BY l.created_at DESC, l.id DESC LIMIT $2) AS k
		ORDER BY s.i, k.created_at DESC, k.id DESC`, ids, limit)
	if err != nil {
		return nil, fmt.Errorf("store: signature launches: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var key string
		if err := rows.Scan(&id, &key); err != nil {
			return nil, fmt.Errorf("store: signature launches: %w", err)
		}
		out[id] = append(out[id], key)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: signature launches: %w", err)
	}
	return out, nil
}
