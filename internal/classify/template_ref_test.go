package classify

import (
	"strings"
	"unicode/utf8"
)

// The template and noise functions as they were before they were made
// cheaper (template.go, noise.go): the reference the fast ones must agree
// with byte for byte (template_agree_test.go). Helpers shared with the rest
// of the package (isRankWord, allDigits, isDigit, ParsePrefix, stripANSI,
// hasColour, isCaretLine) are called, not copied: both sides follow them.
//
// Why it stays: templates are stored (alarms, rules, signatures match on
// them), so a template that changes by one byte breaks stored rules; the
// reference pins the exact bytes under fuzzing.

func refLineTemplate(text string) (string, bool) {
	if hasColour(text) {
		text = stripANSI(text)
	}
	text = refLastRedraw(text)
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return NoiseBlank, true
	case refIsProgressBar(text):
		return refProgressTemplate(text), true
	}
	if !strings.ContainsRune("^~=-*#_.)]", rune(text[len(text)-1])) {
		return refTemplate(text), false
	}
	switch rest := strings.TrimSpace(refStripTags(ParsePrefix(text, 2000).Body)); {
	case rest == "":
		return NoiseBlank, true
	case refIsMarkLine(rest):
		return NoiseCarets, true
	case refIsRule(rest):
		return NoiseRule, true
	}
	return refTemplate(text), false
}

func refLastRedraw(s string) string {
	for strings.IndexByte(s, '\r') >= 0 {
		i := strings.LastIndexByte(s, '\r')
		if strings.TrimSpace(s[i+1:]) != "" {
			return s[i+1:]
		}
		s = s[:i]
	}
	return s
}

func refIsProgressBar(s string) bool {
	if strings.Contains(s, "%|") || strings.Contains(s, "it/s]") || strings.Contains(s, "s/it]") {
		return true
	}
	return refBlockGlyphs(s) >= 3
}

func refBlockGlyphs(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x2580 && r <= 0x259f {
			n++
		}
		i += size
	}
	return n
}

func refProgressTemplate(s string) string {
	end := len(s)
	if i := strings.IndexByte(s, '%'); i >= 0 {
		j := i
		for j > 0 && (isDigit(s[j-1]) || s[j-1] == '.' || s[j-1] == ' ') {
			j--
		}
		end = j
	}
	for i, r := range s[:end] {
		if r >= 0x2580 && r <= 0x259f || r == '|' {
			end = i
			break
		}
	}
	label := strings.TrimSpace(s[:end])
	if label == "" {
		return NoiseProgress
	}
	return refTemplate(label) + " " + NoiseProgress
}

func refStripTags(s string) string {
	if !strings.ContainsAny(s, "([") {
		return s
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(' || c == '[':
			depth++
		case (c == ')' || c == ']') && depth > 0:
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func refIsMarkLine(s string) bool {
	return isCaretLine(strings.TrimLeft(s, ": |"))
}

func refIsRule(s string) bool {
	s = strings.TrimLeft(s, ": |")
	if len(s) < 3 || !strings.ContainsRune("=-*#_.", rune(s[0])) {
		return false
	}
	return strings.Trim(s, s[:1]+" ") == ""
}

func refTemplate(msg string) string {
	msg = refTruncate(strings.TrimSpace(msg), maxHeadline)
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
		case c == '/' && (i == 0 || !refIsWordByte(msg[i-1])) && i+1 < len(msg) && refIsPathByte(msg[i+1]):
			j := i + 1
			for j < len(msg) && (refIsPathByte(msg[j]) || msg[j] == '/') {
				j++
			}
			b.WriteString("<path>")
			i = j
			continue
		case isDigit(c) && (i == 0 || !refIsWordByte(msg[i-1])):
			j, tok := refScanNumber(msg, i)
			b.WriteString(tok)
			i = j
			continue
		case refIsWordByte(c) && (i == 0 || !refIsWordByte(msg[i-1])):
			j := i
			for j < len(msg) && refIsWordByte(msg[j]) {
				j++
			}
			w := msg[i:j]
			switch {
			case isRankWord(w) || refIsRankToken(w):
				b.WriteString("<rank>")
			case len(w) >= 8 && refIsHexWord(w):
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
	return refMaskRankPhrases(b.String())
}

func refScanNumber(msg string, i int) (int, string) {
	if strings.HasPrefix(msg[i:], "0x") || strings.HasPrefix(msg[i:], "0X") {
		j := i + 2
		for j < len(msg) && refIsHexByte(msg[j]) {
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
	k := j
	for k < len(msg) && refIsHexByte(msg[k]) {
		k++
	}
	if k-i >= 8 && (k >= len(msg) || !refIsWordByte(msg[k])) {
		return k, "<hex>"
	}
	rest := msg[j:]
	sp := strings.TrimPrefix(rest, " ")
	for _, u := range []string{"GiB", "MiB", "KiB", "GB", "MB", "KB", "kB", "TiB", "TB", "bytes", "B"} {
		if strings.HasPrefix(sp, u) && (len(sp) == len(u) || !refIsWordByte(sp[len(u)])) {
			return j + (len(rest) - len(sp)) + len(u), "<size>"
		}
	}
	return j, "<num>"
}

func refMaskRankPhrases(s string) string {
	for _, w := range []string{"Rank <num>", "rank <num>", "GPU <num>", "gpu <num>", "pid=<num>", "pid <num>", "device <num>", "cuda:<num>", "PG <num>", "rank=<num>", "local_rank=<num>"} {
		if strings.Contains(s, w) {
			s = strings.ReplaceAll(s, w, "<rank>")
		}
	}
	return s
}

func refIsRankToken(w string) bool {
	return strings.HasPrefix(w, "rank") && allDigits(w[4:])
}

func refIsWordByte(c byte) bool {
	return c == '_' || isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func refIsPathByte(c byte) bool {
	return refIsWordByte(c) || c == '.' || c == '-' || c == '~' || c == '+' || c == '@'
}

func refIsHexByte(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func refIsHexWord(w string) bool {
	digits := 0
	for i := 0; i < len(w); i++ {
		if !refIsHexByte(w[i]) {
			return false
		}
		if isDigit(w[i]) {
			digits++
		}
	}
	return digits > 0
}

func refTruncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
