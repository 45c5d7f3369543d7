package linesearch

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Prefilter is what every line a search matches must contain: a
// conjunction of clauses, each a disjunction of literals. It never leaves
// out a matching line (it may keep lines that do not match): the substring
// search is one clause of one literal, an RE2 expression gives the
// literals its matches require (`CUDA (error|out of memory)` → one clause
// of "CUDA error" and "CUDA out of memory"), and the expression itself is
// then applied in Go, so its semantics stay RE2's.
//
// A literal holds WildFold where a case-insensitive expression may match a
// character that folds to something no case-insensitive LIKE of the
// database's locale would find (k matches the Kelvin sign in RE2): the
// bloom filter skips trigrams holding it and ILIKE reads it as "_".
type Prefilter [][]string

// WildFold stands in a literal for a character no case-insensitive LIKE
// would find; it is never in stored text (ingest replaces NUL).
const WildFold = '\x00'

const (
	maxExact       = 16 // the most strings an exact set keeps
	maxClauses     = 8
	maxClauseWords = 16
)

// Substring is the prefilter of a case-insensitive substring.
func Substring(s string) Prefilter {
	if s == "" {
		return nil
	}
	return Prefilter{{s}}
}

// Regexp is the prefilter of an RE2 expression (nil when it
// requires no literal, such as `.*` or `\d+`).
func Regexp(expr string) Prefilter {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	p := reInfoOf(re.Simplify()).clauses()
	if len(p) > maxClauses {
		p = p[:maxClauses]
	}
	return p
}

// Folds reports whether any part of an RE2 expression matches case-
// insensitively ((?i)): its literals are then folded (lower case, with
// WildFold) and only a case-insensitive comparison may test them. An
// expression that does not parse folds, to be safe.
func Folds(expr string) bool {
	re, err := syntax.Parse(expr, syntax.Perl)
	return err != nil || folds(re)
}

func folds(re *syntax.Regexp) bool {
	if re.Flags&syntax.FoldCase != 0 {
		return true
	}
	for _, sub := range re.Sub {
		if folds(sub) {
			return true
		}
	}
	return false
}

// reInfo is what a part of an expression matches: exactly one of a small
// set of strings (exact, when known), or strings that contain a literal of
// each clause of cnf.
type reInfo struct {
	exact []string
	cnf   Prefilter
}

func anyInfo() reInfo { return reInfo{} }

func exactInfo(s ...string) reInfo { return reInfo{exact: s} }

// clauses turns an exact set into a clause (useless when it holds "").
func (i reInfo) clauses() Prefilter {
	if i.exact == nil {
		return i.cnf
	}
	for _, s := range i.exact {
		if s == "" {
			return nil
		}
	}
	return Prefilter{i.exact}
}

func reInfoOf(re *syntax.Regexp) reInfo {
	fold := re.Flags&syntax.FoldCase != 0
	switch re.Op {
	case syntax.OpLiteral:
		return exactInfo(literalOf(re.Rune, fold))
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				if len(out) == 4 {
					return anyInfo()
				}
				out = append(out, literalOf([]rune{r}, false))
			}
		}
		return exactInfo(out...)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactInfo("")
	case syntax.OpCapture:
		return reInfoOf(re.Sub[0])
	case syntax.OpQuest:
		if sub := reInfoOf(re.Sub[0]); sub.exact != nil && len(sub.exact) < maxExact {
			return exactInfo(append([]string{""}, sub.exact...)...)
		}
		return anyInfo()
	case syntax.OpPlus:
		return reInfo{cnf: reInfoOf(re.Sub[0]).clauses()}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return reInfo{cnf: reInfoOf(re.Sub[0]).clauses()}
		}
		return anyInfo()
	case syntax.OpConcat:
		cur := exactInfo("")
		for _, sub := range re.Sub {
			next := reInfoOf(sub)
			if cur.exact != nil && next.exact != nil && len(cur.exact)*len(next.exact) <= maxExact {
				var prod []string
				for _, a := range cur.exact {
					for _, b := range next.exact {
						prod = append(prod, a+b)
					}
				}
				cur = exactInfo(prod...)
				continue
			}
			cur = reInfo{cnf: append(cur.clauses(), next.clauses()...)}
		}
		return cur
	case syntax.OpAlternate:
		var exact []string
		var clause []string
		allExact := true
		for _, sub := range re.Sub {
			info := reInfoOf(sub)
			if info.exact != nil {
				exact = append(exact, info.exact...)
			} else {
				allExact = false
			}
			best := bestClause(info.clauses())
			if best == nil {
				return anyInfo() // one branch requires nothing
			}
			clause = append(clause, best...)
		}
		if allExact && len(exact) <= maxExact {
			return exactInfo(exact...)
		}
		if len(clause) > maxClauseWords {
			return anyInfo()
		}
		return reInfo{cnf: Prefilter{clause}}
	}
	return anyInfo() // any character, a star
}

// bestClause is the clause of p whose shortest literal is longest: the
// most selective one alone stands for a branch of an alternation.
func bestClause(p Prefilter) []string {
	var best []string
	bestLen := -1
	for _, c := range p {
		short := -1
		for _, w := range c {
			if short < 0 || len(w) < short {
				short = len(w)
			}
		}
		if short > bestLen {
			best, bestLen = c, short
		}
	}
	return best
}

// literalOf is a literal of runes; fold marks case-insensitive ones: a
// letter that folds beyond ASCII (k, s, and any non-ASCII letter) becomes
// WildFold.
func literalOf(rs []rune, fold bool) string {
	var b strings.Builder
	for _, r := range rs {
		switch {
		case !fold:
			b.WriteRune(r)
		case r < utf8.RuneSelf && !strings.ContainsRune("kKsS", r):
			b.WriteRune(unicode.ToLower(r))
		case unicode.SimpleFold(r) != r:
			b.WriteByte(WildFold)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
