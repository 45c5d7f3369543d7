package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Lines at rest are stored in compressed blocks of 512 consecutive seqs
// (line_blocks, migrations 00020 and 00041): a row per line costs more than its text.
// A line is a row of lines or an element of a block, never both. Every
// read takes the union of the two (lineRead); every write that adds or
// rewrites lines first turns the blocks it touches back into rows
// (ThawLines), so blocks are only ever written whole: by CompactLines, or
// by CopyLineRun for the blocks an in-order batch completes (write once).

// blockShift is log2 of the seqs per block: block = seq >> blockShift.
const blockShift = 9

// BlockStart is the first seq of the block that holds seq.
func BlockStart(seq int64) int64 { return seq >> blockShift << blockShift }

// blockColumns are the columns of lines a block holds as an array each, in
// seq order; the texts are one zstd bytea beside them (texts,
// line_block_text.go).
var blockColumns = []string{"seq", "ts", "received_at", "logged_at", "stream", "kind", "level", "rank", "alarm_no"}

// lineColumnsAll is every column of a line, as a block's lines are
// written and read back (blockColumns and text).
var lineColumnsAll = append(slices.Clone(blockColumns), "text")

// keptAsRows is the condition on a line that keeps it a row when its block
// is compacted: the lines the partial indexes of lines serve (errors,
// alarms, readiness), which are few and read by those indexes alone.
const keptAsRows = `(kind IN ('error', 'ready') OR alarm_no IS NOT NULL)`

// lineRead is a query of a launch's lines wherever they are stored: the
// union of the rows of lines and the unpacked arrays of line_blocks, each
// side bounded, filtered, ordered and limited on its own, so that a window
// of a million-line launch reads a few blocks, not all of them. launch,
// lo and hi are SQL expressions (parameters, or a lateral row's columns);
// conds are conditions on the columns of lines (a line is named lines),
// never on text: a line in a block has its text NULL here (SQL cannot
// read a block's texts), and the caller fills it in (textFill).
type lineRead struct {
	launch string
	lo, hi string   // seq bounds, inclusive; "" is open
	cols   []string // the columns read, in order
	conds  []string
	back   bool   // order by seq descending instead of ascending
	order  bool   // order the result by seq
	limit  string // at most this many lines; "" is all
	// uses are columns conds need beyond cols. With conds and no uses,
	// every column is unpacked.
	uses []string
	// rowsOnly reads lines alone: conds select only lines kept as rows
	// (keptAsRows), which no block holds.
	rowsOnly bool
}

