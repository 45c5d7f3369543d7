package classify

import (
	"regexp"
	"strings"
)

// dottedNameRegexp is an expression that starts with a dotted Python name,
// ^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*, followed by one of the bytes in next or
// by the end of the line (the exception lines of a traceback). It answers
// as re does, but first checks that cheaply: the name can only be the whole
// leading run of [\w.] bytes, since none of next is one, so a line whose
// run does not start with [A-Za-z_] or is followed by another byte (a
// frame's source line, "return f(x)") cannot match and skips the regexp.
type dottedNameRegexp struct {
	re   *regexp.Regexp
	d    *dfa // re as an automaton (redfa.go)
	next string
}

// newDottedNameRegexp compiles expr, which must start with a dotted name
// that next (bytes that are not [\w.]) or the end of the line follows.
func newDottedNameRegexp(expr, next string) *dottedNameRegexp {
	d, err := newDFA(expr)
	if err != nil {
		panic(err)
	}
	return &dottedNameRegexp{re: regexp.MustCompile(expr), d: d, next: next}
}

func (d *dottedNameRegexp) MatchString(s string) bool {
	if s == "" || !(s[0] == '_' || (s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z')) {
		return false
	}
	i := 1
	for i < len(s) && (isWordByte(s[i]) || s[i] == '.') {
		i++
	}
	if i < len(s) && strings.IndexByte(d.next, s[i]) < 0 {
		return false
	}
	if matched, ok := d.d.match(s); ok {
		return matched
	}
	return d.re.MatchString(s)
}
