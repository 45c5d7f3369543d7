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
//   - the recognisers table: each grammar's opener, tried in order, and its
//     consumer, which State.consume calls for an event in its state; and
//     takeover, called first by State.consume so that a
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
	stElixir                       // an Elixir exception: ** (Name) lines and their stack
	stJS                           // a Node.js error stack: at-frames, causes, properties
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

// recogniser is one grammar of the table below: the state its events are
// in while it reads them, the first bytes of the lines it can open an event
// at ("" for any), its opener and its consumer. Adding a runtime's dump is
// one grammar_*.go file and one entry here.
type recogniser struct {
	name  string
	st    evState
	first string
	// open opens an event at a line no open event took, or returns nil;
	// it may also return an event already open (the line joins it).
	open func(s *State, fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event
	// consume reads a line on the source of an event in state st.
	consume func(s *State, fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult
	// merge: the event opened may be another rank's copy of an alarm
	// (tryMerge). stay: the line joins an event without making its
	// source the current one (State.source's untagged continuation).
	merge, stay bool
	// needs: what the line's match must hold for open to be worth a call
	// (openGrammar skips it otherwise, as first does by the first byte).
	needs matchNeeds
}

// matchNeeds are what an opener needs of a line's match.
type matchNeeds uint8

const (
	needBest      matchNeeds = 1 << iota // an alarm signature (lineMatch.best)
	needFollow                           // a follow signature (lineMatch.follow)
	needTraceback                        // the traceback header's literal
)

// needsOf is what m holds of the needs.
func needsOf(m *lineMatch) matchNeeds {
	var n matchNeeds
	if m.best != nil {
		n |= needBest
	}
	if m.follow != nil {
		n |= needFollow
	}
	if m.builtin[litTraceback] {
		n |= needTraceback
	}
	return n
}

// recognisers in the order their openers are tried: the first that opens
// an event at a line takes it. The runtimes' dumps come first; then the
// grammars of event.go (a logging error's dump, a Python traceback, its
// frames without their header, a C++ frame dump), and last the events a
// signature's line opens or ends, which the recognisers before may have
// taken as part of a dump.
var recognisers = [...]recogniser{
	{name: "argparse usage error", st: stLast, open: (*State).openUsageError},
	{name: "Python exception group", st: stPyGroup, first: "+",
		open: func(s *State, fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
			if !strings.HasPrefix(t, "+ Exception Group Traceback") {
				return nil
			}
			return s.openPyGroup(fb, p, seq, at, src, t, m)
		},
		consume: (*State).consumePyGroup},
	{name: "Go runtime dump", st: stGo, first: "pfFS", open: (*State).openGo,
		consume: func(s *State, _ *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
			if ev.Sub == goRecovered {
				return s.consumeGinRecovery(ev, p, seq, t, m)
			}
			return s.consumeGo(ev, p, t)
		}},
	{name: "gin's recovered panic", st: stGo, needs: needBest, open: (*State).openGinRecovery},
	{name: "faulthandler dump", st: stFault, first: "pfFS", open: (*State).openFault,
		consume: func(s *State, _ *feedBuf, ev *event, p *Prefix, _ int64, t string, _ *lineMatch) consumeResult {
			return s.consumeFault(ev, p, t)
		}},
	{name: "Rust abort", st: stRust, first: "pfFS", open: (*State).openRustAbort},
	{name: "Rust panic", st: stRust, first: "t", open: (*State).openRust,
		consume: func(s *State, _ *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
			return s.consumeRust(ev, p, seq, t, m)
		}},
	{name: "C++ terminate or assert", st: stAbort, first: "tl", open: (*State).openAbort, consume: (*State).consumeAbort},
	{name: "JVM or .NET exception", st: stJava, first: "EU", open: (*State).openJava,
		consume: func(s *State, _ *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
			return s.consumeJava(ev, p, seq, t, m)
		}},
	{name: "Elixir exception", st: stElixir, first: "*", open: (*State).openElixir,
		consume: func(s *State, _ *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
			return s.consumeElixir(ev, p, seq, t, m)
		}},
	{name: "Node.js stack", st: stJS, consume: func(s *State, _ *feedBuf, ev *event, p *Prefix, _ int64, t string, _ *lineMatch) consumeResult {
		return s.consumeJS(ev, p, t)
	}},
	{name: "last words", st: stLast, first: "ECF\xe2\xf0abcdefghijklmnopqrstuvwxyz", open: (*State).openLastWords,
		consume: func(s *State, _ *feedBuf, ev *event, p *Prefix, _ int64, t string, _ *lineMatch) consumeResult {
			return s.consumeLastWords(ev, p, t)
		}},
	{name: "CRITICAL/FATAL run", st: stLevel,
		open: func(s *State, fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
			if m.best != nil || m.follow != nil {
				return nil // a signature's line opens its own event
			}
			return s.openLevel(fb, p, seq, at, src, t, m)
		},
		consume: func(s *State, _ *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
			return s.consumeLevel(ev, p, seq, t, m)
		}},
	// The grammars of event.go: a logging error's dump, a Python
	// traceback, what follows its exception line, a chain between two
	// tracebacks, a C++ frame dump.
	{name: "logging error", st: stChain, first: "-",
		open: func(s *State, fb *feedBuf, _ *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
			if !m.builtin[litLoggingError] || t != "--- Logging error ---" {
				return nil
			}
			return s.startLoggingError(fb, src, seq, at, t)
		}},
	{name: "Python traceback", st: stFrames, consume: (*State).consumeFrames, needs: needTraceback,
		open: func(s *State, fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
			if !m.builtin[litTraceback] {
				return nil
			}
			s.promoteReporters(fb, src) // before: their alarms come first
			return s.startTraceback(fb, p, seq, at, src, t, m)
		}},
	{name: "Python frames without their header", st: stFrames, first: "F>",
		open: func(s *State, fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, _ *lineMatch) *event {
			if !isFrameLine(t) {
				return nil
			}
			ev := s.newEvent(fb, src, seq, at, s.benign(p, src))
			ev.St, ev.PrevFile = stFrames, true
			s.setHeadline(ev, t, seq, 0, nil)
			return ev
		}},
	{name: "after an exception line", st: stAfterExc, consume: (*State).consumeAfterExc},
	{name: "exception chain", st: stChain, consume: (*State).consumeChain},
	{name: "C++ frames", st: stCpp, consume: (*State).consumeCpp, first: "fE",
		open: func(s *State, fb *feedBuf, _ *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
			raised := m.builtin[litRaisedFrom] && strings.HasPrefix(t, "Exception raised from")
			if !raised && !strings.HasPrefix(t, "frame #") {
				return nil
			}
			ev := s.newEvent(fb, src, seq, at, s.d.Shutdown != 0)
			ev.St = stCpp
			prio := 0
			if strings.HasPrefix(t, "Exception raised from") {
				prio = 1
			}
			s.setHeadline(ev, t, seq, prio, m.best)
			return ev
		}},
	// A signature's line: what follows, what ends, what repeats.
	{name: "a follow line ending the event before it", st: stSingle, stay: true, needs: needFollow,
		open: func(s *State, _ *feedBuf, _ *Prefix, seq int64, _ time.Time, _, t string, m *lineMatch) *event {
			if m.follow == nil || m.best != nil {
				return nil
			}
			ev := s.recent()
			if ev == nil {
				return nil
			}
			ev.Signalled = true
			if m.follow.Priority > ev.Prio {
				// A root cause's rank: kubelet's "failed liveness
				// probe, will be restarted" says why the probe
				// failures before it ended the container.
				s.setHeadline(ev, t, seq, m.follow.Priority, m.follow)
			}
			return ev
		}},
	{name: "a follow line", st: stSingle, merge: true, needs: needFollow,
		open: func(s *State, fb *feedBuf, _ *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
			if m.follow == nil || m.best != nil || m.follow.Summary && s.d.Fatal > 0 {
				return nil
			}
			ev := s.newEvent(fb, src, seq, at, s.d.Shutdown != 0)
			s.setHeadline(ev, t, seq, m.follow.Priority, m.follow)
			return ev
		}},
	{name: "a shell's report of the death just printed", st: stSingle, stay: true, needs: needBest,
		open: func(s *State, _ *feedBuf, _ *Prefix, _ int64, _ time.Time, _, t string, m *lineMatch) *event {
			// "Killed" after SGLang's sigquit handler kills its own tree:
			// the end of that event, not a second one to triage.
			if m.best == nil {
				return nil
			}
			ev := s.deathOfRecent(t, m)
			if ev != nil {
				ev.Signalled = true
			}
			return ev
		}},
	{name: "a request failing after the engine died", st: stSingle, stay: true, needs: needBest,
		open: func(s *State, fb *feedBuf, _ *Prefix, seq int64, at time.Time, src, _ string, m *lineMatch) *event {
			// "Error in chat completion stream generator" for every
			// in-flight request: the death's echo, shown under it.
			if m.best == nil || m.best.IsFatal() {
				return nil
			}
			death := s.echoOfDeath(src)
			if death == nil {
				return nil
			}
			ev := s.newEvent(fb, src, seq, at, true)
			ev.JoinTo = death.A.ID
			return ev
		}},
	{name: "signature line", st: stSingle, consume: (*State).consumeSingle, merge: true, needs: needBest,
		open: func(s *State, fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
			if m.best == nil {
				return nil
			}
			// A JVM exception's first line right after a WARNING record of
			// the same source is that record's throwable (Logback and Log4j
			// print it under the message): the logger called it a warning,
			// as Python's logger.warning(exc_info=True) does (benign).
			silent := s.d.Shutdown != 0 || isJVMExceptionLine(t) && s.benign(p, src)
			ev := s.newEvent(fb, src, seq, at, silent)
			if isCppLine(t) {
				ev.St = stCpp // "terminate called ...": what() and frames follow
			}
			s.setHeadline(ev, t, seq, m.best.Priority, m.best)
			return ev
		}},
	{name: "a fatal alarm's headline again", st: stSingle, merge: true,
		open: func(s *State, fb *feedBuf, _ *Prefix, seq int64, at time.Time, src, t string, _ *lineMatch) *event {
			// A wrapper restarted the server and it failed the same way:
			// the same failure again, whatever made the first an alarm.
			first := s.repeatOf(t)
			if first == nil {
				return nil
			}
			ev := s.newEvent(fb, src, seq, at, s.d.Shutdown != 0)
			ev.A.Kind, ev.KindPrio = first.A.Kind, first.KindPrio
			s.setHeadline(ev, t, seq, first.Prio, nil)
			return ev
		}},
}

// consumers maps an event state to its recogniser's consumer (consumerOf).
// It is built by init: the consumers themselves reach it (an event that
// changes grammar half-way), which an initializer may not.
var consumers []func(*State, *feedBuf, *event, *Prefix, int64, string, *lineMatch) consumeResult

// openersFor lists, for each first byte of a line and each set of what its
// match holds (matchNeeds), the recognisers (indices into recognisers, in
// order) whose openers may open an event there: a table lookup instead of
// checking every recogniser's first bytes and needs on each line no event
// took.
var openersFor [256][needTraceback << 1][]uint8

func init() {
	for i, r := range recognisers {
		if r.open != nil {
			for c := range openersFor {
				if r.first != "" && strings.IndexByte(r.first, byte(c)) < 0 {
					continue
				}
				for has := range openersFor[c] {
					if r.needs&^matchNeeds(has) == 0 {
						openersFor[c][has] = append(openersFor[c][has], uint8(i))
					}
				}
			}
		}
		if r.consume == nil {
			continue
		}
		for int(r.st) >= len(consumers) {
			consumers = append(consumers, nil)
		}
		if consumers[r.st] != nil {
			panic("classify: two consumers for one event state: " + r.name)
		}
		consumers[r.st] = r.consume
	}
}

// consumerOf is the consumer of events in state st, nil if none (a closed
// event, or a state no grammar has: a checkpoint is input too).
func consumerOf(st evState) func(*State, *feedBuf, *event, *Prefix, int64, string, *lineMatch) consumeResult {
	if st < 0 || int(st) >= len(consumers) {
		return nil
	}
	return consumers[st]
}

// openGrammar lets the recognisers open an event at a line no open event
// took (an ERROR line that promotes a pending run first). It reports
// whether the line was taken (v is then filled in).
func (s *State) openGrammar(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch, v *LineVerdict) bool {
	if t == "" {
		return false
	}
	if s.promoteByLine(fb, p, seq, at, src, t, m, v) {
		return true
	}
	var ev *event
	var r *recogniser
	for _, i := range openersFor[t[0]][needsOf(m)] {
		r = &recognisers[i]
		if ev = r.open(s, fb, p, seq, at, src, t, m); ev != nil {
			break
		}
	}
	if ev == nil {
		return false
	}
	if m.builtin[litTraceback] {
		s.promoteReporters(fb, src)
	}
	s.assign(fb, ev, v, at)
	if r.merge {
		s.tryMerge(fb, ev)
	}
	if !r.stay {
		s.d.CurSrc = src
	}
	return true
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
	case (ev.St == stSingle || ev.St == stLevel || ev.St == stLast || ev.St == stAfterExc) && isJSFrame(p.Body):
		ev.St, ev.Blanks = stJS, 0
		if s.d.Ready != nil {
			s.loggedStack(ev)
		}
		return consumed, true
	case (ev.St == stSingle || ev.St == stLevel) && ev.Blanks == 0 && isGoroutineHeader(t):
		// Goroutine stacks under the line: klog's Fatal dumps them after
		// its F record, net/http after "http: panic serving ...".
		ev.St, ev.Sub, ev.Cont = stGo, goStack, 0
		return consumed, true
	case dump && strings.HasPrefix(t, "Fatal Python error: "):
		s.consequence(ev, m)
		ev.St, ev.Blanks = stFault, 0
		return consumed, true
	case (ev.St == stCpp || ev.St == stSingle) && isSignalConsequence(m) && !isExitReport(t) && !s.otherLogger(ev, p):
		s.consequence(ev, m)
		if ev.A.Kind == AlarmSignal && m.best != nil && m.best.Priority > ev.Prio {
			// The event is itself a death report opened by its intro line
			// (the kernel's "X invoked oom-killer"): the line naming the
			// victim ("Out of memory: Killed process N") heads it.
			s.setHeadline(ev, t, seq, m.best.Priority, m.best)
		} else if m.best == nil && m.follow != nil && m.follow.Priority > ev.Prio {
			// A follow that ranks as the root cause (kubelet's "failed
			// liveness probe, will be restarted" under the failed
			// probes) says why the lines before it ended the process.
			s.setHeadline(ev, t, seq, m.follow.Priority, m.follow)
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

// otherLogger reports a line in another logger's format than the line that
// opened ev, both with a prefix: a supervisor reporting, in its own words,
// that the child which printed ev exited ("Failed to run the llama-box
// server: exit status 1" under llama-box's own error lines). Its report is
// a consequence event of its own, linked to ev.
func (s *State) otherLogger(ev *event, p *Prefix) bool {
	return ev.Shape != "" && p.Tagged && prefixShape(p) != ev.Shape
}

// isExitReport reports a line in which something that ran a process says
// how it ended: docker compose's "web-1 exited with code 139", an
// entrypoint script's "[entrypoint] llamafile exited with status 1". It is
// the runtime's or the wrapper's report of the process's death, an event of
// its own linked to its cause, not a line of the process's own dump.
func isExitReport(t string) bool {
	_, ok := exitReportName(t)
	return ok
}

// exitReportName is the name of the process an exit report is about (the
// one word right before the phrase; the status ends the line), and whether
// t is one (isExitReport).
func exitReportName(t string) (string, bool) {
	for _, phrase := range [...]string{" exited with code ", " exited with status "} {
		i := strings.Index(t, phrase)
		if i <= 0 {
			continue
		}
		rest := t[i+len(phrase):]
		if rest == "" || !allDigits(rest) {
			continue
		}
		name := t[:i]
		if j := strings.LastIndexByte(name, ' '); j >= 0 {
			name = name[j+1:]
		}
		return name, name != "" && !strings.Contains(name, ":")
	}
	return "", false
}

// isSignalConsequence reports a line that says the process died by a signal
// or an exit report ("Aborted (core dumped)", "Segmentation fault").
func isSignalConsequence(m *lineMatch) bool {
	if m.best != nil && m.best.Launcher {
		return false // a launcher's report of the death (srun's): an event of its own, linked to its cause
	}
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
