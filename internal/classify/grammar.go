package classify

import (
	"strings"
	"time"
)

// Stage 2 of the classifier: recognisers beyond Python tracebacks and
// torch's C++ frame dumps. Each grammar_*.go file holds one small state
// machine over the lines of one source. A recogniser only says "this line
// opens / continues / closes an event of kind K with headline H"; whether the
// event is fatal, survived or withdrawn is decided by the verdict code
// (setFatal, survived, withdraw, settle).
//
// Two entry points hook the recognisers into the event machinery:
//   - openGrammar, called by State.line for a line that no open event took,
//     before the signature-driven openers;
//   - consumeGrammar, called by State.consume for an event in one of the
//     states below, and takeover, called first by State.consume so that a
//     dump that changes runtime half-way (a C++ abort followed by Go's
//     SIGABRT goroutine dump, a Python-looking exception line followed by
//     Java frames) stays one event.

// Event states of the recognisers. They start far from event.go's states so
// that either list can grow without renumbering the other (states are saved
// with MarshalBinary).
const (
	stGo      evState = 100 + iota // a Go runtime dump: panic/fatal error, goroutines, frames
	stRust                         // a Rust panic: message, note, stack backtrace
	stJava                         // a JVM exception: at-frames, Caused by, ... N more
	stPyGroup                      // a Python ExceptionGroup traceback with |-framed sub-tracebacks
	stFault                        // faulthandler's thread dump after "Fatal Python error"
	stAbort                        // a C++ terminate/abort dump: what(), frames, Aborted
	stLast                         // a process's last words: "Error: ..." and its causes or usage
	stLevel                        // a run of CRITICAL/FATAL (or promoted ERROR) lines
)

// grammarState is what the recognisers keep per launch besides the events.
type grammarState struct {
	Runs   []*pendingRun `json:"runs,omitempty"`    // ERROR runs that may still become an event
	UsageN int64         `json:"usage_n,omitempty"` // line count of the latest argparse usage line
	// Lies is set once an ERROR-level line turned out to be progress,
	// readiness or a phase: a wrapper re-logs the server's whole stderr at
	// ERROR, so ERROR runs prove nothing in this launch.
	Lies bool `json:"lies,omitempty"`
	// Served lists sources (at most maxRuns, the latest) that answered a
	// request: a serving process is quiet whenever no request comes, so
	// its silence after ERROR lines proves nothing (promoteOnSettle).
	Served []string `json:"served,omitempty"`
}

// openGrammar lets the recognisers open an event at a line no open event
// took. It reports whether the line was taken (v is then filled in).
func (s *State) openGrammar(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch, v *LineVerdict) bool {
	if t == "" {
		return false
	}
	if s.promoteByLine(fb, p, seq, at, src, t, m, v) {
		return true
	}
	ev := s.openUsageError(fb, p, seq, at, src, t, m)
	switch {
	case ev != nil:
	case strings.HasPrefix(t, "+ Exception Group Traceback"):
		ev = s.openPyGroup(fb, p, seq, at, src, t, m)
	case t[0] == 'p' || t[0] == 'f' || t[0] == 'F' || t[0] == 'S':
		if ev = s.openGo(fb, p, seq, at, src, t, m); ev == nil {
			ev = s.openFault(fb, p, seq, at, src, t, m)
		}
		if ev == nil {
			ev = s.openRustAbort(fb, p, seq, at, src, t, m)
		}
	case t[0] == 't':
		if ev = s.openRust(fb, p, seq, at, src, t, m); ev == nil {
			ev = s.openAbort(fb, p, seq, at, src, t, m)
		}
	case t[0] == 'l':
		ev = s.openAbort(fb, p, seq, at, src, t, m)
	case t[0] == 'E':
		if ev = s.openJava(fb, p, seq, at, src, t, m); ev == nil {
			ev = s.openLastWords(fb, p, seq, at, src, t, m)
		}
	case t[0] == 'e' || t[0] == 'u':
		ev = s.openLastWords(fb, p, seq, at, src, t, m)
	}
	if ev == nil && m.best == nil && m.follow == nil {
		ev = s.openLevel(fb, p, seq, at, src, t, m)
	}
	if ev == nil {
		return false
	}
	s.assign(fb, ev, v, at)
	s.d.CurSrc = src
	return true
}