// sql is the statement of r. Only the arrays a query needs are unpacked,
// so a read of times decompresses no text.
func (r lineRead) sql() string {
	dir := ""
	if r.back {
		dir = " DESC"
	}
	bound := func(col, shift string) []string {
		var c []string
		if r.lo != "" {
			c = append(c, col+" >= ("+r.lo+")::bigint"+shift)
		}
		if r.hi != "" {
			c = append(c, col+" <= ("+r.hi+")::bigint"+shift)
		}
		return c
	}
	cols := strings.Join(r.cols, ", ")
	tail := func(orderBy string) string {
		s := ""
		if r.order || r.limit != "" {
			s += " ORDER BY " + orderBy
		}
		if r.limit != "" {
			s += " LIMIT " + r.limit
		}
		return s
	}
	hot := "SELECT " + cols + " FROM lines WHERE " + strings.Join(append(append([]string{"launch_id = " + r.launch}, bound("seq", "")...), r.conds...), " AND ") +
		tail("seq"+dir)
	need := map[string]bool{"seq": true}
	for _, c := range r.cols {
		need[c] = true
	}
	for _, c := range r.uses {
		need[c] = true
	}
	if len(r.conds) > 0 && len(r.uses) == 0 {
		for _, c := range blockColumns {
			need[c] = true
		}
	}
	var arrays, names []string
	for _, c := range blockColumns {
		if need[c] {
			arrays, names = append(arrays, "b."+c), append(names, c)
		}
	}
	blockConds := append([]string{"b.launch_id = " + r.launch}, bound("b.block", fmt.Sprintf(" >> %d", blockShift))...)
	lineConds := append(bound("seq", ""), r.conds...)
	where := ""
	if len(lineConds) > 0 {
		where = " WHERE " + strings.Join(lineConds, " AND ")
	}
	blockRows, blockWhere := "line_blocks b", " WHERE "+strings.Join(blockConds, " AND ")
	if r.limit != "" && len(r.conds) == 0 {
		// A window of N lines needs the blocks until N lines, in order:
		// counted by n, before a single array is unpacked. Only the first
		// block can hold lines outside the range (a block's worth, less
		// one), so it counts for nothing.
		blockRows = "(SELECT * FROM (SELECT b.*, sum(b.n) OVER (ORDER BY b.block" + dir + ") - b.n AS lines_before FROM line_blocks b" +
			blockWhere + ") w WHERE lines_before < (" + r.limit + ")::bigint + " + fmt.Sprint(1<<blockShift-1) + ") b"
		blockWhere = ""
	}
	text := ""
	if need["text"] {
		text = "NULL::text AS text, "
	}
	blocks := "SELECT " + cols + " FROM (SELECT b.block, b.launch_id, " + text + "u.* FROM " + blockRows + " CROSS JOIN LATERAL unnest(" +
		strings.Join(arrays, ", ") + ") AS u(" + strings.Join(names, ", ") + ")" + blockWhere + ") AS lines" +
		where + tail("block"+dir+", seq"+dir)
	if r.rowsOnly {
		return hot
	}
	q := "SELECT " + cols + " FROM ((" + hot + ") UNION ALL (" + blocks + ")) AS lines"
	return q + tail("seq"+dir)
}

// ThawLines turns the blocks holding any seq in [lo, hi] back into rows of
// lines, so the caller may add lines there or rewrite them, and marks the
// launch thawed so the worker compacts them again. In a transaction that
// locked the launch, a range at or after its compacted_through (a launch's
// growing tail, every in-order batch) costs no statement.
func (t *Tx) ThawLines(ctx context.Context, launchID, lo, hi int64) error {
	if ct, ok := t.compacted[launchID]; lo > hi || ok && lo >= ct {
		return nil
	}
	return t.thaw(ctx, launchID, lo>>blockShift, hi>>blockShift, nil)
}

