package store

import (
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/klauspost/compress/zstd"
)

// A block's texts are one bytea (line_blocks.texts, migration 00041): the
// texts in seq order, each after its length (a uvarint), compressed with
// zstd by this process. PostgreSQL stores the bytes as they come (STORAGE
// EXTERNAL), so a COPY of blocks costs the database no compression, and
// zstd over a 512-line block keeps about 0.19 bytes per byte of the
// corpus's logs where TOAST's lz4 over a 64-line array kept 0.35. SQL can
// read a block's other columns as before; a read of texts gets NULL for a
// line in a block (lineRead) and the caller fills them in (blockTexts).

// blockTextLevel is zstd's level for block texts: its fastest, 240 MB/s
// of the corpus's logs on one of the development machine's cores, keeps
// 0.185 bytes per byte of log; its default level keeps 0.179 at 140 MB/s.
// Ingest compresses the blocks it writes while it classifies the next
// lines, on the same two cores: the fastest costs it 0.14 s of CPU per
// 200,000 lines where the default cost 0.24.
const blockTextLevel = zstd.SpeedFastest

// maxBlockTexts bounds what one block's texts may decode to, against a
// damaged frame: far above a block of the longest lines a deployment is
// likely to keep (512 of the default 64 KiB are 32 MiB; web.Config's
// MaxLineBytes may raise it).
const maxBlockTexts = 1 << 30

var (
	// EncodeAll and DecodeAll may be called at once by as many goroutines
	// as there are cores (each takes an encoder of its own) and block no
	// more: every batch's COPY and every read compresses or decompresses
	// on its own goroutine.
	textEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(blockTextLevel), zstd.WithEncoderCRC(false),
		zstd.WithZeroFrames(true))
	textDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxBlockTexts))
)

// encodeBlockTexts appends the zstd frame of the texts of ls to b.
// EncodeAll is safe for concurrent use.
func encodeBlockTexts(b []byte, ls []Line) []byte {
	rp := rawTexts.Get().(*[]byte)
	raw := (*rp)[:0]
	for i := range ls {
		raw = binary.AppendUvarint(raw, uint64(len(ls[i].Text)))
		raw = append(raw, ls[i].Text...)
	}
	b = textEncoder.EncodeAll(raw, b)
	*rp = raw
	rawTexts.Put(rp)
	return b
}

// rawTexts holds the buffers a block's texts are laid out in before they
// are compressed (85 KB for a block of the corpus's lines): one per block
// would be most of what ingest allocates.
var rawTexts = sync.Pool{New: func() any { return new([]byte) }}

// decodeBlockTexts is the n texts encodeBlockTexts encoded into z.
func decodeBlockTexts(z []byte, n int) ([]string, error) {
	out := make([]string, n)
	err := decodeBlockTextsOf(z, n, func(int) bool { return true }, func(j int, s string) { out[j] = s })
	return out, err
}

// decodeBlockTextsOf decodes the n texts in z and hands those want wants
// (by index in the block) to set. The frame is decompressed into a pooled
// buffer and only the wanted texts are kept, in one allocation: a search
// wants a few of a block's lines, and a fresh 100 KB buffer a block
// (allocated, zeroed, grown) cost more than decompressing it.
func decodeBlockTextsOf(z []byte, n int, want func(j int) bool, set func(j int, s string)) error {
	bp := rawTexts.Get().(*[]byte)
	defer rawTexts.Put(bp)
	raw, err := textDecoder.DecodeAll(z, (*bp)[:0])
	if err != nil {
		return fmt.Errorf("store: a block's texts: %w", err)
	}
	*bp = raw
	type span struct{ j, off, len int }
	var spans []span
	kept, j := 0, 0
	for off := 0; off < len(raw); j++ {
		l, k := binary.Uvarint(raw[off:])
		if k <= 0 || uint64(len(raw)-off-k) < l {
			return fmt.Errorf("store: a block's texts are cut short at byte %d", off)
		}
		off += k
		if j < n && want(j) {
			spans = append(spans, span{j, off, int(l)})
			kept += int(l)
		}
		off += int(l)
	}
	if j != n {
		return fmt.Errorf("store: a block holds %d texts for %d lines", j, n)
	}
	// One string for the wanted texts, sliced: one allocation, not one a
	// line (the buffer is this call's own and never written again).
	buf := make([]byte, 0, kept)
	for _, sp := range spans {
		buf = append(buf, raw[sp.off:sp.off+sp.len]...)
	}
	all := unsafe.String(unsafe.SliceData(buf), len(buf))
	at := 0
	for _, sp := range spans {
		set(sp.j, all[at:at+sp.len])
		at += sp.len
	}
	return nil
}

