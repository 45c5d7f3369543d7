package store

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"launchwatch/internal/linesearch"
)

// searchGroupChunks is about how many candidate chunks one query reads
// (a group ends at a block's end): a search whose window fills early
// stops after a group, one that matches little reads every candidate in
// a few queries.
const searchGroupChunks = 256

// searchGroup is what one query of a search reads: the seq ranges of its
// runs of candidate chunks (lines kept as rows), and the blocks holding
// them, each with a mask of its candidate chunks (bit i: the block's
// i-th chunk).
type searchGroup struct {
	los, his []int64
	blocks   []int64
	masks    []int32
}

// searchGroups splits candidate chunks (in the reading direction) into
// groups of about searchGroupChunks, a block never split between two,
// the ranges cut to [lo, hi].
func searchGroups(chunks []int64, lo, hi int64, back bool) []searchGroup {
	const perBlock = blockShift - linesearch.ChunkShift
	var out []searchGroup
	var g searchGroup
	n := 0
	for i, c := range chunks {
		r0, r1 := max(lo, c<<linesearch.ChunkShift), min(hi, c<<linesearch.ChunkShift+linesearch.ChunkSize-1)
		k := len(g.los)
		switch {
		case k > 0 && !back && g.his[k-1]+1 == r0:
			g.his[k-1] = r1
		case k > 0 && back && g.los[k-1]-1 == r1:
			g.los[k-1] = r0
		default:
			g.los, g.his = append(g.los, r0), append(g.his, r1)
		}
		b := c >> perBlock
		if j := len(g.blocks); j > 0 && g.blocks[j-1] == b {
			g.masks[j-1] |= 1 << (c & (1<<perBlock - 1))
		} else {
			g.blocks, g.masks = append(g.blocks, b), append(g.masks, 1<<(c&(1<<perBlock-1)))
		}
		n++
		if n >= searchGroupChunks && (i+1 == len(chunks) || chunks[i+1]>>perBlock != b) {
			out = append(out, g)
			g, n = searchGroup{}, 0
		}
	}
	if n > 0 {
		out = append(out, g)
	}
	return out
}

