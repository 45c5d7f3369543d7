package store

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// LineFilter selects a window of a launch's lines for the log view.
type LineFilter struct {
	After int64 // only lines with a greater seq
	// Before, when above 0, reads backwards instead: the last Limit lines
	// with a smaller seq (the previous window, or the last one).
	Before     int64
	Limit      int
	ErrorsOnly bool // only lines of an alarm or of kind error
	HideConfig bool // leave out configuration dumps
	// HideSuppressed leaves out the lines of alarms a rule suppressed, so
	// "errors only" shows what still needs a person.
	HideSuppressed bool
	// Level, Stream, Rank and Kind keep only lines with that value.
	Level, Stream, Rank, Kind string
	// Contains keeps lines holding it, ASCII letters in either case (in Go:
	// the texts of blocks are not SQL's, line_block_text.go).
	Contains string
	// Match keeps lines its RE2 expression matches (in Go: PostgreSQL's
	// regular expressions are not RE2).
	Match *regexp.Regexp
	// ScanLimit bounds how many seqs one call reads past the cursor when a
	// filter no index serves is set (Narrowing); 0 is unbounded.
	ScanLimit int64
	// InRange keeps only lines with seq in [MinSeq, MaxSeq] (a zoomed
	// timeline's time range, see SeqRange); an empty range keeps none.
	InRange        bool
	MinSeq, MaxSeq int64
}

// Narrowing reports whether f filters on something no index serves, so a
// window may need to read far to fill: such windows scan at most
// ScanLimit seqs.
func (f LineFilter) Narrowing() bool {
	return f.Level != "" || f.Stream != "" || f.Rank != "" || f.Kind != "" || f.Contains != "" || f.Match != nil
}

// LineWindow is one window of a launch's filtered lines, in seq order.
type LineWindow struct {
	Lines []Line
	// More says whether lines may pass the filter beyond the window in the
	// reading direction; Cursor is where the next call continues: the
	// after= (forwards) or before= (backwards) value.
	More   bool
	Cursor int64
	// ScannedFrom and ScannedTo are the seqs this call read, inclusive: a
	// bounded search tells the reader how far it looked.
	ScannedFrom, ScannedTo int64
}

// Lines of a window are read in one range of the primary key (launch_id,
// seq), so a million-line launch pages as fast as a small one. "Errors
// only" is written as the exact predicate of lines_errors_idx so it is an
// index scan too. Filters no index serves (level, stream, rank, kind,
// search) read at most ScanLimit seqs per call and say where they stopped,
// so a search for something rare costs one bounded range scan per page,
// not a scan of the whole launch.

// FilteredLines returns up to f.Limit lines after f.After that pass f, in
// order (no scan bound, forwards only).
func (s *Store) FilteredLines(ctx context.Context, launchID int64, f LineFilter) ([]Line, error) {
	f.Before, f.ScanLimit = 0, 0
	w, err := s.FilteredWindow(ctx, launchID, f, 0)
	return w.Lines, err
}

