package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// LineFilter selects a window of a launch's lines for the log view.
type LineFilter struct {
	After      int64 // only lines with a greater seq
	Limit      int
	ErrorsOnly bool // only lines of an alarm or of kind error
	HideConfig bool // leave out configuration dumps
	// HideSuppressed leaves out the lines of alarms a rule suppressed, so
	// "errors only" shows what still needs a person.
	HideSuppressed bool
}

// FilteredLines returns up to f.Limit lines after f.After that pass f, in
// order. The primary key (launch_id, seq) makes every window an index range
// scan, so a million-line launch pages as fast as a small one; "errors
// only" is written as the exact predicate of lines_errors_idx so it is an
// index scan too, instead of a filter over every line.
func (s *Store) FilteredLines(ctx context.Context, launchID int64, f LineFilter) ([]Line, error) {
	q := `
		SELECT seq, ts, received_at, stream, kind, level, rank, alarm_no, text
		FROM lines
		WHERE launch_id = $1 AND seq > $2`
	if f.ErrorsOnly {
		q += ` AND (kind = 'error' OR alarm_no IS NOT NULL)`
	}
	if f.HideConfig {
		q += ` AND kind <> 'config'`
	}
	if f.HideSuppressed {
		q += ` AND (alarm_no IS NULL OR NOT EXISTS (
			SELECT 1 FROM alarms a WHERE a.launch_id = $1 AND a.alarm_no = lines.alarm_no AND a.state = 'suppressed'))`
	}
	q += ` ORDER BY seq LIMIT $3`
	rows, err := s.pool.Query(ctx, q, launchID, f.After, f.Limit)
	if err != nil {
		return nil, fmt.Errorf("store: filtered lines: %w", err)
	}
	return collectLines(rows)
}

// LinesBetween returns the lines with seq in [from, to], at most limit.
func (s *Store) LinesBetween(ctx context.Context, launchID, from, to int64, limit int) ([]Line, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT seq, ts, received_at, stream, kind, level, rank, alarm_no, text
		FROM lines WHERE launch_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq LIMIT $4`, launchID, from, to, limit)
	if err != nil {
		return nil, fmt.Errorf("store: lines between: %w", err)
	}
	return collectLines(rows)
}

func collectLines(rows pgx.Rows) ([]Line, error) {
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Line, error) {
		var l Line
		err := row.Scan(&l.Seq, &l.TS, &l.ReceivedAt, &l.Stream, &l.Kind, &l.Level, &l.Rank, &l.AlarmNo, &l.Text)
		return l, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: lines: %w", err)
	}
	return out, nil
}

// LineSpan returns the times of a launch's first and last lines (by seq),
// or zero times when it has none.
func (s *Store) LineSpan(ctx context.Context, launchID int64) (first, last time.Time, err error) {
	var f, l *time.Time
	err = s.pool.QueryRow(ctx, `
		SELECT (SELECT ts FROM lines WHERE launch_id = $1 ORDER BY seq LIMIT 1),
			(SELECT ts FROM lines WHERE launch_id = $1 ORDER BY seq DESC LIMIT 1)`, launchID).Scan(&f, &l)
	if err != nil {
		return first, last, fmt.Errorf("store: line span: %w", err)
	}
	if f != nil && l != nil {
		first, last = *f, *l
	}
	return first, last, nil
}

// Gap is a stretch of a launch in which no line was written.
type Gap struct {
	From, To        time.Time
	AfterSeq, ToSeq int64
}

// Gaps returns up to limit stretches longer than min between consecutive
// lines, in order. It reads every line time of the launch once; the
// timeline is drawn once per page view, not per line.
func (s *Store) Gaps(ctx context.Context, launchID int64, min time.Duration, limit int) ([]Gap, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT prev_ts, ts, prev_seq, seq FROM (
			SELECT ts, seq, lag(ts) OVER (ORDER BY seq) AS prev_ts, lag(seq) OVER (ORDER BY seq) AS prev_seq
			FROM lines WHERE launch_id = $1
		) g
		WHERE ts - prev_ts > $2 ORDER BY seq LIMIT $3`, launchID, min, limit)
	if err != nil {
		return nil, fmt.Errorf("store: gaps: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Gap, error) {
		var g Gap
		err := row.Scan(&g.From, &g.To, &g.AfterSeq, &g.ToSeq)
		return g, err
	})
	if err != nil {
		return nil, fmt.Errorf("store: gaps: %w", err)
	}
	return out, nil
}
