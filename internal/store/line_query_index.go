package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The search index (migrations/00012_lines_trgm.sql): per launch, one bloom
// filter of trigrams per chunk of 64 consecutive seqs, two bits per
// trigram in 8192 (1 KiB, 16 bytes a line). 64 real log lines hold ~1,750
// distinct trigrams (at most ~4,100 in the corpus), so a trigram a chunk
// lacks is reported present 12% of the time (40% in the fullest chunks),
// and a search of n trigrams keeps a chunk that lacks its words with a
// chance of about 0.12^n. Smaller chunks read fewer lines around each
// match: with 256-line chunks a search read four times as many.
const (
	chunkShift = 6
	chunkSize  = 1 << chunkShift
	bloomLog   = 13
	bloomBits  = 1 << bloomLog
)

// bloom is one chunk's filter, bit i at byte i/8, most significant bit
// first (PostgreSQL's bit string order, though only & and = are used).
type bloom []byte

func newBloom() bloom { return make(bloom, bloomBits/8) }

func (b bloom) set(a, c, d byte) {
	setTrigram((*[bloomBits / 8]byte)(b), uint32(a)<<16|uint32(c)<<8|uint32(d))
}

// setTrigram sets the two bits of trigram x (its bytes a<<16|c<<8|d) in
// filter f.
func setTrigram(f *[bloomBits / 8]byte, x uint32) {
	h1 := (x * 2654435761) >> (32 - bloomLog)
	h2 := ((x ^ 0x5bd1e995) * 2246822519) >> (32 - bloomLog)
	f[h1>>3] |= 0x80 >> (h1 & 7)
	f[h2>>3] |= 0x80 >> (h2 & 7)
}

func (b bloom) bits() pgtype.Bits { return pgtype.Bits{Bytes: b, Len: bloomBits, Valid: true} }

// foldText is text as the index sees it: ASCII letters lower-cased, and
// the three characters that lower-case (or RE2-fold) to an ASCII letter
// written as that letter (İ → i, the Kelvin sign → k, ſ → s), so that a
// case-insensitive search finds them whatever the database's locale.
func foldText(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u0130': // İ
			return 'i'
		case '\u212A': // the Kelvin sign
			return 'k'
		case '\u017F': // ſ
			return 's'
		}
		if r < 0x80 {
			return asciiLower(r)
		}
		return r
	}, s)
}