// FilteredWindow returns the window of lines f selects. lastSeq is the
// launch's last seq, which ends a bounded scan's range.
func (s *Store) FilteredWindow(ctx context.Context, launchID int64, f LineFilter, lastSeq int64) (LineWindow, error) {
	if w, ok, err := s.indexedSearch(ctx, launchID, f, lastSeq); ok || err != nil {
		return w, err
	}
	back := f.Before > 0
	var w LineWindow
	bounded := f.ScanLimit > 0 && f.Narrowing()
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch {
	case back:
		hi = f.Before - 1
		w.ScannedFrom, w.ScannedTo = 1, f.Before-1
		if bounded {
			w.ScannedFrom = max(1, f.Before-f.ScanLimit)
			lo = w.ScannedFrom
		}
	default:
		lo = f.After + 1
		w.ScannedFrom, w.ScannedTo = f.After+1, lastSeq
		if bounded {
			w.ScannedTo = f.After + f.ScanLimit
			hi = w.ScannedTo
		}
	}
	if f.InRange {
		lo, hi = max(lo, f.MinSeq), min(hi, f.MaxSeq)
	}
	q := &launchQuery{}
	r := lineRead{launch: q.arg(launchID), cols: lineColumnList, back: back, order: true,
		// Lines of alarms and errors are always rows (keptAsRows), found
		// by lines_errors_idx: the blocks hold none of them.
		rowsOnly: f.ErrorsOnly}
	f.lineConds(q)
	r.conds, r.uses = q.conds, lineColumnList
	// An unbounded read with filters goes by spans (filteredSpans); the
	// others are one statement.
	spans := !bounded && !f.ErrorsOnly && (len(r.conds) > 0 || f.goSide())
	if lo != math.MinInt64 || spans {
		r.lo = q.arg(lo)
	}
	loArg := len(q.args) - 1
	if hi != math.MaxInt64 || spans {
		r.hi = q.arg(hi)
	}
	hiArg := len(q.args) - 1
	if !f.goSide() {
		// With a Go-side match the range bound, not LIMIT, ends the read.
		r.limit = q.arg(f.Limit + 1)
	}
	if spans {
		if err := s.filteredSpans(ctx, launchID, &w, f, r, q.args, loArg, hiArg, lo, hi, lastSeq); err != nil {
			return w, err
		}
	} else {
		rows, err := s.read(ctx).Query(ctx, r.sql(), q.args...)
		if err != nil {
			return w, fmt.Errorf("store: filtered lines: %w", err)
		}
		if _, err := w.collect(ctx, s.read(ctx), launchID, rows, f); err != nil {
			return w, err
		}
	}
	w.finish(back)
	switch {
	case w.More:
	case bounded && back && w.ScannedFrom > 1:
		// The range ended before the window filled: more may lie before it.
		w.More, w.Cursor = true, w.ScannedFrom
	case bounded && !back && w.ScannedTo < lastSeq:
		w.More, w.Cursor = true, w.ScannedTo
	}
	if !back {
		w.ScannedTo = min(w.ScannedTo, max(lastSeq, f.After))
	}
	return w, nil
}

// filteredSpans fills w with the lines of an unbounded window with
// filters (r over args, whose bounds are args[loArg] and args[hiArg]) from
// spans of seqs that grow as they find little: the blocks' side of a
// filtered read cannot stop at a window's worth of blocks, so each read
// is bounded instead. lastSeq, the launch's last seq, ends a forward
// read; 0 is unknown.
func (s *Store) filteredSpans(ctx context.Context, launchID int64, w *LineWindow, f LineFilter, r lineRead, args []any,
	loArg, hiArg int, lo, hi, lastSeq int64) error {
	switch {
	case r.back:
		lo = max(lo, 1)
	case hi == math.MaxInt64 && lastSeq > 0:
		hi = lastSeq
	case hi == math.MaxInt64:
		if err := s.read(ctx).QueryRow(ctx, lastSeqSQL, launchID).Scan(&hi); err != nil {
			return fmt.Errorf("store: filtered lines: %w", err)
		}
	}
	sql := r.sql()
	for span := int64(4096); lo <= hi && !w.More; span = min(2*span, 1<<20) {
		a, b := lo, min(hi, lo+span-1)
		if r.back {
			a, b = max(lo, hi-span+1), hi
		}
		args[loArg], args[hiArg] = a, b
		rows, err := s.read(ctx).Query(ctx, sql, args...)
		if err != nil {
			return fmt.Errorf("store: filtered lines: %w", err)
		}
		if _, err := w.collect(ctx, s.read(ctx), launchID, rows, f); err != nil {
			return err
		}
		if r.back {
			hi = a - 1
		} else {
			lo = b + 1
		}
	}
	return nil
}

const lineColumns = `seq, ts, received_at, stream, kind, level, rank, alarm_no, text`

// lineColumnList is lineColumns, for lineRead.
var lineColumnList = strings.Split(lineColumns, ", ")

// lineConds adds the conditions of f on a line's kind, level, stream,
// rank and alarm to q. What f asks of a line's text (Contains, Match) is
// matched in Go (goSide): SQL cannot read the texts of a block.
func (f LineFilter) lineConds(q *launchQuery) {
	if f.ErrorsOnly {
		q.conds = append(q.conds, "(kind = 'error' OR alarm_no IS NOT NULL)")
	}
	if f.HideConfig {
		q.conds = append(q.conds, "kind <> 'config'")
	}
	if f.HideSuppressed {
		q.conds = append(q.conds, `(alarm_no IS NULL OR NOT EXISTS (
			SELECT 1 FROM alarms a WHERE a.launch_id = lines.launch_id AND a.alarm_no = lines.alarm_no AND a.state = 'suppressed'))`)
	}
	for _, c := range [...]struct{ col, v string }{{"level", f.Level}, {"stream", f.Stream}, {"rank", f.Rank}, {"kind", f.Kind}} {
		if c.v != "" {
			q.conds = append(q.conds, c.col+" = "+q.arg(c.v))
		}
	}
}