// indexedSearch answers a search (f.Contains or f.Match) from the search
// index when it can: the chunks whose filters hold every trigram the
// search requires, then the lines of those chunks alone, in the reading
// direction until the window is full. It covers the whole range (no scan
// bound: ScannedFrom–ScannedTo is all of it unless the window filled).
// ok is false when the index cannot serve f: no search, or a search with
// no trigram to look for (`.*`, a two-letter word); FilteredWindow then
// scans a bounded range. A launch stored before the index existed is
// indexed first (buildSearchIndex).
func (s *Store) indexedSearch(ctx context.Context, launchID int64, f LineFilter, lastSeq int64) (LineWindow, bool, error) {
	var w LineWindow
	var p linesearch.Prefilter
	switch {
	case f.Match != nil:
		p = linesearch.Regexp(f.Match.String())
	case f.Contains != "":
		p = linesearch.Substring(f.Contains)
	default:
		return w, false, nil
	}
	cq := &launchQuery{}
	cq.arg(launchID)
	cond := bloomCondition(cq, p)
	if cond == "" {
		return w, false, nil
	}
	switch ok, err := s.searchIndexed(ctx, launchID); {
	case err != nil:
		return w, false, err
	case !ok:
		if err := s.buildSearchIndex(ctx, launchID); err != nil {
			return w, false, err
		}
	}
	back := f.Before > 0
	lo, hi := f.After+1, lastSeq
	if lastSeq <= 0 {
		hi = math.MaxInt64 >> 1
	}
	if back {
		lo, hi = 1, f.Before-1
	}
	if f.InRange {
		lo, hi = max(lo, f.MinSeq), min(hi, f.MaxSeq)
	}
	w.ScannedFrom, w.ScannedTo = lo, hi
	if lo > hi {
		return w, true, nil
	}
	chunks, err := s.candidateChunks(ctx, cq, cond, lo, hi, back)
	if err != nil {
		return w, true, err
	}
	// A candidate chunk is an eighth of a block. Each group of
	// candidates is read by searchGroupInGo: every block holding one is
	// fetched once (its texts' bytea, decompressed once) and matched in
	// Go on the candidate chunks' lines, and SQL unpacks the other
	// columns of the lines that matched alone. sql is its fallback when
	// a block changed meanwhile (and a test's reference): the lines kept
	// as rows by a probe of the primary key of lines for each run of
	// candidate chunks (the subquery depends on the range, and OFFSET 0
	// keeps the filters out of it: left to itself the planner would
	// rather filter every line of the launch), and each block unpacked
	// once, its lines outside the candidate chunks dropped by the
	// block's mask of them (one probe a chunk unpacked the whole block
	// for each of its candidate chunks), texts filled in by collect.
	// Each block is a probe of its primary key (OFFSET 0 again): the
	// planner, its statistics of line_blocks stale after a compaction,
	// would rather hash every block of the launch, unpacked.
	q := &launchQuery{}
	q.arg(launchID)
	// The search's literals chose the chunks; its lines are matched in Go
	// alone, on the texts of their blocks.
	f.lineConds(q)
	los, his := q.arg([]int64(nil)), q.arg([]int64(nil))
	blocks, masks := q.arg([]int64(nil)), q.arg([]int32(nil))
	qlo, qhi := q.arg(lo), q.arg(hi)
	order := "seq"
	if back {
		order = "seq DESC"
	}
	inRange := lineRead{launch: "$1", lo: "r.lo", hi: "r.hi", cols: append([]string{"launch_id"}, lineColumnList...), rowsOnly: true}
	var arrays []string
	for _, c := range blockColumns {
		arrays = append(arrays, "b."+c)
	}
	inBlocks := `SELECT b.launch_id, u.seq, u.ts, u.received_at, u.stream, u.kind, u.level, u.rank, u.alarm_no, NULL::text AS text
		FROM unnest(` + blocks + `::bigint[], ` + masks + `::int[]) AS r(block, mask)
		CROSS JOIN LATERAL (SELECT * FROM line_blocks b WHERE b.launch_id = $1 AND b.block = r.block OFFSET 0) AS b
		CROSS JOIN LATERAL unnest(` + strings.Join(arrays, ", ") + `) AS u(` + strings.Join(blockColumns, ", ") + `)
		WHERE (r.mask >> (u.seq >> ` + fmt.Sprint(linesearch.ChunkShift) + ` & ` + fmt.Sprint(1<<(blockShift-linesearch.ChunkShift)-1) + `)::int) & 1 = 1
			AND u.seq BETWEEN ` + qlo + ` AND ` + qhi
	sql := `SELECT ` + lineColumns + ` FROM (
		(SELECT lines.* FROM unnest(` + los + `::bigint[], ` + his + `::bigint[]) AS r(lo, hi)
			CROSS JOIN LATERAL (SELECT * FROM (` + inRange.sql() + `) x OFFSET 0) AS lines)
		UNION ALL (` + inBlocks + `)) AS lines` + q.where() + `
		ORDER BY ` + order
	n := len(q.args)
	// One statement, one snapshot: a line is either among the rows or in
	// a block of it, never both nor neither, however a block is thawed
	// meanwhile.
	rowsAndBlocks := `(SELECT NULL::bigint AS block, NULL::int AS mask, NULL::bigint[] AS seqs, NULL::bytea AS texts, ` + lineColumns + `
		FROM unnest(` + los + `::bigint[], ` + his + `::bigint[]) AS r(lo, hi)
		CROSS JOIN LATERAL (SELECT * FROM (` + inRange.sql() + `) x OFFSET 0) AS lines` + q.where() + `)
		UNION ALL (SELECT r.block, r.mask, b.seq, b.texts, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
		FROM unnest(` + blocks + `::bigint[], ` + masks + `::int[]) AS r(block, mask)
		CROSS JOIN LATERAL (SELECT seq, texts FROM line_blocks WHERE launch_id = $1 AND block = r.block OFFSET 0) AS b)`
	for _, g := range searchGroups(chunks, lo, hi, back) {
		q.args[n-6], q.args[n-5], q.args[n-4], q.args[n-3] = g.los, g.his, g.blocks, g.masks
		ok := false
		if !s.searchByRows {
			var err error
			if ok, err = s.searchGroupInGo(ctx, &w, launchID, f, lo, hi, back, rowsAndBlocks, q.args[:n-2]); err != nil {
				return w, true, err
			}
		}
		if !ok {
			// A block changed under the search (thawed, or compacted
			// again): the group is read by the statement that takes
			// each line where it is.
			rows, err := s.read(ctx).Query(ctx, sql, q.args...)
			if err != nil {
				return w, true, fmt.Errorf("store: search lines: %w", err)
			}
			if _, err := w.collect(ctx, s.read(ctx), launchID, rows, f); err != nil {
				return w, true, err
			}
		}
		if w.More {
			break
		}
	}
	w.finish(back)
	if !back && lastSeq > 0 {
		w.ScannedTo = min(w.ScannedTo, max(lastSeq, f.After))
	}
	return w, true, nil
}

// searchHit is a line of a block whose text the search matched: the
// block, the line's place in it (from 1, as SQL's arrays count) and seq.
type searchHit struct {
	block int64
	i     int32
	seq   int64
	text  string
}

