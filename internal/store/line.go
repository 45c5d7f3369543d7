package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/classify"
)

// Line is one stored log line.
type Line struct {
	Seq        int64
	TS         time.Time // the line's time on its launch's clock
	ReceivedAt time.Time
	LoggedAt   *time.Time // the time in the line's own text, read as UTC; nil if none
	Stream     string
	Kind       string
	Level      string
	Rank       string
	AlarmNo    *int
	Text       string
}

// The statements of the fixed reads of lines are made once.
var (
	existingSeqsSQL = lineRead{launch: "$1", lo: "$2", hi: "$3", cols: []string{"seq"}, conds: []string{"seq = ANY($4)"},
		uses: []string{"seq"}, order: true}.sql()
	lineTimeBeforeSQL = lineRead{launch: "$1", hi: "$2::bigint - 1", cols: []string{"seq", "ts"}, back: true, limit: "1"}.sql()
	scanLinesSQL      = lineRead{launch: "$1", lo: "$2::bigint + 1", cols: []string{"seq", "ts", "text"}, order: true, limit: "$3"}.sql()
	linesAfterSQL     = lineRead{launch: "$1", lo: "$2::bigint + 1", cols: lineColumnList, order: true, limit: "$3"}.sql()
	lastSeqSQL        = `SELECT COALESCE((` + lineRead{launch: "$1", cols: []string{"seq"}, back: true, limit: "1"}.sql() + `), 0)`
)

// ExistingSeqs returns which of seqs are already stored for the launch.
// The seqs' range and the order by seq make the primary key serve it: on
// its own, seq = ANY($2) may be planned as a filter over every line of the
// launch in either index (a launch the statistics do not know yet looks
// tiny), 2-16 ms for one seq of 100k instead of 0.05.
func (t *Tx) ExistingSeqs(ctx context.Context, launchID int64, seqs []int64) (map[int64]bool, error) {
	if len(seqs) == 0 {
		return map[int64]bool{}, nil
	}
	lo, hi := slices.Min(seqs), slices.Max(seqs)
	rows, err := t.tx.Query(ctx, existingSeqsSQL, launchID, lo, hi, seqs)
	if err != nil {
		return nil, fmt.Errorf("store: existing seqs: %w", err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: existing seqs: %w", err)
	}
	m := make(map[int64]bool, len(found))
	for _, s := range found {
		m[s] = true
	}
	return m, nil
}

// LineTimeBefore returns the ts of the launch's stored line with the
// greatest seq below seq, or the zero time when there is none.
func (t *Tx) LineTimeBefore(ctx context.Context, launchID, seq int64) (time.Time, error) {
	var ts time.Time
	var at int64
	err := t.tx.QueryRow(ctx, lineTimeBeforeSQL, launchID, seq).Scan(&at, &ts)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("store: line time before: %w", err)
	}
	return ts, nil
}

// UpdateVerdicts rewrites the classification of lines already stored, for
// verdicts the classifier revised after seeing later lines (the seqs' range
// bounds the scan, as in ExistingSeqs). A verdict
// without a level keeps the stored one: the level the shipper sent (OTLP
// severity, a Loki level label) for a line whose text shows none. The
// template summary takes the revised severities.
func (t *Tx) UpdateVerdicts(ctx context.Context, launchID int64, vs []classify.LineVerdict) error {
	if len(vs) == 0 {
		return nil
	}
	seqs := make([]int64, len(vs))
	kinds := make([]string, len(vs))
	levels := make([]string, len(vs))
	ranks := make([]string, len(vs))
	alarms := make([]*int32, len(vs))
	for i, v := range vs {
		seqs[i], kinds[i], levels[i], ranks[i] = v.Seq, string(v.Kind), v.Level, v.Rank
		if v.Alarm != 0 {
			a := int32(v.Alarm)
			alarms[i] = &a
		}
	}
	// Only rows are updated: compacted lines become rows first.
	if err := t.ThawSeqs(ctx, launchID, slices.Sorted(slices.Values(seqs))); err != nil {
		return err
	}
	_, err := t.tx.Exec(ctx, `
		UPDATE lines l SET kind = v.kind, level = COALESCE(NULLIF(v.level, ''), l.level), rank = v.rank, alarm_no = v.alarm_no
		FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::int[]) AS v(seq, kind, level, rank, alarm_no)
		WHERE l.launch_id = $1 AND l.seq BETWEEN $7 AND $8 AND l.seq = v.seq`,
		launchID, seqs, kinds, levels, ranks, alarms, slices.Min(seqs), slices.Max(seqs))
	if err != nil {
		return fmt.Errorf("store: update verdicts: %w", err)
	}
	return t.reviseLineTemplates(ctx, launchID, vs)
}