// ThawSeqs is ThawLines for the blocks of seqs alone (sorted): the lines
// whose verdicts a gap fill revised may lie far apart, and the blocks
// between them stay as they are.
func (t *Tx) ThawSeqs(ctx context.Context, launchID int64, seqs []int64) error {
	ct, ok := t.compacted[launchID]
	var blocks []int64
	for _, s := range seqs {
		if ok && s >= ct {
			break
		}
		if b := s >> blockShift; len(blocks) == 0 || blocks[len(blocks)-1] != b {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) == 0 {
		return nil
	}
	return t.thaw(ctx, launchID, blocks[0], blocks[len(blocks)-1], blocks)
}

// thaw turns the launch's blocks in [lo, hi] (and, with only, among only)
// back into rows.
func (t *Tx) thaw(ctx context.Context, launchID, lo, hi int64, only []int64) error {
	if only == nil {
		return t.thawBlocksGo(ctx, launchID, `block BETWEEN $2::bigint AND $3::bigint`, lo, hi)
	}
	return t.thawBlocksGo(ctx, launchID, `block BETWEEN $2::bigint AND $3::bigint AND block = ANY($4)`, lo, hi, only)
}

// compactSpan is the most seqs one CompactLines moves: it holds the
// launch's row lock meanwhile, so a batch of the launch waits for at most
// one span (about 30 ms).
const compactSpan = 4096

// CompactLines compacts the launch's lines with seq below through
// (exclusive) into blocks, but for the lines kept as rows, a span at a
// time: more says whether lines below through are left for another call.
// through is rounded down to a block's start unless it passes the
// launch's last seq: a quiet launch compacts its last, partial block too
// (a line that comes later thaws it). A thawed launch has its thawed
// blocks compacted first. It holds the launch's row lock, as a batch
// does, and takes it without waiting: a launch busy with a batch (or
// gone) is skipped (busy).
func (s *Store) CompactLines(ctx context.Context, launchID, through int64) (moved int64, more, busy bool, err error) {
	err = s.WithTx(ctx, func(t *Tx) error {
		var ct, last int64
		var thawed bool
		err := t.tx.QueryRow(ctx, `SELECT compacted_through, last_seq, thawed FROM launches WHERE id = $1 FOR UPDATE SKIP LOCKED`, launchID).
			Scan(&ct, &last, &thawed)
		if errors.Is(err, pgx.ErrNoRows) {
			busy = true
			return nil
		}
		if err != nil {
			return err
		}
		// Planned for its own range every time: a generic plan of the move
		// (pgx prepares statements) reads every row of the launch and takes
		// a second per span instead of 15 ms.
		if _, err := t.tx.Exec(ctx, `SET LOCAL plan_cache_mode = force_custom_plan`); err != nil {
			return err
		}
		quiet := through > last
		if !quiet {
			through = through >> blockShift << blockShift
		} else {
			through = (last>>blockShift + 1) << blockShift
		}
		lo, hi := ct, min(through, ct+compactSpan)
		if thawed {
			lo, hi = 0, ct // thawed blocks lie anywhere below compacted_through
		}
		if hi <= lo && !thawed {
			return nil
		}
		if moved, err = t.compact(ctx, launchID, lo, hi); err != nil {
			return err
		}
		ct = max(ct, hi)
		more = ct < through
		if _, err := t.tx.Exec(ctx, `UPDATE launches SET compacted_through = $2, thawed = false WHERE id = $1`, launchID, ct); err != nil {
			return err
		}
		if quiet && !more {
			_, err = t.tx.Exec(ctx, thinCheckpointsSQL, launchID)
		}
		return err
	})
	if err != nil {
		return 0, false, false, fmt.Errorf("store: compact lines: %w", err)
	}
	return moved, more, busy, nil
}

// restCheckpointEvery is how far apart, in seqs, the classifier states of
// a quiet launch are kept once it is compacted to its end. A live launch
// keeps one every 256 lines (pipeline's checkpointEvery), so that a gap
// fill near its growing end replays little; a quiet one is rarely written
// again, and 256-line checkpoints of it cost about a tenth of its log's
// bytes for nothing: a late line into it replays from up to this many
// lines before it (a few milliseconds of classification) instead.
const restCheckpointEvery = 4096

// thinCheckpointsSQL keeps, of the launch's ($1) checkpoints, the last one
// of every restCheckpointEvery seqs: so the launch's latest is always kept.
var thinCheckpointsSQL = `
	DELETE FROM classifier_checkpoints c
	USING (SELECT seq, row_number() OVER (PARTITION BY seq / ` + fmt.Sprint(restCheckpointEvery) + ` ORDER BY seq DESC) AS rn
		FROM classifier_checkpoints WHERE launch_id = $1) k
	WHERE c.launch_id = $1 AND c.seq = k.seq AND k.rn > 1`

// compact moves the launch's lines with seq in [lo, hi) into blocks, but
// for the lines kept as rows, and returns how many it moved. A block that
// exists keeps the rows beside it (the lines kept as rows; never plain
// lines, as ThawLines turns a block into rows before any write): blocks
// are written whole, once. The lines go through this process, which
// compresses their texts (line_block_text.go).
func (t *Tx) compact(ctx context.Context, launchID, lo, hi int64) (int64, error) {
	ls, err := t.takeRows(ctx, takeRowsSQL, launchID, lo, hi)
	if err != nil || len(ls) == 0 {
		return 0, err
	}
	src := &blockCopy{launchID: launchID, from: lo, end: hi, partial: true, next: onePiece(ls)}
	n, err := t.copyFrom(ctx, "line_blocks", blockCopyColumns, src)
	if failed := src.failure(); failed != nil {
		err = failed
	}
	if err != nil {
		return 0, err
	}
	if n != src.blocks || len(src.rows) > 0 {
		return 0, fmt.Errorf("wrote %d of %d blocks, %d lines left over", n, src.blocks, len(src.rows))
	}
	return int64(len(ls)), nil
}

// takeRowsSQL deletes the launch's ($1) rows with seq in [$2, $3) that no
// index of lines serves and that no block beside them holds back (a block
// that exists keeps its rows), and returns them in seq order, every column
// of a line.
var takeRowsSQL = `
	WITH gone AS (
		DELETE FROM lines l WHERE launch_id = $1 AND seq >= $2 AND seq < $3 AND NOT ` + keptAsRows + `
			AND NOT EXISTS (SELECT 1 FROM line_blocks b WHERE b.launch_id = $1 AND b.block = l.seq >> ` + fmt.Sprint(blockShift) + `)
		RETURNING ` + strings.Join(lineColumnsAll, ", ") + `
	)
	SELECT * FROM gone ORDER BY seq`

// foldHeadSQL is takeRowsSQL for rows at or after the launch's
// compacted_through, beside which no block lies: without the probe of
// line_blocks for every row.
var foldHeadSQL = `
	WITH gone AS (
		DELETE FROM lines WHERE launch_id = $1 AND seq >= $2 AND seq < $3 AND NOT ` + keptAsRows + `
		RETURNING ` + strings.Join(lineColumnsAll, ", ") + `
	)
	SELECT * FROM gone ORDER BY seq`

// takeRows runs sql, takeRowsSQL or foldHeadSQL.
func (t *Tx) takeRows(ctx context.Context, sql string, launchID, from, to int64) ([]Line, error) {
	rows, err := t.tx.Query(ctx, sql, launchID, from, to)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Line, error) {
		var l Line
		err := r.Scan(&l.Seq, &l.TS, &l.ReceivedAt, &l.LoggedAt, &l.Stream, &l.Kind, &l.Level, &l.Rank, &l.AlarmNo, &l.Text)
		return l, err
	})
}

