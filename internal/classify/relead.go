package classify

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// leadRegexp is a signature's regular expression with the literals one of
// which every match of it starts with (after \b assertions), when the
// expression says so: "\brequest: (?:GET|POST) ...", "(?i)\bfall(?:ing)?
// ?back|\bskipping\b". Go's regexp finds such a literal by itself only when
// it leads the expression plainly (no \b, no (?i), no alternation), and
// otherwise tries every position of a long line. Matching first finds the
// earliest literal: none means no match; otherwise the expression runs from
// one byte before it, which keeps the context \b looks at, and skips a
// prefix where no match can start.
type leadRegexp struct {
	re   *regexp.Regexp
	d    *dfa      // re as an automaton (redfa.go), which answers first
	lits []leadLit // nil: no such literals, run re on the whole line
}

type leadLit struct {
	s    string // ASCII; lower-cased when fold
	fold bool
}

func compileLead(expr string) (*leadRegexp, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	t, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil, err
	}
	t = t.Simplify()
	d, err := newDFA(t)
	if err != nil {
		return nil, err
	}
	lr := &leadRegexp{re: re, d: d}
	if lits, ok := firstLiterals(t); ok {
		lr.lits = lits
	}
	return lr, nil
}

// firstLiterals lists literals one of which starts every match of t; ok is
// false when t does not say (a class, an anchor, an optional first part).
func firstLiterals(t *syntax.Regexp) (lits []leadLit, ok bool) {
	switch t.Op {
	case syntax.OpLiteral:
		s := string(t.Rune)
		if s == "" || !isASCII(s) {
			return nil, false
		}
		fold := t.Flags&syntax.FoldCase != 0
		if fold {
			s = foldASCII(s)
		}
		return []leadLit{{s: s, fold: fold}}, true
	case syntax.OpCapture:
		return firstLiterals(t.Sub[0])
	case syntax.OpConcat:
		for _, sub := range t.Sub {
			if sub.Op == syntax.OpWordBoundary {
				continue // zero width at the literal's own start
			}
			return firstLiterals(sub)
		}
	case syntax.OpAlternate:
		for _, sub := range t.Sub {
			l, ok := firstLiterals(sub)
			if !ok {
				return nil, false
			}
			lits = append(lits, l...)
		}
		return lits, true
	}
	return nil, false
}

// run is lr.re.MatchString(s), by the automaton when it can tell.
func (lr *leadRegexp) run(s string) bool {
	if matched, ok := lr.d.match(s); ok {
		return matched
	}
	return lr.re.MatchString(s)
}

// MatchString is lr.re.MatchString(s).
func (lr *leadRegexp) MatchString(s string) bool {
	if lr.lits == nil {
		return lr.run(s)
	}
	first, ascii := -1, -1
	for _, l := range lr.lits {
		var i int
		if l.fold {
			// (?i) also folds non-ASCII runes onto ASCII letters (the
			// Kelvin sign onto k): an ASCII search is exact only on an
			// ASCII line.
			if ascii < 0 {
				ascii = 0
				if isASCII(s) {
					ascii = 1
				}
			}
			if ascii == 0 {
				return lr.run(s)
			}
			i = indexFoldedASCII(s, l.s)
		} else {
			i = strings.Index(s, l.s)
		}
		if i >= 0 && (first < 0 || i < first) {
			first = i
		}
	}
	if first < 0 {
		return false
	}
	// No literal starts before first, so no match starts at first-1 either:
	// that byte only supplies the context of a \b at first. An ASCII
	// literal begins a rune, so the runes from first on decode as in s.
	return lr.run(s[max(0, first-1):])
}
