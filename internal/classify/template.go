package classify

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// maxHeadline bounds the bytes kept of a headline.
const maxHeadline = 512

// Template masks the variable parts of a log message so that the same event
// in two launches reads the same: quoted strings become <str>, paths <path>,
// hex numbers and long hex ids <hex>, sizes <size>, dates and times <time>,
// ranks (TP3, rank 5, GPU 2, pid=123) <rank>, other numbers <num>. The result
// is what suppression rules show and match.
func Template(msg string) string {
	msg = truncate(strings.TrimSpace(msg), maxHeadline)
	var b strings.Builder
	b.Grow(len(msg))
	for i := 0; i < len(msg); {
		c := msg[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			if j := strings.IndexByte(msg[i+1:], c); j >= 0 {
				b.WriteString("<str>")
				i += j + 2
				continue
			}
		case c == '/' && (i == 0 || !isWordByte(msg[i-1])) && i+1 < len(msg) && isPathByte(msg[i+1]):
			j := i + 1
			for j < len(msg) && (isPathByte(msg[j]) || msg[j] == '/') {
				j++
			}
			b.WriteString("<path>")
			i = j
			continue
		case isDigit(c) && (i == 0 || !isWordByte(msg[i-1])):
			j, tok := scanNumber(msg, i)
			b.WriteString(tok)
			i = j
			continue
		case isWordByte(c) && (i == 0 || !isWordByte(msg[i-1])):
			j := i
			for j < len(msg) && isWordByte(msg[j]) {
				j++
			}
			w := msg[i:j]
			switch {
			case isRankWord(w) || isRankToken(w):
				b.WriteString("<rank>")
			case len(w) >= 8 && isHexWord(w):
				b.WriteString("<hex>")
			default:
				b.WriteString(w)
			}
			i = j
			continue
		}
		b.WriteByte(c)
		i++
	}
	return maskRankPhrases(b.String())
}

// scanNumber reads a number token at msg[i] and returns its end and mask.
func scanNumber(msg string, i int) (int, string) {
	if strings.HasPrefix(msg[i:], "0x") || strings.HasPrefix(msg[i:], "0X") {
		j := i + 2
		for j < len(msg) && isHexByte(msg[j]) {
			j++
		}
		return j, "<hex>"
	}
	j := i
	for j < len(msg) && (isDigit(msg[j]) || msg[j] == '.' || msg[j] == ':' || msg[j] == '-' || msg[j] == ',') {
		if (msg[j] == '.' || msg[j] == ':' || msg[j] == '-' || msg[j] == ',') && (j+1 >= len(msg) || !isDigit(msg[j+1])) {
			break
		}
		j++
	}
	tok := msg[i:j]
	if strings.Count(tok, ":") >= 1 || strings.Count(tok, "-") >= 2 {
		return j, "<time>"
	}
	// A hex id that starts with digits, e.g. 0e9e39f249a1.
	k := j
	for k < len(msg) && isHexByte(msg[k]) {
		k++
	}
	if k-i >= 8 && (k >= len(msg) || !isWordByte(msg[k])) {
		return k, "<hex>"
	}
	// Sizes: "3.94 GiB", "20.00MiB", "600020 milliseconds".
	rest := msg[j:]
	sp := strings.TrimPrefix(rest, " ")
	for _, u := range []string{"GiB", "MiB", "KiB", "GB", "MB", "KB", "kB", "TiB", "TB", "bytes", "B"} {
		if strings.HasPrefix(sp, u) && (len(sp) == len(u) || !isWordByte(sp[len(u)])) {
			return j + (len(rest) - len(sp)) + len(u), "<size>"
		}
	}
	return j, "<num>"
}

// maskRankPhrases masks "Rank <num>", "rank <num>", "GPU <num>", "pid=<num>".
func maskRankPhrases(s string) string {
	for _, w := range []string{"Rank <num>", "rank <num>", "GPU <num>", "gpu <num>", "pid=<num>", "pid <num>", "device <num>", "cuda:<num>", "PG <num>", "rank=<num>", "local_rank=<num>"} {
		if strings.Contains(s, w) {
			s = strings.ReplaceAll(s, w, "<rank>")
		}
	}
	return s
}

func isRankToken(w string) bool {
	return strings.HasPrefix(w, "rank") && allDigits(w[4:])
}

func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isPathByte(c byte) bool {
	return isWordByte(c) || c == '.' || c == '-' || c == '~' || c == '+' || c == '@'
}

func isHexByte(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isHexWord(w string) bool {
	digits := 0
	for i := 0; i < len(w); i++ {
		if !isHexByte(w[i]) {
			return false
		}
		if isDigit(w[i]) {
			digits++
		}
	}
	return digits > 0
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