// blockTexts sets texts[i] to the text of the launch's line seqs[i]
// (which lay in blocks: a read gave its text as NULL; seqs sorted, a seq
// may repeat), with one statement for all their blocks. Outside a
// transaction, a block may have been thawed into rows (or compacted again)
// since the read: the lines not found in one place are looked for in the
// other, a few times. No map: a search fills in a million texts.
func blockTexts(ctx context.Context, q querier, launchID int64, seqs []int64, texts []string) error {
	found := make([]bool, len(seqs))
	missing := seqs
	for try := 0; len(missing) > 0; try++ {
		if try == 4 {
			return fmt.Errorf("store: lines %v of launch %d are neither in blocks nor rows", missing, launchID)
		}
		var err error
		if try%2 == 0 {
			err = textsInBlocks(ctx, q, launchID, seqs, texts, found, missing)
		} else {
			err = textsInRows(ctx, q, launchID, seqs, texts, found, missing)
		}
		if err != nil {
			return err
		}
		missing = nil
		for i, ok := range found {
			if !ok && (len(missing) == 0 || missing[len(missing)-1] != seqs[i]) {
				missing = append(missing, seqs[i])
			}
		}
	}
	return nil
}

// setText sets the text of every entry of seqs (sorted) equal to seq.
func setText(seqs []int64, texts []string, found []bool, seq int64, text string) {
	for i, _ := slices.BinarySearch(seqs, seq); i < len(seqs) && seqs[i] == seq; i++ {
		texts[i], found[i] = text, true
	}
}

// textsInRows sets the texts of those of missing that are rows.
func textsInRows(ctx context.Context, q querier, launchID int64, seqs []int64, texts []string, found []bool, missing []int64) error {
	rows, err := q.Query(ctx, `SELECT seq, text FROM lines WHERE launch_id = $1 AND seq = ANY($2)`, launchID, missing)
	if err != nil {
		return fmt.Errorf("store: read line texts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s int64
		var text string
		if err := rows.Scan(&s, &text); err != nil {
			return fmt.Errorf("store: read line texts: %w", err)
		}
		setText(seqs, texts, found, s, text)
	}
	return rows.Err()
}

// textsInBlocks sets the texts of those of missing (sorted) that lie in
// blocks.
func textsInBlocks(ctx context.Context, q querier, launchID int64, seqs []int64, texts []string, found []bool, missing []int64) error {
	var blocks []int64
	for _, s := range missing {
		if b := s >> blockShift; len(blocks) == 0 || blocks[len(blocks)-1] != b {
			blocks = append(blocks, b)
		}
	}
	rows, err := q.Query(ctx, `SELECT seq, texts FROM line_blocks WHERE launch_id = $1 AND block = ANY($2)`, launchID, blocks)
	if err != nil {
		return fmt.Errorf("store: read block texts: %w", err)
	}
	defer rows.Close()
	var bseqs []int64
	var z pgtype.DriverBytes // the connection's own buffer, not a copy: decoded before the next row
	for rows.Next() {
		if err := rows.Scan(&bseqs, &z); err != nil {
			return fmt.Errorf("store: read block texts: %w", err)
		}
		if len(bseqs) == 0 {
			continue
		}
		// Both in seq order: one walk through the block's seqs marks
		// which of its lines are wanted, and for which entries.
		first, _ := slices.BinarySearch(seqs, bseqs[0])
		wanted := make([]bool, len(bseqs))
		for i, j := first, 0; i < len(seqs) && seqs[i] <= bseqs[len(bseqs)-1]; i++ {
			for j < len(bseqs) && bseqs[j] < seqs[i] {
				j++
			}
			if j < len(bseqs) && bseqs[j] == seqs[i] {
				wanted[j] = true
			}
		}
		err := decodeBlockTextsOf(z, len(bseqs), func(j int) bool { return wanted[j] }, func(j int, text string) {
			setText(seqs[first:], texts[first:], found[first:], bseqs[j], text)
		})
		if err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: read block texts: %w", err)
	}
	return nil
}

// textFill collects the lines a read gave without text (NULL: they lie in
// blocks) and fills their texts in afterwards.
type textFill struct {
	seqs []int64
	at   []int // where each seq's line is in the caller's result
}

// scan is the scan target of a line's text: set at once when the line is
// a row, noted for fill when it is NULL. i is where the line goes.
func (f *textFill) scan(dst *string, seq *int64, i int) *pgxTextScanner {
	return &pgxTextScanner{dst: dst, seq: seq, i: i, f: f}
}

// fill sets the noted texts: set(i, text) for each.
func (f *textFill) fill(ctx context.Context, q querier, launchID int64, set func(i int, text string)) error {
	if len(f.seqs) == 0 {
		return nil
	}
	// In seq order for blockTexts: a read backwards noted them newest
	// first.
	order := make([]int, len(f.seqs))
	for k := range order {
		order[k] = k
	}
	if !slices.IsSorted(f.seqs) {
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(f.seqs[a], f.seqs[b]) })
	}
	seqs := make([]int64, len(order))
	for k, o := range order {
		seqs[k] = f.seqs[o]
	}
	texts := make([]string, len(seqs))
	if err := blockTexts(ctx, q, launchID, seqs, texts); err != nil {
		return err
	}
	for k, o := range order {
		set(f.at[o], texts[k])
	}
	f.seqs, f.at = f.seqs[:0], f.at[:0]
	return nil
}

