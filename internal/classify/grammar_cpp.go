package classify

import "strings"

// The C++ abort-dump recogniser of c10/PyTorch errors: "frame #N: ..."
// lines, "Exception raised from X at file:line", what() and the message
// lines that follow (see grammar_abort.go for terminate/abort banners).

func isCppLine(t string) bool {
	return strings.HasPrefix(t, "frame #") || strings.HasPrefix(t, "what():") || strings.HasPrefix(t, "Exception raised from") ||
		strings.HasPrefix(t, "terminate called")
}

// consumeCpp reads a C++ abort dump: frames, what(), "Exception raised from".
func (s *State) consumeCpp(fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	switch {
	case t == "":
		ev.Blanks++
		if ev.Blanks > 1 {
			return ended
		}
		return consumed
	case strings.HasPrefix(t, "what():"):
		ev.Blanks = 0
		prio := 2
		var g *Signature
		if m.best != nil && m.best.Priority > prio {
			prio, g = m.best.Priority, m.best
		}
		s.setHeadline(ev, t, seq, prio, g)
		ev.Cont = 0
		s.tryMerge(fb, ev)
		return consumed
	case isCppLine(t):
		ev.Blanks = 0
		switch {
		case m.best != nil:
			s.setHeadline(ev, t, seq, m.best.Priority, m.best)
		case strings.HasPrefix(t, "Exception raised from"):
			// Where c10 raised it says more than any frame.
			s.setHeadline(ev, t, seq, 1, nil)
		}
		return consumed
	case m.builtin[litTraceback]:
		ev.St, ev.PrevFile = stFrames, false
		return consumed
	case ev.Blanks == 0 && ev.Cont < maxContLines && !p.Tagged && m.best == nil && m.follow == nil:
		ev.Cont++
		return consumed
	}
	return ended
}