// consumeGrammar continues an event in one of the recognisers' states.
func (s *State) consumeGrammar(fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	switch ev.St {
	case stGo:
		return s.consumeGo(ev, p, t)
	case stRust:
		return s.consumeRust(ev, p, seq, t, m)
	case stJava:
		return s.consumeJava(ev, p, seq, t, m)
	case stPyGroup:
		return s.consumePyGroup(fb, ev, p, seq, t, m)
	case stFault:
		return s.consumeFault(ev, p, t)
	case stAbort:
		return s.consumeAbort(fb, ev, p, seq, t, m)
	case stLast:
		return s.consumeLastWords(ev, p, t)
	case stLevel:
		return s.consumeLevel(ev, p, seq, t, m)
	}
	return ended
}

// takeover lets a dump continue in another runtime's grammar: the line is
// part of the open event although the event's own grammar would end it.
func (s *State) takeover(ev *event, p *Prefix, seq int64, t string, m *lineMatch) (consumeResult, bool) {
	if t == "" || ev.St == stClosed || ev.St == stFrames || ev.St == stChain {
		return 0, false
	}
	dump := ev.St == stSingle || ev.St == stCpp || ev.St == stAbort || ev.St == stLevel
	switch {
	case dump && (isGoSignalHeader(t) || strings.HasPrefix(t, "fatal error: ")) && ev.St != stGo:
		// cgo: a C++ abort or GGML assert inside a Go process ends in
		// Go's own signal dump.
		s.consequence(ev, m)
		ev.St, ev.Sub, ev.Cont, ev.Blanks = stGo, goHeader, 0, 0
		return consumed, true
	case (ev.St == stSingle || ev.St == stLevel) && isJavaFrame(p.Body):
		ev.St, ev.Sub = stJava, 0
		return consumed, true
	case dump && strings.HasPrefix(t, "Fatal Python error: "):
		s.consequence(ev, m)
		ev.St, ev.Blanks = stFault, 0
		return consumed, true
	case (ev.St == stCpp || ev.St == stSingle) && isSignalConsequence(m):
		s.consequence(ev, m)
		if ev.A.Kind == AlarmSignal && m.best != nil && m.best.Priority > ev.Prio {
			// The event is itself a death report opened by its intro line
			// (the kernel's "X invoked oom-killer"): the line naming the
			// victim ("Out of memory: Killed process N") heads it.
			s.setHeadline(ev, t, seq, m.best.Priority, m.best)
		}
		return consumed, true
	}
	return 0, false
}

// openEvent opens a live event in a recogniser's state with its first
// headline candidate.
func (s *State) openEvent(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, st evState, kind AlarmKind, prio int, m *lineMatch) *event {
	ev := s.newEvent(fb, src, seq, at, s.d.Shutdown != 0 || p.Level == "DEBUG")
	ev.St = st
	ev.A.Kind = kind
	var g *Signature
	if m != nil && m.best != nil {
		g = m.best
		prio = max(prio, g.Priority)
	}
	s.setHeadline(ev, t, seq, prio, g)
	return ev
}

// offer offers a line of an event as a headline candidate at prio, or at
// its signature's priority when one matched and ranks higher.
func (s *State) offer(ev *event, t string, seq int64, prio int, m *lineMatch) {
	var g *Signature
	if m != nil && m.best != nil {
		g = m.best
		prio = max(prio, g.Priority)
	}
	if g == nil && prio < ev.Prio {
		return
	}
	s.setHeadline(ev, t, seq, prio, g)
}

// consequence records that a line reporting the process's death (a signal,
// an abort, an exit report) belongs to ev without taking its headline.
func (s *State) consequence(ev *event, m *lineMatch) {
	if m.follow != nil || (m.best != nil && m.best.Kind == AlarmSignal) {
		ev.Signalled = true
		if !ev.A.Fatal {
			s.setFatal(ev, true)
		}
	}
}

// isSignalConsequence reports a line that says the process died by a signal
// or an exit report ("Aborted (core dumped)", "Segmentation fault").
func isSignalConsequence(m *lineMatch) bool {
	return (m.best != nil && m.best.Kind == AlarmSignal) || (m.follow != nil && m.follow.Kind == AlarmSignal)
}

// blank handles an empty line inside a dump: at most max empty lines in a
// row may separate its parts.
func blank(ev *event, max int) consumeResult {
	ev.Blanks++
	if ev.Blanks > max {
		return ended
	}
	return notYet
}

func indented(body string) bool { return body != "" && (body[0] == ' ' || body[0] == '\t') }

// quiet reports a level that says the line is not an error report: the
// recognisers of runtime dumps, which runtimes print without a level, do
// not open at such lines (a logger quoting a panic message at INFO).
func quiet(level string) bool { return level == "INFO" || level == "DEBUG" || level == "WARNING" }
