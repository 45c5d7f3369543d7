package classify

import (
	"strings"
	"time"
)

// C++ processes that die on an uncaught exception or an abort:
//
//	terminate called after throwing an instance of 'std::runtime_error'   (libstdc++'s verbose terminate handler)
//	  what():  failed to open model file                                    <- headline
//	frame #0: ... / Exception raised from ...                               (torch's c10::Error)
//	Aborted (core dumped)                                                   (the shell)
//
// and libc++'s "libc++abi: terminating due to uncaught exception of type
// std::runtime_error: msg" (the headline itself), "terminate called without
// an active exception", "terminate called recursively", and what glog/absl
// print when they abort the process: "*** Check failure stack trace: ***",
// "    @     0x7f... google::LogMessage::Fail()", "*** Aborted at 1700000000
// (unix time) ...", "PC: @ 0x0 (unknown)", "*** SIGABRT received by PID 7 ...".
// A faulthandler dump ("Fatal Python error: Aborted") or Go's signal dump
// (a C++ abort inside cgo) may follow; they join the event (see takeover).
//
// The headline is the what() line when there is one: it carries the
// exception's message, while the terminate line only names its type.

func (s *State) openAbort(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	if quiet(p.Level) {
		return nil
	}
	switch {
	case strings.HasPrefix(t, "terminate called "):
		return s.openEvent(fb, p, seq, at, src, t, stAbort, AlarmOther, 1, m)
	case strings.HasPrefix(t, "libc++abi: terminating") || strings.HasPrefix(t, "libc++abi.dylib: terminating"):
		return s.openEvent(fb, p, seq, at, src, t, stAbort, AlarmOther, 2, m)
	}
	return nil
}

func (s *State) consumeAbort(fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	switch {
	case t == "":
		return blank(ev, 1)
	case strings.HasPrefix(t, "what():"):
		ev.Blanks, ev.Cont = 0, 0
		s.offer(ev, t, seq, 2, m)
		s.tryMerge(fb, ev)
		return consumed
	case isSignalConsequence(m):
		s.consequence(ev, m)
		ev.Sub = 1 // the process is gone: only its dump may follow
		return consumed
	case isAbortDumpLine(t), strings.HasPrefix(t, "frame #"), strings.HasPrefix(t, "Exception raised from"):
		ev.Sub = 1
		return consumed
	case ev.Sub == 0 && !p.Tagged && m.best == nil && m.follow == nil && ev.Cont < maxContLines:
		ev.Cont++ // the rest of a multi-line what() message
		return consumed
	}
	return ended
}

// isAbortDumpLine reports the lines glog, absl and ggml print while the
// process aborts: "*** ... ***" banners, "PC: @ ..." and "    @ 0x..." frames.
func isAbortDumpLine(t string) bool {
	return strings.HasPrefix(t, "*** ") || strings.HasPrefix(t, "PC: @") || strings.HasPrefix(t, "@ ") ||
		strings.HasPrefix(t, "@\t")
}