// pgxTextScanner scans a text that may be NULL (in a block) for textFill.
// The line's seq is scanned before its text (every read's column order),
// so it is known when the text is.
type pgxTextScanner struct {
	dst *string
	seq *int64
	i   int
	f   *textFill
}

// Scan implements sql.Scanner, which pgx uses for a column of type text.
func (s *pgxTextScanner) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*s.dst = ""
		s.f.seqs = append(s.f.seqs, *s.seq)
		s.f.at = append(s.f.at, s.i)
	case string:
		*s.dst = v
	case []byte:
		*s.dst = string(v)
	default:
		return fmt.Errorf("store: a line's text scanned from %T", src)
	}
	return nil
}

// thawBlocksGo deletes the launch's blocks that where selects (a condition
// on line_blocks with $1 the launch and further parameters args) and
// writes their lines as rows of lines, marking the launch thawed if any
// was: in Go, since SQL cannot read a block's texts.
func (t *Tx) thawBlocksGo(ctx context.Context, launchID int64, where string, args ...any) error {
	rows, err := t.tx.Query(ctx, `DELETE FROM line_blocks WHERE launch_id = $1 AND `+where+`
		RETURNING seq, ts, received_at, logged_at, stream, kind, level, rank, alarm_no, texts`, append([]any{launchID}, args...)...)
	if err != nil {
		return fmt.Errorf("store: thaw lines: %w", err)
	}
	ls, err := collectBlockLines(rows)
	if err != nil {
		return fmt.Errorf("store: thaw lines: %w", err)
	}
	if len(ls) == 0 {
		return nil
	}
	slices.SortFunc(ls, func(a, b Line) int { return cmp.Compare(a.Seq, b.Seq) })
	if _, err := t.copyFrom(ctx, "lines", copyLineColumns, &lineCopy{launchID: launchID, next: onePiece(ls)}); err != nil {
		return fmt.Errorf("store: thaw lines: %w", err)
	}
	if _, err := t.tx.Exec(ctx, `UPDATE launches SET thawed = true WHERE id = $1 AND NOT thawed`, launchID); err != nil {
		return fmt.Errorf("store: thaw lines: %w", err)
	}
	return nil
}

// collectBlockLines decodes rows of blocks (seq, ts, received_at,
// logged_at, stream, kind, level, rank, alarm_no, texts) into their lines.
func collectBlockLines(rows pgx.Rows) ([]Line, error) {
	defer rows.Close()
	var out []Line
	for rows.Next() {
		var (
			seq                    []int64
			ts, received           []time.Time
			logged                 []*time.Time
			stream, kind, lvl, rnk []string
			alarm                  []*int32
			z                      []byte
		)
		if err := rows.Scan(&seq, &ts, &received, &logged, &stream, &kind, &lvl, &rnk, &alarm, &z); err != nil {
			return nil, err
		}
		texts, err := decodeBlockTexts(z, len(seq))
		if err != nil {
			return nil, err
		}
		for i := range seq {
			l := Line{Seq: seq[i], TS: ts[i], ReceivedAt: received[i], LoggedAt: logged[i], Stream: stream[i],
				Kind: kind[i], Level: lvl[i], Rank: rnk[i], Text: texts[i]}
			if alarm[i] != nil {
				no := int(*alarm[i])
				l.AlarmNo = &no
			}
			out = append(out, l)
		}
	}
	return out, rows.Err()
}

// onePiece is a next func of a COPY that hands over ls and ends.
func onePiece(ls []Line) func() ([]Line, error) {
	return func() ([]Line, error) {
		r := ls
		ls = nil
		return r, nil
	}
}