func asciiLower(r rune) rune {
	if r >= 'A' && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// addText sets the trigrams of a line's folded text (foldText). The
// ASCII start of a line, all of the usual one, is folded on the fly; from
// its first other byte on, the line is folded as foldText does, which
// continues the same text (foldText maps rune by rune, and an ASCII byte
// is a rune), from the two bytes before it so that no trigram is lost.
func (b bloom) addText(text string) {
	f := (*[bloomBits / 8]byte)(b)
	// Eight bytes at a time while they are ASCII: folded at once, they
	// hold the six trigrams that start in their first six.
	i := 0
	for ; i+8 <= len(text); i += 6 {
		w := load64BE(text, i)
		if w&0x8080808080808080 != 0 {
			break
		}
		w = foldWord(w)
		for sh := 40; sh >= 0; sh -= 8 {
			setTrigram(f, uint32(w>>sh)&0xffffff)
		}
	}
	var x uint32
	if i > 0 { // the two bytes before i start its first trigram
		x = uint32(asciiFold[text[i-2]])<<8 | uint32(asciiFold[text[i-1]])
	}
	for ; i < len(text); i++ {
		c := text[i]
		if c >= 0x80 {
			addFolded(f, text[max(i-2, 0):])
			return
		}
		x = x<<8 | uint32(asciiFold[c])
		if i >= 2 {
			setTrigram(f, x&0xffffff)
		}
	}
}

// load64BE is the 8 bytes of s at i, the first the most significant.
func load64BE(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
		uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
}

// foldWord lower-cases the ASCII letters among the 8 ASCII bytes of w.
func foldWord(w uint64) uint64 {
	const ones = 0x0101010101010101
	geA := w + (0x80-'A')*ones   // bit 7 set in a byte >= 'A'
	gtZ := w + (0x80-'Z'-1)*ones // bit 7 set in a byte > 'Z'
	return w | (geA&^gtZ)&(0x80*ones)>>2
}

// addFolded sets the trigrams of foldText(s). Valid UTF-8 without the
// three characters foldText rewrites (the usual non-ASCII line: a bar, a
// curly quote) folds byte by byte, without a copy.
func addFolded(f *[bloomBits / 8]byte, s string) {
	t := s
	if !utf8.ValidString(s) || strings.Contains(s, "\u0130") || strings.Contains(s, "\u212A") || strings.Contains(s, "\u017F") {
		t = foldText(s)
	}
	var x uint32
	for i := 0; i < len(t); i++ {
		x = x<<8 | uint32(asciiFold[t[i]])
		if i >= 2 {
			setTrigram(f, x&0xffffff)
		}
	}
}

// asciiFold lower-cases ASCII letters and keeps every other byte.
var asciiFold = func() (t [256]byte) {
	for c := range 256 {
		t[c] = byte(c)
		if c >= 'A' && c <= 'Z' {
			t[c] = byte(c) + 'a' - 'A'
		}
	}
	return t
}()

// literalMask is the filter bits every chunk holding lit must have: its
// ASCII trigrams (a wildFold or non-ASCII byte may stand for another
// spelling); ok is false when lit has none.
func literalMask(lit string) (bloom, bool) {
	t := foldText(lit)
	m, ok := newBloom(), false
	for i := 0; i+3 <= len(t); i++ {
		a, c, d := t[i], t[i+1], t[i+2]
		if a == 0 || c == 0 || d == 0 || a >= 0x80 || c >= 0x80 || d >= 0x80 {
			continue
		}
		m.set(a, c, d)
		ok = true
	}
	return m, ok
}

// bloomsOf adds the trigrams of lines to the filters of their chunks.
// Lines come in seq order, usually: a chunk's filter is looked up once
// for its run of lines.
func bloomsOf(blooms map[int64]bloom, lines []Line) {
	var b bloom
	last := int64(-1)
	for i := range lines {
		if c := lines[i].Seq >> chunkShift; c != last || b == nil {
			var ok bool
			if b, ok = blooms[c]; !ok {
				b = newBloom()
				blooms[c] = b
			}
			last = c
		}
		b.addText(lines[i].Text)
	}
}

// addLineChunks ORs the trigrams of new lines (LineIndex) into their
// chunks' filters, in the transaction that stores the lines. Chunks past
// the launch's highest stored one are new (a growing launch's usual
// batch: all but its first chunk) and are COPYed, which took the
// database 9 ms for a 50,000-line batch's 782 chunks where the upsert
// took 15; the others are merged into their stored filters.
func (t *Tx) addLineChunks(ctx context.Context, launchID int64, blooms map[int64]bloom) error {
	if len(blooms) == 0 {
		return nil
	}
	chunks := slices.Sorted(maps.Keys(blooms))
	err := t.upsertOrCopy(ctx, "line_chunks", "chunk", []string{"launch_id", "chunk", "bloom"}, launchID, len(chunks),
		func(i int) int64 { return chunks[i] },
		func(stored int) error {
			bits := make([]pgtype.Bits, stored)
			for i, c := range chunks[:stored] {
				bits[i] = blooms[c].bits()
			}
			_, err := t.tx.Exec(ctx, `
				INSERT INTO line_chunks (launch_id, chunk, bloom)
				SELECT $1, c, b FROM unnest($2::bigint[], $3::varbit[]) AS u(c, b)
				ON CONFLICT (launch_id, chunk) DO UPDATE SET bloom = line_chunks.bloom | EXCLUDED.bloom`,
				launchID, chunks[:stored], bits)
			return err
		},
		func(i int) []any { return []any{launchID, chunks[i], blooms[chunks[i]].bits()} })
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
func bloomCondition(q *launchQuery, p prefilter) string {
	var conds []string
clauses:
	for _, clause := range p {
		var ors []string
		for _, lit := range clause {
			m, ok := literalMask(lit)
			if !ok {
				continue clauses // this literal may be anywhere: the clause narrows nothing
			}
			arg := q.arg(m.bits())
			ors = append(ors, "bloom & "+arg+" = "+arg)
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	return strings.Join(conds, " AND ")
}

// candidateRanges returns the seq ranges, in the reading direction, of the
// chunks of [lo, hi] whose filters pass cond (built by bloomCondition on
// q, whose first argument is the launch id), adjacent chunks merged and
// the ends cut to [lo, hi].
func (s *Store) candidateRanges(ctx context.Context, q *launchQuery, cond string, lo, hi int64, back bool) ([][2]int64, error) {
	order := "chunk"
	if back {
		order = "chunk DESC"
	}
	sql := `SELECT chunk FROM line_chunks WHERE launch_id = $1 AND chunk BETWEEN ` + q.arg(lo>>chunkShift) +
		` AND ` + q.arg(hi>>chunkShift) + ` AND ` + cond + ` ORDER BY ` + order
	rows, err := s.read(ctx).Query(ctx, sql, q.args...)
	if err != nil {
		return nil, fmt.Errorf("store: search chunks: %w", err)
	}
	chunks, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("store: search chunks: %w", err)
	}
	var out [][2]int64
	for _, c := range chunks {
		r := [2]int64{max(lo, c<<chunkShift), min(hi, c<<chunkShift+chunkSize-1)}
		n := len(out)
		switch {
		case n > 0 && !back && out[n-1][1]+1 == r[0]:
			out[n-1][1] = r[1]
		case n > 0 && back && out[n-1][0]-1 == r[1]:
			out[n-1][0] = r[0]
		default:
			out = append(out, r)
		}
	}
	return out, nil
}

// rangeGroups splits ranges into groups read by one query each: at most
// groupSeqs seqs a group, so that a search that fills its window early
// stops early.
func rangeGroups(ranges [][2]int64, groupSeqs int64) [][][2]int64 {
	var out [][][2]int64
	var cur [][2]int64
	var n int64
	for _, r := range ranges {
		cur = append(cur, r)
		n += r[1] - r[0] + 1
		if n >= groupSeqs || len(cur) >= 256 {
			out = append(out, cur)
			cur, n = nil, 0
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// rangeBounds formats a group's bounds as two arrays for unnest.
func rangeBounds(g [][2]int64) (los, his []int64) {
	for _, r := range g {
		los, his = append(los, r[0]), append(his, r[1])
	}
	return los, his
}
