package classify

import (
	"strings"
)

// Noise templates: what LineTemplate returns for a line that carries no
// message of its own. A progress bar keeps its label ("Loading shards:
// <progress>") so that two different bars stay two templates.
const (
	NoiseBlank    = "<blank>"
	NoiseCarets   = "<carets>"
	NoiseRule     = "<rule>"
	NoiseProgress = "<progress>"
)

// LineTemplate is the template a launch comparison groups a stored line
// by: Template of the line as a terminal shows it (colours stripped, only
// the last state of a `\r` redraw), except that noise — progress bars and
// their redraws, the `^^^^`/`~~~~` markers under a traceback's code line,
// separator rules and blank lines — maps to a few fixed templates whatever
// its numbers, bar glyphs or width, and noise reports that it did.
func LineTemplate(text string) (template string, noise bool) {
	var buf [templateBuf]byte
	t, noise := AppendLineTemplate(buf[:0], text)
	return string(t), noise
}

// AppendLineTemplate appends LineTemplate(text) to dst: a caller that
// keeps only new templates (a launch's summary) hashes the bytes and
// makes a string of the few it has not seen.
func AppendLineTemplate(dst []byte, text string) ([]byte, bool) {
	if hasColour(text) {
		text = stripANSI(text)
	}
	text = lastRedraw(text)
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return append(dst, NoiseBlank...), true
	case isProgressBar(text):
		return appendProgressTemplate(dst, text), true
	}
	if !markEnd[text[len(text)-1]] {
		return appendTemplate(dst, text), false // what follows judges the end of the line
	}
	// Judge what the line says without its log prefix and tags: "ERROR
	// 03-14 10:00:09 [core.py:500]     ^^^^^" is a caret line.
	var tags [512]byte
	untagged, maybe := stripTags(tags[:0], ParsePrefix(text, 2000).Body)
	switch rest := strings.TrimSpace(untagged); {
	case !maybe:
	case rest == "":
		return append(dst, NoiseBlank...), true
	case isMarkLine(rest):
		return append(dst, NoiseCarets...), true
	case isRule(rest):
		return append(dst, NoiseRule...), true
	}
	return appendTemplate(dst, text), false
}

// markEnd holds the bytes a caret line or a rule can end with, and the
// tags after one: "^~=-*#_.)]".
var markEnd = func() (t [256]bool) {
	for _, c := range []byte("^~=-*#_.)]") {
		t[c] = true
	}
	return t
}()

// lastRedraw returns what a terminal shows of a line that redraws itself
// with carriage returns (tqdm): its last non-empty segment.
func lastRedraw(s string) string {
	for strings.IndexByte(s, '\r') >= 0 {
		i := strings.LastIndexByte(s, '\r')
		if strings.TrimSpace(s[i+1:]) != "" {
			return s[i+1:]
		}
		s = s[:i]
	}
	return s
}

// isProgressBar reports whether s is a tqdm-style progress bar: "42%|███",
// block glyphs, or a rate such as "[00:05<00:00, 6.5it/s]". It looks for
// the rarer bytes ('%', ']', the glyphs' lead byte) with IndexByte.
func isProgressBar(s string) bool {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], '%')
		if j < 0 {
			break
		}
		i += j
		if i+1 < len(s) && s[i+1] == '|' {
			return true
		}
	}
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			break
		}
		i += j
		if i >= 4 && (s[i-4:i] == "it/s" || s[i-4:i] == "s/it") {
			return true
		}
	}
	return blockGlyphs(s, 3) >= 3
}

// blockGlyphs counts the block elements (U+2580–U+259F, bytes E2 96
// 80–9F) in s, which bars are drawn with, up to limit. A decoder of s
// meets every E2 byte (it never continues a sequence), so counting the
// byte sequences counts the runes.
func blockGlyphs(s string, limit int) int {
	n := 0
	for i := 0; n < limit; i++ {
		j := strings.IndexByte(s[i:], 0xe2)
		if j < 0 {
			break
		}
		i += j
		if i+2 < len(s) && s[i+1] == 0x96 && s[i+2] >= 0x80 && s[i+2] <= 0x9f {
			n++
			i += 2
		}
	}
	return n
}

// appendProgressTemplate appends a bar's label (what comes before its
// percentage or its first glyph) followed by NoiseProgress.
func appendProgressTemplate(dst []byte, s string) []byte {
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
		return append(dst, NoiseProgress...)
	}
	dst = appendTemplate(dst, label)
	return append(append(dst, ' '), NoiseProgress...)
}

// stripTags removes bracketed and parenthesised groups ("(EngineCore
// pid=12)", "[rank0]:") so that what a line says can be judged apart from
// who said it, building the result in buf (a caller's stack array keeps
// it off the heap until the string is made). It stops early, with maybe false, at a byte
// outside the groups that no blank, mark or rule line holds (a letter,
// a digit): most lines that end like a mark say something before.
func stripTags(buf []byte, s string) (string, bool) {
	if strings.IndexByte(s, '(') < 0 && strings.IndexByte(s, '[') < 0 {
		for i := 0; i < len(s); i++ {
			if notMark[s[i]] {
				return "", false
			}
		}
		return s, true
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(' || c == '[':
			depth++
		case (c == ')' || c == ']') && depth > 0:
			depth--
		case depth == 0:
			if notMark[c] {
				return "", false
			}
			buf = append(buf, c)
		}
	}
	if len(buf) == 0 {
		return "", true
	}
	return string(buf), true // short: only blanks, marks and rules get here
}

// notMark holds the ASCII bytes that are neither white space nor one of
// the marks and rules of isMarkLine and isRule (": |^~=-*#_."): one of
// them outside the tags keeps a line from being blank, a mark or a rule.
// Other bytes are judged by those functions (U+00A0 is white space).
var notMark = func() (t [256]bool) {
	for c := range 0x80 {
		t[c] = strings.IndexByte("\t\n\v\f\r :|^~=-*#_.", byte(c)) < 0
	}
	return t
}()

// isMarkLine reports whether s (without its tags) only marks columns of
// the code line above it: Python's "^^^^" and "~~~~^^^^".
func isMarkLine(s string) bool {
	return isCaretLine(strings.TrimLeft(s, ": |"))
}

// isRule reports whether s (without its tags) is a separator: one
// punctuation character repeated, "=====" or "-----".
func isRule(s string) bool {
	s = strings.TrimLeft(s, ": |")
	if len(s) < 3 || !strings.ContainsRune("=-*#_.", rune(s[0])) {
		return false
	}
	return strings.Trim(s, s[:1]+" ") == ""
}
