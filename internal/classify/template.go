package classify

import (
	"crypto/sha256"
	"encoding/hex"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// maxHeadline bounds the bytes kept of a headline.
const maxHeadline = 512

// Byte classes of the template scanner, as one table lookup instead of a
// chain of comparisons per byte.
const (
	clsWord   = 1 << iota // [A-Za-z0-9_]
	clsPath               // a word byte or . - ~ + @
	clsHex                // [0-9A-Fa-f]
	clsDigit              // [0-9]
	clsQuote              // ' " `
	clsLit                // not a digit, a quote, / or >: no mask starts at it
	clsInPath             // a path byte or /: what a path runs on
	clsUnit               // what a size unit starts with (sizeUnit)
)

var byteClass = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		w := b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
		if w {
			t[c] |= clsWord | clsPath
		}
		if strings.IndexByte(".-~+@", b) >= 0 {
			t[c] |= clsPath
		}
		if b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' {
			t[c] |= clsHex
		}
		if b >= '0' && b <= '9' {
			t[c] |= clsDigit
		}
		if b == '\'' || b == '"' || b == '`' {
			t[c] |= clsQuote
		}
		if t[c]&clsPath != 0 || b == '/' {
			t[c] |= clsInPath
		}
		if strings.IndexByte("GMKTkbB", b) >= 0 {
			t[c] |= clsUnit
		}
		if t[c]&(clsDigit|clsQuote) == 0 && b != '/' && b != '>' {
			t[c] |= clsLit
		}
	}
	return t
}()

// Template masks the variable parts of a log message so that the same event
// in two launches reads the same: quoted strings become <str>, paths <path>,
// hex numbers and long hex ids <hex>, sizes <size>, dates and times <time>,
// ranks (TP3, rank 5, GPU 2, pid=123) <rank>, other numbers <num>. The result
// is what suppression rules show and match.
func Template(msg string) string {
	var buf [templateBuf]byte
	return string(appendTemplate(buf[:0], msg))
}

// templateBuf is a stack buffer that holds the template of most lines
// (a template is at most a few times its message's maxHeadline bytes).
const templateBuf = 1024

// appendTemplate appends Template(msg) to dst, in one pass: the rank
// phrases ("GPU <num>") are masked as their number is written.
//
// What stays as it is, is appended in one piece when a mask comes (or at
// the end), and bytes that start no mask are skipped by one table lookup
// each: letters too, since a word is masked only if it holds a digit (a
// rank word or token ends in one, a hex id has one), and it is judged
// whole at its first digit.
func appendTemplate(dst []byte, msg string) []byte {
	msg = truncate(strings.TrimSpace(msg), maxHeadline)
	start := len(dst)
	lit := 0           // msg[lit:i] stays as it is, not appended yet
	var unclosed uint8 // the quotes (1<<(c&7)) that no later byte closes
	for i := 0; i < len(msg); {
		for i < len(msg) && byteClass[msg[i]]&clsLit != 0 {
			i++
		}
		if i == len(msg) {
			break
		}
		c := msg[i]
		// No word or path starts after a word byte. What came before
		// msg[i] is read as it is: a mask never ends before a word byte
		// (the rest of a word after a number is skipped with it below).
		prevWord := i > 0 && byteClass[msg[i-1]]&clsWord != 0
		switch cls := byteClass[c]; {
		case cls&clsDigit != 0 && prevWord:
			// A digit in a word that starts with a letter or '_':
			// the word is judged whole.
			w := i - 1
			for w > 0 && byteClass[msg[w-1]]&clsWord != 0 {
				w--
			}
			j := i + 1
			for j < len(msg) && byteClass[msg[j]]&clsWord != 0 {
				j++
			}
			if tok := wordMask(msg[w:j]); tok != "" {
				dst = append(append(dst, msg[lit:w]...), tok...)
				lit = j
			}
			i = j
			continue
		case cls&clsDigit != 0:
			dst = append(dst, msg[lit:i]...)
			j, tok := scanNumber(msg, i)
			if tok == "<num>" {
				dst = maskRankNum(append(dst, "<num>"...), start)
			} else {
				dst = append(dst, tok...)
			}
			lit = j
			// The rest of a word after a number ("12abc") stays.
			for j < len(msg) && byteClass[msg[j]]&clsWord != 0 {
				j++
			}
			i = j
			continue
		case cls&clsQuote != 0:
			// A quote that finds no closing one tells the same of every
			// later quote of its kind: the line is not searched again.
			if bit := uint8(1) << (c & 7); unclosed&bit == 0 {
				if j := strings.IndexByte(msg[i+1:], c); j >= 0 {
					dst = append(append(dst, msg[lit:i]...), "<str>"...)
					i += j + 2
					lit = i
					continue
				}
				unclosed |= bit
			}
		case c == '/':
			if !prevWord && i+1 < len(msg) && byteClass[msg[i+1]]&clsPath != 0 {
				j := i + 2
				for j < len(msg) && byteClass[msg[j]]&clsInPath != 0 {
					j++
				}
				dst = append(append(dst, msg[lit:i]...), "<path>"...)
				i, lit = j, j
				continue
			}
		case c == '>':
			// It may end a "<num>" the message wrote itself.
			dst = maskRankPhrase(append(dst, msg[lit:i+1]...), start)
			lit = i + 1
		}
		i++ // an unclosed quote, a '/' that starts no path, or a '>'
	}
	return append(dst, msg[lit:]...)
}

// wordMask is the mask of a word that starts with a letter or '_' and
// holds a digit, or "" if it stays.
func wordMask(w string) string {
	if isDigit(w[len(w)-1]) && (isRankWord(w) || isRankToken(w)) {
		return "<rank>"
	}
	if len(w) < 8 {
		return ""
	}
	for i := 0; i < len(w); i++ {
		if byteClass[w[i]]&clsHex == 0 {
			return ""
		}
	}
	return "<hex>" // every byte hex, and some digit
}