// CompactCandidate is a launch with lines the worker may compact, and the
// seq to compact them up to.
type CompactCandidate struct {
	LaunchID int64
	Through  int64
}

// CompactCandidates returns up to limit launches with lines to compact,
// but for those in skip: a launch with no line since quietSince, through
// its end; any other, up to tail seqs before its last line, when that is a
// block or more beyond what is compacted (the lines near a live launch's
// tail are still being revised and read by followers). Thawed launches
// come too.
func (s *Store) CompactCandidates(ctx context.Context, quietSince time.Time, tail int64, limit int, skip []int64) ([]CompactCandidate, error) {
	rows, err := s.read(ctx).Query(ctx, `
		SELECT id, CASE WHEN last_line_at < $1 THEN last_seq + 1 ELSE last_seq - $2 END
		FROM launches
		WHERE (thawed OR (last_line_at < $1 AND last_seq >= compacted_through)
			OR last_seq - $2 >= compacted_through + `+fmt.Sprint(1<<blockShift)+`)
			AND id <> ALL($4::bigint[])
		ORDER BY last_line_at LIMIT $3`, quietSince, tail, limit, skip)
	if err != nil {
		return nil, fmt.Errorf("store: compact candidates: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (CompactCandidate, error) {
		var c CompactCandidate
		return c, r.Scan(&c.LaunchID, &c.Through)
	})
	if err != nil {
		return nil, fmt.Errorf("store: compact candidates: %w", err)
	}
	return out, nil
}

// DeleteLineRange deletes the launch's lines with seq in [lo, hi], rows
// and blocks alike (thawing the blocks it cuts into, ThawLines), in a
// transaction that locked the launch. Nothing in Launchwatch loses lines:
// storetest.LoseLines makes the loss a restore from an older backup would,
// for the tests of the shippers that repair it.
func (t *Tx) DeleteLineRange(ctx context.Context, launchID, lo, hi int64) error {
	if err := t.thaw(ctx, launchID, lo>>blockShift, hi>>blockShift, nil); err != nil {
		return err
	}
	if _, err := t.tx.Exec(ctx, `DELETE FROM lines WHERE launch_id = $1 AND seq BETWEEN $2 AND $3`, launchID, lo, hi); err != nil {
		return fmt.Errorf("store: delete lines: %w", err)
	}
	return t.CutGaps(ctx, launchID, lo-1)
}
