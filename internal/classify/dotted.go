package classify

import "strings"

// dottedNameRegexp is an expression that starts with a dotted Python name,
// ^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*, followed by one of the bytes in next or
// by the end of the line (the exception lines of a traceback). It answers
// as re does, but first checks that cheaply: the name can only be the whole
// leading run of [\w.] bytes, since none of next is one, so a line whose
// run does not start with [A-Za-z_] or is followed by another byte (a
// frame's source line, "return f(x)") cannot match and skips the regexp.
type dottedNameRegexp struct {
	re   *leadRegexp
	next string
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
	return d.re.MatchString(s)
}

// mustDottedName compiles expr, which starts with a dotted name that one
// of next's bytes (none of them [\w.]) or the end of the line follows.
func mustDottedName(expr, next string) *dottedNameRegexp {
	re, err := compileLead(expr)
	if err != nil {
		panic(err)
	}
	return &dottedNameRegexp{re: re, next: next}
}