// rankPhrases are what comes before a number that makes it a rank, in the
// order they are tried (the order matters once: "local_rank=<num>" reads
// as "rank=<num>" first and becomes "local_<rank>").
var rankPhrases = [...]string{"Rank ", "rank ", "GPU ", "gpu ", "pid=", "pid ", "device ", "cuda:", "PG ", "rank=", "local_rank="}

// rankPhraseAt holds, by the last two bytes of a rank phrase, the
// phrases (bits by their index in rankPhrases) that end so; the last byte
// picks a row by rankPhraseRow (0: no phrase ends with it, an empty row).
var rankPhraseRow, rankPhraseAt = func() (row [256]uint8, at [4][256]uint16) {
	rows := uint8(0)
	for k, p := range rankPhrases {
		last := p[len(p)-1]
		if row[last] == 0 {
			rows++
			row[last] = rows
		}
		at[row[last]][p[len(p)-2]] |= 1 << k
	}
	return row, at
}()

// maskRankPhrase replaces a rank phrase and the "<num>" that ends dst[start:]
// with "<rank>". Done as each "<num>" is written, it masks what a
// replacement of each phrase over the whole template, one after the other,
// would: no phrase holds a '>', so what comes before a "<num>" is the same
// before and after earlier numbers are masked, and of the phrases that
// can end at the same place ("rank=" and "local_rank=") the first wins.
func maskRankPhrase(dst []byte, start int) []byte {
	if n := len(dst) - 5; n < start || string(dst[n:]) != "<num>" {
		return dst
	}
	return maskRankNum(dst, start)
}

// maskRankNum is maskRankPhrase for a dst[start:] known to end in
// "<num>". It compares only the phrases that end with the two bytes before
// the number, first to last.
func maskRankNum(dst []byte, start int) []byte {
	n := len(dst) - 5
	head := dst[start:n]
	if len(head) < 3 {
		return dst
	}
	for m := rankPhraseAt[rankPhraseRow[head[len(head)-1]]][head[len(head)-2]]; m != 0; m &= m - 1 {
		if p := rankPhrases[bits.TrailingZeros16(m)]; len(head) >= len(p) && string(head[len(head)-len(p):]) == p {
			return append(dst[:n-len(p)], "<rank>"...)
		}
	}
	return dst
}

// scanNumber reads a number token at msg[i] (a digit) and returns its end
// and mask.
func scanNumber(msg string, i int) (int, string) {
	if i+1 < len(msg) && msg[i] == '0' && msg[i+1]|0x20 == 'x' { // 0x or 0X
		j := i + 2
		for j < len(msg) && byteClass[msg[j]]&clsHex != 0 {
			j++
		}
		return j, "<hex>"
	}
	// Digits, and separators (. : - ,) between two digits.
	j := i + 1
	colons, dashes := 0, 0
digits:
	for {
		for j < len(msg) && isDigit(msg[j]) {
			j++
		}
		if j+1 >= len(msg) || !isDigit(msg[j+1]) {
			break
		}
		switch msg[j] {
		case '.', ',':
		case ':':
			colons++
		case '-':
			dashes++
		default:
			break digits
		}
		j += 2 // the separator and the digit after it
	}
	if colons >= 1 || dashes >= 2 {
		return j, "<time>"
	}
	// A hex id that starts with digits, e.g. 0e9e39f249a1.
	k := j
	for k < len(msg) && byteClass[msg[k]]&clsHex != 0 {
		k++
	}
	if k-i >= 8 && (k >= len(msg) || byteClass[msg[k]]&clsWord == 0) {
		return k, "<hex>"
	}
	// Sizes: "3.94 GiB", "20.00MiB", "600020 milliseconds".
	sp := j
	if sp < len(msg) && msg[sp] == ' ' {
		sp++
	}
	if sp < len(msg) && byteClass[msg[sp]]&clsUnit != 0 {
		if n := sizeUnit(msg[sp:]); n > 0 {
			return sp + n, "<size>"
		}
	}
	return j, "<num>"
}

// sizeUnit is the length of the size unit s starts with, a whole word
// (GiB, MiB, KiB, GB, MB, KB, kB, TiB, TB, bytes, B), or 0.
func sizeUnit(s string) int {
	n := 0
	switch s[0] {
	case 'G', 'M', 'K', 'T':
		switch {
		case len(s) >= 3 && s[1] == 'i' && s[2] == 'B':
			n = 3
		case len(s) >= 2 && s[1] == 'B':
			n = 2
		}
	case 'k':
		if len(s) >= 2 && s[1] == 'B' {
			n = 2
		}
	case 'b':
		if strings.HasPrefix(s, "bytes") {
			n = 5
		}
	case 'B':
		n = 1
	}
	if n == 0 || n < len(s) && byteClass[s[n]]&clsWord != 0 {
		return 0
	}
	return n
}

func isRankToken(w string) bool {
	return strings.HasPrefix(w, "rank") && allDigits(w[4:])
}

func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// Fingerprint is a stable hash of an alarm kind and template.
func Fingerprint(kind AlarmKind, template string) string {
	sum := sha256.Sum256([]byte(string(kind) + "\x00" + template))
	return hex.EncodeToString(sum[:8])
}

// clean truncates s to at most n bytes and replaces invalid UTF-8, for
// text kept in the state (which must survive a JSON round trip unchanged).
func clean(s string, n int) string {
	s = truncate(s, n)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

// truncate cuts s to at most n bytes on a UTF-8 boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
