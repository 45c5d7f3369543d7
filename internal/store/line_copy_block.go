package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
)

// Write once: a line written as a row and compacted into a block later is
// written twice (and its row's index entries, and the delete), and a row
// costs more than its text while it waits. So a batch that continues its
// launch with every seq in a run writes the blocks it completes straight
// into line_blocks, in the same binary COPY shape CompactLines would have
// produced (one row per 64 seqs, each column an array in seq order, TOAST
// compressing the arrays), from the same pass that feeds the search index
// and the template summary. Only the block the run leaves incomplete (its
// tail) and the lines an index of lines serves (keptAsRows) become rows.
// The invariant of compacted_through holds as before: below it every line
// is in a block or kept as a row, at or beyond it no block lies; the run
// moves it to the end of the last block it wrote.

// maxFoldedHead bounds the rows below a run that it folds into its first
// block (the tail of the batches before, at or after compacted_through):
// normally under a block's worth. A launch whose compacted_through lags
// further (stored before blocks were written at ingest) is left to the
// compaction worker, which brings it within upkeep.CompactTail (16,384
// seqs) of its last line, so the fold catches up once that is within
// reach: twice that.
const maxFoldedHead = 2 * 16384

// blockCopyColumns are the columns of line_blocks a COPY of blocks writes,
// in the order blockCopy encodes them.
var blockCopyColumns = append(append([]string{"launch_id", "block", "min_ts", "max_ts", "n"}, blockColumns...), "texts")

// The OIDs of the arrays' element types, which a binary array names.
const (
	oidInt4        = 23
	oidInt8        = 20
	oidText        = 25
	oidTimestamptz = 1184
)

// keptAsRow is keptAsRows for a line in Go.
func keptAsRow(l *Line) bool {
	return l.Kind == "error" || l.Kind == "ready" || l.AlarmNo != nil
}

// CopyLineRun is CopyLineStream for new lines that hold every seq from
// first to last (next returns exactly those, in order) after the launch's
// last stored line: the complete blocks of the run from compacted_through
// on go straight into line_blocks, the rest into lines. The launch is
// locked by this transaction (LockLaunch). A run that completes no block
// from there is stored by CopyLineStream alone.
func (t *Tx) CopyLineRun(ctx context.Context, launchID int64, index *LineIndex, first, last int64, next func() ([]Line, error)) error {
	ct, locked := t.compacted[launchID]
	end := (last + 1) >> blockShift << blockShift // the end (exclusive) of the run's last complete block
	if !locked || first > last || end <= ct || end <= first || first-ct > maxFoldedHead {
		return t.CopyLineStream(ctx, launchID, index, next)
	}
	var head []Line
	if first > ct {
		// The run starts inside a block: the rows of it before the run
		// (the previous batches' tail) go into the block too.
		var err error
		if head, err = t.foldHead(ctx, launchID, ct, first); err != nil {
			return err
		}
	}
	src := &blockCopy{next: next, launchID: launchID, from: ct, end: end, head: head}
	n, err := t.copyFrom(ctx, "line_blocks", blockCopyColumns, src)
	if failed := src.failure(); failed != nil {
		err = failed
	}
	if err != nil {
		return fmt.Errorf("store: copy line blocks: %w", err)
	}
	if n != src.blocks {
		return fmt.Errorf("store: copy line blocks: wrote %d of %d", n, src.blocks)
	}
	if len(src.rows) > 0 {
		rows := src.rows
		if _, err := t.copyFrom(ctx, "lines", copyLineColumns, &lineCopy{launchID: launchID, next: func() ([]Line, error) {
			r := rows
			rows = nil
			return r, nil
		}}); err != nil {
			return fmt.Errorf("store: copy lines: %w", err)
		}
	}
	if _, err := t.tx.Exec(ctx, `UPDATE launches SET compacted_through = $2 WHERE id = $1`, launchID, end); err != nil {
		return fmt.Errorf("store: copy line blocks: %w", err)
	}
	t.compacted[launchID] = end
	if src.lines == 0 {
		return nil
	}
	if err := t.addLineChunks(ctx, launchID, index.blooms); err != nil {
		return err
	}
	return t.addLineTemplates(ctx, launchID, &index.templates)
}

// foldHead deletes the launch's rows with seq in [from, to), but for the
// lines kept as rows, and returns them in seq order: they are indexed
// already (search, templates) and go into the run's first block.
func (t *Tx) foldHead(ctx context.Context, launchID, from, to int64) ([]Line, error) {
	head, err := t.takeRows(ctx, foldHeadSQL, launchID, from, to)
	if err != nil {
		return nil, fmt.Errorf("store: fold rows into a block: %w", err)
	}
	return head, nil
}

// blockCopy is the body of a binary COPY of line_blocks (blockCopyColumns)
// for the lines next returns: the lines with seq in [from, end) that are
// not kept as rows are encoded a block at a time as their block ends; the
// others are kept in rows, for a COPY into lines after this one (a block's
// tail and the few lines the partial indexes serve).
type blockCopy struct {
	next     func() ([]Line, error)
	launchID int64
	from     int64  // the first seq that goes into a block
	end      int64  // the seq after the last one that goes into a block
	head     []Line // lines of the first block stored before (foldHead)
	// partial writes a block the lines leave incomplete at their end
	// (compaction: a quiet launch's last block, blocks with holes).
	partial bool
	block   []Line // the current block's lines so far
	rows    []Line // the lines that go into lines
	cur     []Line
	blocks  int64 // rows of line_blocks encoded
	lines   int64 // lines read from next
	copyStream
}

func (c *blockCopy) Read(p []byte) (int, error) { return c.read(p, c.fill) }