// searchGroupInGo reads a group of a search into w the way that costs
// least: one statement (rowsAndBlocks, its arguments args: the group's
// ranges, blocks and masks among them) reads the lines kept as rows, f's
// conditions on them, and each block's seqs and texts (one bytea,
// decompressed once), which are matched in Go on the lines of the
// candidate chunks in [lo, hi] alone; SQL then unpacks the other columns
// of the lines that matched only, with f's conditions on them. ok is
// false, and w untouched, when a block changed between the two
// statements: the caller reads the group otherwise.
func (s *Store) searchGroupInGo(ctx context.Context, w *LineWindow, launchID int64, f LineFilter,
	lo, hi int64, back bool, rowsAndBlocks string, args []any) (bool, error) {
	const perBlock = blockShift - linesearch.ChunkShift
	db := s.read(ctx)
	contains := lowerASCII(f.Contains)
	rows, err := db.Query(ctx, rowsAndBlocks, args...)
	if err != nil {
		return false, fmt.Errorf("store: search blocks: %w", err)
	}
	var ls []Line
	var hits []searchHit
	var bseqs []int64
	var z pgtype.DriverBytes // the connection's own buffer: decoded before the next row
	for rows.Next() {
		var block *int64
		var mask *int32
		var seq *int64
		var ts, received *time.Time
		var stream, kind, level, rank, text *string
		var alarm *int
		if err := rows.Scan(&block, &mask, &bseqs, &z, &seq, &ts, &received, &stream, &kind, &level, &rank, &alarm, &text); err != nil {
			rows.Close()
			return false, fmt.Errorf("store: search blocks: %w", err)
		}
		if block == nil { // a line kept as a row
			if seq == nil || ts == nil || received == nil || stream == nil || kind == nil || level == nil || rank == nil || text == nil {
				rows.Close()
				return false, fmt.Errorf("store: search lines: a row with a NULL column")
			}
			if f.matches(*text, contains) {
				ls = append(ls, Line{Seq: *seq, TS: *ts, ReceivedAt: *received, Stream: *stream, Kind: *kind, Level: *level,
					Rank: *rank, AlarmNo: alarm, Text: *text})
			}
			continue
		}
		b, m := *block, *mask
		want := func(j int) bool {
			sq := bseqs[j]
			return sq >= lo && sq <= hi && m>>(sq>>linesearch.ChunkShift&(1<<perBlock-1))&1 == 1
		}
		err := decodeBlockTextsOf(z, len(bseqs), want, func(j int, text string) {
			if f.matches(text, contains) {
				hits = append(hits, searchHit{block: b, i: int32(j + 1), seq: bseqs[j], text: text})
			}
		})
		if err != nil {
			rows.Close()
			return false, err
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, fmt.Errorf("store: search blocks: %w", err)
	}
	if len(hits) > 0 {
		cq := &launchQuery{}
		cq.arg(launchID)
		f.lineConds(cq)
		pass := "true"
		if len(cq.conds) > 0 {
			pass = strings.Join(cq.conds, " AND ")
		}
		blocks, idx := make([]int64, len(hits)), make([]int32, len(hits))
		for k, h := range hits {
			blocks[k], idx[k] = h.block, h.i
		}
		rows, err := db.Query(ctx, `SELECT r.n, seq, ts, received_at, stream, kind, level, rank, alarm_no, `+pass+`
			FROM unnest(`+cq.arg(blocks)+`::bigint[], `+cq.arg(idx)+`::int[]) WITH ORDINALITY AS r(block, i, n)
			CROSS JOIN LATERAL (SELECT b.launch_id, b.seq[r.i] AS seq, b.ts[r.i] AS ts, b.received_at[r.i] AS received_at,
				b.stream[r.i] AS stream, b.kind[r.i] AS kind, b.level[r.i] AS level, b.rank[r.i] AS rank, b.alarm_no[r.i] AS alarm_no
				FROM line_blocks b WHERE b.launch_id = $1 AND b.block = r.block OFFSET 0) AS lines`, cq.args...)
		if err != nil {
			return false, fmt.Errorf("store: search lines: %w", err)
		}
		got := 0
		for rows.Next() {
			var n int64
			var seq *int64
			var ok *bool
			var l Line
			var ts, received *time.Time
			var stream, kind, level, rank *string
			if err := rows.Scan(&n, &seq, &ts, &received, &stream, &kind, &level, &rank, &l.AlarmNo, &ok); err != nil {
				rows.Close()
				return false, fmt.Errorf("store: search lines: %w", err)
			}
			h := hits[n-1]
			if seq == nil || *seq != h.seq || ts == nil || received == nil || stream == nil || kind == nil || level == nil || rank == nil {
				rows.Close()
				return false, nil // the block is not the one whose texts were read
			}
			got++
			if ok == nil || !*ok {
				continue
			}
			l.Seq, l.TS, l.ReceivedAt, l.Stream, l.Kind, l.Level, l.Rank, l.Text = h.seq, *ts, *received, *stream, *kind, *level, *rank, h.text
			ls = append(ls, l)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return false, fmt.Errorf("store: search lines: %w", err)
		}
		if got != len(hits) {
			return false, nil // a block is gone
		}
	}
	slices.SortFunc(ls, func(a, b Line) int {
		if back {
			return cmp.Compare(b.Seq, a.Seq)
		}
		return cmp.Compare(a.Seq, b.Seq)
	})
	for _, l := range ls {
		if len(w.Lines) == f.Limit {
			w.More = true
			break
		}
		w.Lines = append(w.Lines, l)
	}
	return true, nil
}
