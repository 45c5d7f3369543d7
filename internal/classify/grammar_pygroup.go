package classify

import (
	"strings"
	"time"
)

// Python ExceptionGroup tracebacks (PEP 654), as traceback.py's
// TracebackException.format draws them: every line of the group is framed
// by "|" and the sub-exceptions are separated by "+---- N ----" rules.
//
//	  + Exception Group Traceback (most recent call last):
//	  |   File "/app/serve.py", line 9, in main
//	  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)
//	  +-+---------------- 1 ----------------
//	    | Traceback (most recent call last):
//	    |   File "/app/engine.py", line 40, in start
//	    | RuntimeError: engine failed to start                <- headline
//	    +------------------------------------
//
// The headline is the first leaf exception (a sub-exception that is not a
// group itself): the group's own line ("unhandled errors in a TaskGroup")
// says only that something inside failed. The group line is the fallback.

// openPyGroup opens the event the way a plain traceback opens (an ERROR
// line just before it is its intro) and hands it to this grammar.
func (s *State) openPyGroup(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	ev := s.startTraceback(fb, p, seq, at, src, t, m)
	ev.St, ev.Sub = stPyGroup, 0
	return ev
}

func (s *State) consumePyGroup(fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	if t == "" {
		return blank(ev, 2)
	}
	inner, rule, framed := groupInner(t)
	if !framed {
		// After the closing rule: the group may be chained to another traceback.
		if m.builtin[litChained] || m.builtin[litCause] {
			ev.St, ev.Blanks = stChain, 0
			return consumed
		}
		return ended
	}
	ev.Blanks = 0
	switch {
	case rule, inner == "", indented(inner), strings.Contains(inner, "Traceback (most recent call last)"):
		return consumed
	case reLooseExc.MatchString(truncate(inner, maxRegexInput)):
		prio := 1 // a group's own line
		if !strings.Contains(inner, "sub-exception") {
			prio = 0
			if ev.Sub == 0 {
				ev.Sub, prio = 1, 2 // the first leaf exception
			}
		}
		s.offer(ev, inner, seq, prio, m)
		if prio == 2 {
			s.tryMerge(fb, ev)
		}
	}
	return consumed
}

// groupInner strips a framed line's "|" or "+" marker. rule reports a
// separator such as "+-+---------------- 1 ----------------".
func groupInner(t string) (inner string, rule, framed bool) {
	switch {
	case strings.HasPrefix(t, "|"):
		return strings.TrimPrefix(t[1:], " "), false, true
	case strings.HasPrefix(t, "+-") || t == "+":
		return "", true, true
	case strings.HasPrefix(t, "+ "):
		return t[2:], false, true
	}
	return "", false, false
}