// fill encodes blocks until about want bytes are ready, as lineCopy.fill
// does rows.
func (c *blockCopy) fill(want int) error {
	if !c.started {
		c.buf = append(c.buf, copyHeader...)
		c.started = true
		for i := range c.head {
			if err := c.take(&c.head[i]); err != nil {
				return err
			}
		}
	}
	for len(c.buf) < want {
		if len(c.cur) == 0 {
			if len(c.buf) > 0 {
				return nil
			}
			piece, err := c.next()
			if err != nil {
				return err
			}
			if piece == nil {
				switch {
				case len(c.block) > 0 && c.partial:
					var err error
					if c.buf, err = c.appendBlock(c.buf); err != nil {
						return err
					}
				case len(c.block) > 0: // the caller's seqs ended early: never write a block the run did not complete
					return fmt.Errorf("the lines ended at seq %d, inside the run's blocks (before %d)", c.block[len(c.block)-1].Seq, c.end)
				}
				c.done = true
				return nil
			}
			c.cur = piece
			continue
		}
		c.lines++
		if err := c.take(&c.cur[0]); err != nil {
			return err
		}
		c.cur = c.cur[1:]
	}
	return nil
}

// take routes one line, in seq order, to its block or to rows, and encodes
// a block when the line ends it (or starts the next).
func (c *blockCopy) take(l *Line) error {
	var err error
	if len(c.block) > 0 && l.Seq>>blockShift != c.block[0].Seq>>blockShift {
		if c.buf, err = c.appendBlock(c.buf); err != nil {
			return err
		}
	}
	if l.Seq < c.from || l.Seq >= c.end || keptAsRow(l) {
		c.rows = append(c.rows, *l)
	} else {
		c.block = append(c.block, *l)
	}
	if l.Seq == c.end-1 && len(c.block) > 0 {
		c.buf, err = c.appendBlock(c.buf)
	}
	return err
}

// appendBlock encodes the current block's lines as one row of line_blocks
// and starts the next block.
func (c *blockCopy) appendBlock(b []byte) ([]byte, error) {
	ls := c.block
	c.block = c.block[:0]
	c.blocks++
	minTS, maxTS := ls[0].TS, ls[0].TS
	for i := range ls {
		if ls[i].TS.Before(minTS) {
			minTS = ls[i].TS
		}
		if ls[i].TS.After(maxTS) {
			maxTS = ls[i].TS
		}
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(blockCopyColumns)))
	b = appendInt8(b, c.launchID)
	b = appendInt8(b, ls[0].Seq>>blockShift)
	b = appendTimestamptz(b, minTS)
	b = appendTimestamptz(b, maxTS)
	b = binary.BigEndian.AppendUint32(b, 4)
	b = binary.BigEndian.AppendUint32(b, uint32(len(ls)))
	// The arrays, in the order of blockColumns.
	b = appendArray(b, oidInt8, ls, func(b []byte, l *Line) []byte { return appendInt8(b, l.Seq) })
	b = appendArray(b, oidTimestamptz, ls, func(b []byte, l *Line) []byte { return appendTimestamptz(b, l.TS) })
	b = appendArray(b, oidTimestamptz, ls, func(b []byte, l *Line) []byte { return appendTimestamptz(b, l.ReceivedAt) })
	b = appendArray(b, oidTimestamptz, ls, func(b []byte, l *Line) []byte {
		if l.LoggedAt == nil {
			return appendNull(b)
		}
		return appendTimestamptz(b, *l.LoggedAt)
	})
	b = appendArray(b, oidText, ls, func(b []byte, l *Line) []byte { return appendText(b, l.Stream) })
	b = appendArray(b, oidText, ls, func(b []byte, l *Line) []byte { return appendText(b, l.Kind) })
	b = appendArray(b, oidText, ls, func(b []byte, l *Line) []byte { return appendText(b, l.Level) })
	b = appendArray(b, oidText, ls, func(b []byte, l *Line) []byte { return appendText(b, l.Rank) })
	// A line with an alarm is kept as a row: a block's alarm numbers are
	// all NULL, as compaction leaves them.
	b = appendArray(b, oidInt4, ls, func(b []byte, _ *Line) []byte { return appendNull(b) })
	// The texts, compressed here (line_block_text.go), as bytea.
	at := len(b)
	b = binary.BigEndian.AppendUint32(b, 0) // the field's length, set below
	b = encodeBlockTexts(b, ls)
	if len(b)-at-4 > math.MaxInt32 {
		return nil, fmt.Errorf("the block of line %d is too long", ls[0].Seq)
	}
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b, nil
}

// appendArray encodes a one-dimensional array (lower bound 1) of one value
// per line, each encoded by elem, in PostgreSQL's binary array format: the
// dimensions, whether any element is NULL, the element type, then each
// element with its length.
func appendArray(b []byte, oid uint32, ls []Line, elem func([]byte, *Line) []byte) []byte {
	at := len(b)
	b = binary.BigEndian.AppendUint32(b, 0) // the field's length, set below
	b = binary.BigEndian.AppendUint32(b, 1) // dimensions
	flags := len(b)
	b = binary.BigEndian.AppendUint32(b, 0) // has NULLs, set below
	b = binary.BigEndian.AppendUint32(b, oid)
	b = binary.BigEndian.AppendUint32(b, uint32(len(ls)))
	b = binary.BigEndian.AppendUint32(b, 1) // lower bound
	nulls := false
	for i := range ls {
		e := len(b)
		b = elem(b, &ls[i])
		nulls = nulls || binary.BigEndian.Uint32(b[e:]) == math.MaxUint32
	}
	if nulls {
		binary.BigEndian.PutUint32(b[flags:], 1)
	}
	binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b
}
