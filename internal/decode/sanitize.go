package decode

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

// cleanLine makes raw storable: invalid UTF-8 and NUL bytes (which
// Postgres text cannot hold) become U+FFFD, and a line longer than maxBytes
// is then cut at a character boundary and marked. Nothing is rejected.
func cleanLine(raw []byte, maxBytes int) string {
	return cleanText(string(raw), maxBytes)
}

// cleanText is cleanLine for a string: s itself when it needs no change.
func cleanText(s string, maxBytes int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	if len(s) <= maxBytes {
		return s
	}
	end := maxBytes
	// Back up to the start of a character so the kept part stays valid.
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + truncationMarker(len(s)-end)
}