// goSide reports whether f filters on the text, which collect does in Go.
func (f LineFilter) goSide() bool { return f.Match != nil || f.Contains != "" }

// matches reports whether a line's text passes f's Contains (lowered by
// lowerASCII) and Match.
func (f LineFilter) matches(text string, contains string) bool {
	if contains != "" && !containsFoldASCII(text, contains) {
		return false
	}
	return f.Match == nil || f.Match.MatchString(text)
}

// lowerASCII lowers the ASCII letters of s alone: Contains folds case as
// ILIKE did in the database's C collation when texts were SQL's (the
// Kelvin sign is no k, İ no i).
func lowerASCII(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// containsFoldASCII reports whether s holds lower (lowered by lowerASCII)
// with its ASCII letters in either case, without a lowered copy of s.
func containsFoldASCII(s, lower string) bool {
	if lower == "" {
		return true
	}
	first := lower[0]
	upper := first
	if first >= 'a' && first <= 'z' {
		upper -= 'a' - 'A'
	}
	for i := 0; i+len(lower) <= len(s); i++ {
		if c := s[i]; c != first && c != upper {
			continue
		}
		j := 1
		for ; j < len(lower); j++ {
			c := s[i+j]
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// collect reads rows of lines into w in the order they come, keeping those
// f.Match (if any) matches, until w holds f.Limit lines and one more is
// found (More). It returns how many rows it read.
// finish puts a window read backwards (newest first) in seq order and,
// when more lines match beyond it, sets the cursor to its far end: what
// was scanned ends there.
func (w *LineWindow) finish(back bool) {
	if back {
		slices.Reverse(w.Lines)
	}
	switch {
	case w.More && back:
		w.Cursor = w.Lines[0].Seq
		w.ScannedFrom = w.Cursor
	case w.More:
		w.Cursor = w.Lines[len(w.Lines)-1].Seq
		w.ScannedTo = w.Cursor
	}
}

func (w *LineWindow) collect(ctx context.Context, q querier, launchID int64, rows pgx.Rows, f LineFilter) (int, error) {
	var ls []Line
	var fill textFill
	defer rows.Close()
	for rows.Next() {
		ls = append(ls, Line{})
		l := &ls[len(ls)-1]
		if err := rows.Scan(&l.Seq, &l.TS, &l.ReceivedAt, &l.Stream, &l.Kind, &l.Level, &l.Rank, &l.AlarmNo, fill.scan(&l.Text, &l.Seq, len(ls)-1)); err != nil {
			return len(ls), fmt.Errorf("store: filtered lines: %w", err)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return len(ls), fmt.Errorf("store: filtered lines: %w", err)
	}
	if err := fill.fill(ctx, q, launchID, func(i int, text string) { ls[i].Text = text }); err != nil {
		return len(ls), err
	}
	contains := lowerASCII(f.Contains)
	for i := range ls {
		if !f.matches(ls[i].Text, contains) {
			continue
		}
		if len(w.Lines) == f.Limit {
			w.More = true
			break
		}
		w.Lines = append(w.Lines, ls[i])
	}
	return len(ls), nil
}

var linesBetweenSQL = lineRead{launch: "$1", lo: "$2", hi: "$3", cols: lineColumnList, order: true, limit: "$4"}.sql()

// LinesBetween returns the lines with seq in [from, to], at most limit.
func (s *Store) LinesBetween(ctx context.Context, launchID, from, to int64, limit int) ([]Line, error) {
	q := s.read(ctx)
	rows, err := q.Query(ctx, linesBetweenSQL, launchID, from, to, limit)
	if err != nil {
		return nil, fmt.Errorf("store: lines between: %w", err)
	}
	return collectLines(ctx, q, launchID, rows)
}

// collectLines reads rows of lineColumns of the launch's lines, their
// texts filled in where they lie in blocks (by q, which read rows).
func collectLines(ctx context.Context, q querier, launchID int64, rows pgx.Rows) ([]Line, error) {
	var fill textFill
	var out []Line
	defer rows.Close()
	for rows.Next() {
		out = append(out, Line{})
		l := &out[len(out)-1]
		if err := rows.Scan(&l.Seq, &l.TS, &l.ReceivedAt, &l.Stream, &l.Kind, &l.Level, &l.Rank, &l.AlarmNo, fill.scan(&l.Text, &l.Seq, len(out)-1)); err != nil {
			return nil, fmt.Errorf("store: lines: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: lines: %w", err)
	}
	if err := fill.fill(ctx, q, launchID, func(i int, text string) { out[i].Text = text }); err != nil {
		return nil, err
	}
	return out, nil
}

// LineSpan returns the times of a launch's first and last lines (by seq),
// or zero times when it has none. Each is read from the 64 seqs that must
// hold it: from the lowest seq of a row or the start of the first block
// (the highest row or the end of the last block), two probes of primary
// keys, so the blocks between are not counted through.
func (s *Store) LineSpan(ctx context.Context, launchID int64) (first, last time.Time, err error) {
	var f, l *time.Time
	span := fmt.Sprint(1<<blockShift - 1)
	first1 := lineRead{launch: "$1", lo: "sp.lo", hi: "sp.lo + " + span, cols: []string{"seq", "ts"}, limit: "1"}
	last1 := lineRead{launch: "$1", lo: "sp.hi - " + span, hi: "sp.hi", cols: []string{"seq", "ts"}, limit: "1", back: true}
	err = s.read(ctx).QueryRow(ctx, `
		SELECT (SELECT ts FROM (`+first1.sql()+`) f), (SELECT ts FROM (`+last1.sql()+`) l)
		FROM (SELECT
			LEAST((SELECT min(seq) FROM lines WHERE launch_id = $1),
				(SELECT min(block) FROM line_blocks WHERE launch_id = $1) << `+fmt.Sprint(blockShift)+`) AS lo,
			GREATEST((SELECT max(seq) FROM lines WHERE launch_id = $1),
				(((SELECT max(block) FROM line_blocks WHERE launch_id = $1) + 1) << `+fmt.Sprint(blockShift)+`) - 1) AS hi) sp`,
		launchID).Scan(&f, &l)
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
// lines, in order.
//
// They come from the launch's gap summary (launch_gaps, which ingest keeps
// as it stores lines: gap_summary.go) as far as it holds, and from the
// lines after that (scanGaps): nothing at all for a launch whose summary
// holds every line, the lines after a gap fill until the compaction worker
// repairs the summary, every line of a launch that has none. A threshold
// below GapFloor, which the summary does not keep, reads every line.
func (s *Store) Gaps(ctx context.Context, launchID int64, min time.Duration, limit int) ([]Gap, error) {
	q := s.read(ctx)
	if min < GapFloor {
		return scanGaps(ctx, q, launchID, 0, min, limit)
	}
	out, through, last, err := s.summaryGaps(ctx, q, launchID, min, limit)
	if err != nil || len(out) >= limit || through >= last {
		return out, err
	}
	more, err := scanGaps(ctx, q, launchID, through, min, limit-len(out))
	return append(out, more...), err
}

// scanGaps finds up to limit (0: every) stretches longer than min between
// consecutive lines whose later line's seq is past after (the first one's
// earlier line the last at or before after), in order, from the lines.
//
// Reading every line time of a million-line launch to find them took
// 600 ms. They are found from the time spans of 512-seq segments instead
// (segment = seq >> blockShift: a block, with the rows kept beside it):
// a stretch between two consecutive lines is no longer than the span of
// their segments (one, or two neighbours in seq order), so only the lines
// of segments whose span, alone or with a neighbour's, exceeds min can
// bound one. Those are read, in runs of neighbouring segments, and the
// stretches taken between consecutive lines of one run (each run sorted
// on its own: one sort of them all spilled to disk), run after run in
// seq order (a run's number only grows with its seqs) until limit are
// found. A block's span is its min_ts and max_ts; nothing else of the
// blocks is read. A log whose times jump back and forth (logs of years
// apart one after the other) leaves few segments out: the summary is what
// spares a page this.
func scanGaps(ctx context.Context, q querier, launchID, after int64, min time.Duration, limit int) ([]Gap, error) {
	lines := lineRead{launch: "$1", lo: fmt.Sprintf("GREATEST(r.lo << %d, (SELECT lo FROM f))", blockShift),
		hi: fmt.Sprintf("((r.hi + 1) << %d) - 1", blockShift), cols: []string{"seq", "ts"}}
	// f.lo: the last line at or before after, whose stretch to the next
	// line is the first one counted.
	seam := lineRead{launch: "$1", hi: "$4", cols: []string{"seq"}, limit: "1", back: true}
	var lim *int64 // NULL: no limit
	if limit > 0 {
		n := int64(limit)
		lim = &n
	}
	rows, err := q.Query(ctx, `
		WITH f AS MATERIALIZED (
			SELECT COALESCE((SELECT seq FROM (`+seam.sql()+`) s), $4::bigint) AS lo
		), seg AS (
			SELECT seg, min(mn) AS mn, max(mx) AS mx FROM (
				SELECT block AS seg, min_ts AS mn, max_ts AS mx FROM line_blocks
				WHERE launch_id = $1 AND block >= (SELECT lo FROM f) >> `+fmt.Sprint(blockShift)+`
				UNION ALL
				SELECT seq >> `+fmt.Sprint(blockShift)+`, ts, ts FROM lines WHERE launch_id = $1 AND seq >= (SELECT lo FROM f)
			) u GROUP BY seg
		), near AS (
			SELECT seg, mn, mx, row_number() OVER o AS i,
				lag(mn) OVER o AS pmn, lag(mx) OVER o AS pmx, lead(mn) OVER o AS nmn, lead(mx) OVER o AS nmx
			FROM seg WINDOW o AS (ORDER BY seg)
		), maybe AS (
			SELECT seg, i FROM near
			WHERE mx - mn > $2 OR GREATEST(mx, pmx) - LEAST(mn, pmn) > $2 OR GREATEST(mx, nmx) - LEAST(mn, nmn) > $2
		), r AS (
			SELECT run, min(seg) AS lo, max(seg) AS hi FROM (
				SELECT seg, i - row_number() OVER (ORDER BY seg) AS run FROM maybe
			) m GROUP BY run
		)
		SELECT g.* FROM (SELECT * FROM r ORDER BY run) r CROSS JOIN LATERAL (
			SELECT prev_ts, ts, prev_seq, seq FROM (
				SELECT ts, seq, lag(ts) OVER o AS prev_ts, lag(seq) OVER o AS prev_seq
				FROM (`+lines.sql()+`) AS l WINDOW o AS (ORDER BY seq)
			) w WHERE ts - prev_ts > $2 AND seq > $4
		) g
		ORDER BY r.run, g.seq LIMIT $3::bigint`, launchID, min, lim, after)
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

// SeqRange returns the seqs of the lines of a time range on the launch
// clock, for a zoomed log view: first is the earliest line at or after
// from, last the latest at or before to (a zero to is open). Lines are
// almost always in time order, so the seqs between them are the range's
// lines. Both are 0 when no line lies in the range. It is two probes of
// lines_time_idx.
func (s *Store) SeqRange(ctx context.Context, launchID int64, from, to time.Time) (first, last int64, err error) {
	if to.IsZero() {
		to = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	// Blocks are chosen by their time span; lines_time_idx serves the rows.
	inRange := `SELECT seq, ts FROM lines WHERE launch_id = $1 AND ts >= $2 AND ts <= $3
		UNION ALL
		SELECT u.seq, u.ts FROM line_blocks b CROSS JOIN LATERAL unnest(b.seq, b.ts) AS u(seq, ts)
		WHERE b.launch_id = $1 AND b.max_ts >= $2 AND b.min_ts <= $3 AND u.ts >= $2 AND u.ts <= $3`
	err = s.read(ctx).QueryRow(ctx, `
		SELECT COALESCE((SELECT seq FROM (`+inRange+`) r ORDER BY ts, seq LIMIT 1), 0),
			COALESCE((SELECT seq FROM (`+inRange+`) r ORDER BY ts DESC, seq DESC LIMIT 1), 0)`, launchID, from, to).Scan(&first, &last)
	if err != nil {
		return 0, 0, fmt.Errorf("store: seq range: %w", err)
	}
	if first > last {
		first, last = 0, 0
	}
	return first, last, nil
}

// ReadyLines returns up to limit of the launch's readiness lines (kind
// ready) in order, by lines_ready_idx: a server that restarted inside one
// launch became ready more than once, and the launch keeps only the first.
func (s *Store) ReadyLines(ctx context.Context, launchID int64, limit int) ([]Line, error) {
	q := s.read(ctx)
	rows, err := q.Query(ctx, `SELECT `+lineColumns+` FROM lines
		WHERE launch_id = $1 AND kind = 'ready' ORDER BY seq LIMIT $2`, launchID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: ready lines: %w", err)
	}
	return collectLines(ctx, q, launchID, rows)
}
