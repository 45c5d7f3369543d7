package linesearch

import (
	"strings"
	"unicode/utf8"
)

// The search index (migrations/00012_lines_trgm.sql, internal/store holds its SQL): per launch, one bloom
// filter of trigrams per chunk of 64 consecutive seqs, two bits per
// trigram in 8192 (1 KiB, 16 bytes a line). 64 real log lines hold ~1,750
// distinct trigrams (at most ~4,100 in the corpus), so a trigram a chunk
// lacks is reported present 12% of the time (40% in the fullest chunks),
// and a search of n trigrams keeps a chunk that lacks its words with a
// chance of about 0.12^n. Smaller chunks read fewer lines around each
// match: with 256-line chunks a search read four times as many.
const (
	// ChunkShift is a chunk's seq shift: chunk = seq >> ChunkShift.
	ChunkShift = 6
	// ChunkSize is how many consecutive seqs a chunk holds.
	ChunkSize = 1 << ChunkShift
	bloomLog  = 13
	// BloomBits is the length of a chunk's filter in bits.
	BloomBits = 1 << bloomLog
)

// Bloom is one chunk's filter, bit i at byte i/8, most significant bit
// first (PostgreSQL's bit string order, though only & and = are used).
type Bloom []byte

// NewBloom returns an empty filter.
func NewBloom() Bloom { return make(Bloom, BloomBits/8) }

func (b Bloom) set(a, c, d byte) {
	setTrigram((*[BloomBits / 8]byte)(b), uint32(a)<<16|uint32(c)<<8|uint32(d))
}

// setTrigram sets the two bits of trigram x (its bytes a<<16|c<<8|d) in
// filter f.
func setTrigram(f *[BloomBits / 8]byte, x uint32) {
	h1 := (x * 2654435761) >> (32 - bloomLog)
	h2 := ((x ^ 0x5bd1e995) * 2246822519) >> (32 - bloomLog)
	f[h1>>3] |= 0x80 >> (h1 & 7)
	f[h2>>3] |= 0x80 >> (h2 & 7)
}

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

// AddText sets the trigrams of a line's folded text (foldText). The
// ASCII start of a line, all of the usual one, is folded on the fly; from
// its first other byte on, the line is folded as foldText does, which
// continues the same text (foldText maps rune by rune, and an ASCII byte
// is a rune), from the two bytes before it so that no trigram is lost.
func (b Bloom) AddText(text string) {
	f := (*[BloomBits / 8]byte)(b)
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
func addFolded(f *[BloomBits / 8]byte, s string) {
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

// LiteralMask is the filter bits every chunk holding lit must have: its
// ASCII trigrams (a wildFold or non-ASCII byte may stand for another
// spelling); ok is false when lit has none.
func LiteralMask(lit string) (Bloom, bool) {
	t := foldText(lit)
	m, ok := NewBloom(), false
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
