package views

import (
	"strconv"
	"strings"
	"time"
)

// Labels of the timelines are placed, not just drawn: each takes a box
// (its estimated width at its font size in SVG units, which scale with
// the SVG, so a layout that fits at one width fits at every width), and a
// label whose box would cross one already placed moves to its other side
// or is left out (its mark keeps the title). The browser tests measure the
// drawn boxes and hold them apart.

// textWidth estimates how wide s is drawn at px, a little generously, by
// the advances of DejaVu Sans (the widest of the sans-serif fonts the pages
// fall back to): narrow punctuation, digits, lower- and upper-case letters
// and wide symbols apart.
func textWidth(s string, px float64) float64 {
	em := 0.0
	for _, r := range s {
		em += runeEm(r)
	}
	return em*px + 2
}

func runeEm(r rune) float64 {
	switch {
	case strings.ContainsRune(" .,:;'|!il", r):
		return 0.34
	case strings.ContainsRune("#×→", r):
		return 0.84
	case strings.ContainsRune("%@MWmw—…", r):
		return 1
	case r >= '0' && r <= '9':
		return 0.64
	case r >= 'A' && r <= 'Z':
		return 0.74
	case r >= 'a' && r <= 'z', r == '-', r == '+', r == '(', r == ')', r == '/':
		return 0.62
	}
	return 0.8
}

// box is a label's extent on the SVG.
type box struct{ x0, x1, y0, y1 float64 }

// labelBox is the box of s drawn at x (with anchor start, middle or end)
// on baseline y at px.
func labelBox(s string, x, y, px float64, anchor string) box {
	w := textWidth(s, px)
	switch anchor {
	case "middle":
		x -= w / 2
	case "end":
		x -= w
	}
	return box{x, x + w, y - px, y + px*0.3}
}

func (a box) overlaps(b box) bool {
	return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1
}

// boxes is what is placed so far.
type boxes []box

func (bs boxes) free(b box) bool {
	for _, o := range bs {
		if o.overlaps(b) {
			return false
		}
	}
	return true
}

// clipText cuts s to what fits in w at px, marking the cut with "…".
func clipText(s string, w, px float64) string {
	if textWidth(s, px) <= w {
		return s
	}
	r := []rune(s)
	for n := len(r) - 1; n > 0; n-- {
		if t := string(r[:n]) + "…"; textWidth(t, px) <= w {
			return t
		}
	}
	return ""
}

// longSpan says how long a stretch of days is, for a break in an axis:
// "3 days", "1 day 4h", "5h20m".
func longSpan(d time.Duration) string {
	days := int(d / (24 * time.Hour))
	switch {
	case days >= 2:
		return strconv.Itoa(days) + " days"
	case days == 1:
		return "1 day " + strconv.Itoa(int(d/time.Hour)%24) + "h"
	}
	return Duration(d)
}
