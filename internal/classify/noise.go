package classify

import (
	"strings"
	"unicode/utf8"
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
	if hasColour(text) {
		text = stripANSI(text)
	}
	text = lastRedraw(text)
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return NoiseBlank, true
	case isProgressBar(text):
		return progressTemplate(text), true
	}
	if !strings.ContainsRune("^~=-*#_.)]", rune(text[len(text)-1])) {
		return Template(text), false // what follows judges the end of the line
	}
	// Judge what the line says without its log prefix and tags: "ERROR
	// 03-14 10:00:09 [core.py:500]     ^^^^^" is a caret line.
	switch rest := strings.TrimSpace(stripTags(ParsePrefix(text, 2000).Body)); {
	case rest == "":
		return NoiseBlank, true
	case isMarkLine(rest):
		return NoiseCarets, true
	case isRule(rest):
		return NoiseRule, true
	}
	return Template(text), false
}

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
// block glyphs, or a rate such as "[00:05<00:00, 6.5it/s]".
func isProgressBar(s string) bool {
	if strings.Contains(s, "%|") || strings.Contains(s, "it/s]") || strings.Contains(s, "s/it]") {
		return true
	}
	return blockGlyphs(s) >= 3
}

// blockGlyphs counts the block elements (U+2580–U+259F) in s, which bars
// are drawn with.
func blockGlyphs(s string) int {
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

// progressTemplate is a bar's label (what comes before its percentage or
// its first glyph) followed by NoiseProgress.
func progressTemplate(s string) string {
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
	return Template(label) + " " + NoiseProgress
}

// stripTags removes bracketed and parenthesised groups ("(EngineCore
// pid=12)", "[rank0]:") so that what a line says can be judged apart from
// who said it.
func stripTags(s string) string {
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