// ScanLines reads every stored line of a launch in seq order and hands them
// to fn in chunks, for rebuilding the classification from scratch. fn must
// not use the transaction.
func (t *Tx) ScanLines(ctx context.Context, launchID int64, fn func([]classify.Line)) error {
	const chunk = 1024
	for after := int64(0); ; {
		rows, err := t.tx.Query(ctx, scanLinesSQL, launchID, after, chunk)
		if err != nil {
			return fmt.Errorf("store: scan lines: %w", err)
		}
		var buf []classify.Line
		var fill textFill
		for rows.Next() {
			buf = append(buf, classify.Line{})
			l := &buf[len(buf)-1]
			if err := rows.Scan(&l.Seq, &l.Time, fill.scan(&l.Text, &l.Seq, len(buf)-1)); err != nil {
				rows.Close()
				return fmt.Errorf("store: scan lines: %w", err)
			}
			l.Clock = l.Time // the stored time is on the launch clock
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("store: scan lines: %w", err)
		}
		if err := fill.fill(ctx, t.tx, launchID, func(i int, text string) { buf[i].Text = text }); err != nil {
			return fmt.Errorf("store: scan lines: %w", err)
		}
		if len(buf) > 0 {
			fn(buf)
		}
		if len(buf) < chunk {
			return nil
		}
		after = buf[len(buf)-1].Seq
	}
}

// Lines returns up to limit lines of a launch with seq greater than after, in order.
func (s *Store) Lines(ctx context.Context, launchID, after int64, limit int) ([]Line, error) {
	q := s.read(ctx)
	rows, err := q.Query(ctx, linesAfterSQL, launchID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("store: lines: %w", err)
	}
	return collectLines(ctx, q, launchID, rows)
}

// ShiftClock moves every time of a launch that is on its clock by delta:
// its lines, phases and readiness, when ingest's estimate of the clock
// offset changed.
func (t *Tx) ShiftClock(ctx context.Context, launchID int64, delta time.Duration) error {
	for _, q := range []string{
		`UPDATE lines SET ts = ts + $2 WHERE launch_id = $1`,
		`UPDATE line_blocks SET min_ts = min_ts + $2, max_ts = max_ts + $2,
			ts = (SELECT array_agg(x + $2 ORDER BY i) FROM unnest(ts) WITH ORDINALITY AS a(x, i)) WHERE launch_id = $1`,
		`UPDATE launch_phases SET begin_at = begin_at + $2, end_at = end_at + $2 WHERE launch_id = $1`,
		`UPDATE launches SET ready_at = ready_at + $2 WHERE id = $1`,
		`UPDATE alarms SET occurred_at = occurred_at + $2 WHERE launch_id = $1`,
	} {
		if _, err := t.tx.Exec(ctx, q, launchID, delta); err != nil {
			return fmt.Errorf("store: shift clock: %w", err)
		}
	}
	return t.shiftGaps(ctx, launchID, delta)
}

// RetimeBefore sets the time of the launch's stored lines before seq, and
// of the phases they began or ended, to ts: they had no log time of their
// own, and the first line that has one is the neighbour they take it from.
func (t *Tx) RetimeBefore(ctx context.Context, launchID, seq int64, ts time.Time) error {
	if err := t.ThawLines(ctx, launchID, 1, seq-1); err != nil {
		return err
	}
	for _, q := range []string{
		`UPDATE lines SET ts = $3 WHERE launch_id = $1 AND seq < $2`,
		`UPDATE launch_phases SET begin_at = $3 WHERE launch_id = $1 AND begin_seq < $2`,
		`UPDATE launch_phases SET end_at = $3 WHERE launch_id = $1 AND end_seq < $2`,
		`UPDATE launches SET ready_at = $3 WHERE id = $1 AND ready_seq < $2`,
	} {
		if _, err := t.tx.Exec(ctx, q, launchID, seq, ts); err != nil {
			return fmt.Errorf("store: retime lines: %w", err)
		}
	}
	return t.retimeGaps(ctx, launchID, seq, ts)
}

var everyLineSQL = lineRead{launch: "$1", cols: lineColumnsAll, order: true}.sql()

// EveryLine returns every stored line of a launch with every column, in
// seq order, rows and blocks alike: for a benchmark's copy of what ingest
// stored. It holds them all in memory.
func (s *Store) EveryLine(ctx context.Context, launchID int64) ([]Line, error) {
	rows, err := s.pool.Query(ctx, everyLineSQL, launchID)
	if err != nil {
		return nil, fmt.Errorf("store: every line: %w", err)
	}
	defer rows.Close()
	var out []Line
	var fill textFill
	for rows.Next() {
		out = append(out, Line{})
		l := &out[len(out)-1]
		if err := rows.Scan(&l.Seq, &l.TS, &l.ReceivedAt, &l.LoggedAt, &l.Stream, &l.Kind, &l.Level, &l.Rank, &l.AlarmNo,
			fill.scan(&l.Text, &l.Seq, len(out)-1)); err != nil {
			return nil, fmt.Errorf("store: every line: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: every line: %w", err)
	}
	if err := fill.fill(ctx, s.pool, launchID, func(i int, text string) { out[i].Text = text }); err != nil {
		return nil, err
	}
	return out, nil
}
