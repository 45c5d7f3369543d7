package ingest

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxLineBytes is the longest line stored whole; longer lines are cut.
const DefaultMaxLineBytes = 64 << 10

// truncationMarker is appended to a cut line so a reader sees that, and how
// much, is missing.
func truncationMarker(cut int) string {
	return " …[launchwatch: line truncated, " + strconv.Itoa(cut) + " bytes cut]"
}

// cleanLine makes raw storable: a line longer than maxBytes is cut at a
// character boundary and marked, and invalid UTF-8 and NUL bytes (which
// Postgres text cannot hold) become U+FFFD. Nothing is rejected.
func cleanLine(raw []byte, maxBytes int) string {
	cut := 0
	if len(raw) > maxBytes {
		end := maxBytes
		// Back up to the start of a character so the kept part stays valid.
		for i := 0; i < utf8.UTFMax && end > 0 && !utf8.RuneStart(raw[end]); i++ {
			end--
		}
		cut = len(raw) - end
		raw = raw[:end]
	}
	s := string(raw)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	if cut > 0 {
		s += truncationMarker(cut)
	}
	return s
}
