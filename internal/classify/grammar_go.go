package classify

import (
	"strings"
	"time"
)

// Go runtime dumps, as the runtime prints them to stderr (runtime/panic.go
// printpanics, runtime/traceback.go, runtime/signal_unix.go):
//
//	panic: runtime error: index out of range [3] with length 2   <- headline
//	        panic: a second panic raised while unwinding         (indented)
//	[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x0]
//	                                                             (blank)
//	goroutine 1 [running]:
//	main.load(...)
//	        /src/main.go:12 +0x1d
//	created by main.start in goroutine 1
//	exit status 2
//
// and "fatal error: concurrent map writes" (runtime.throw) with an optional
// "runtime stack:" section, and the signal dump of a crash outside Go code:
//
//	SIGABRT: abort                                                <- headline
//	PC=0x7f0000000000 m=3 sigcode=18446744073709551610
//	signal arrived during cgo execution
//	rax    0x0                                                    (registers)
//
// The headline is the first panic/fatal error line: the runtime prints the
// panics oldest first, so the first is the root cause and a later indented
// "panic:" was raised while handling it.

// Sub-states of a Go dump.
const (
	goHeader    = iota // after the headline: a multi-line panic message may follow
	goStack            // inside the goroutine section
	goExited           // after "exit status N": only blank lines may follow
	goRecovered        // gin's recovery dump: the panic value, then "file.go:N (0xPC)" frames
)

// openGinRecovery opens the event of gin's Recovery middleware reporting a
// handler's panic it recovered from (gin/recovery.go): "[Recovery] <time>
// panic recovered:", the panic value, its stack as "file.go:N (0xPC)" lines
// each over a tab-indented "func: source" line. The request is answered
// 500 and the server goes on (gin.recovery, a survived signature).
func (s *State) openGinRecovery(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	if m.best == nil || !strings.HasSuffix(t, "panic recovered:") || !strings.Contains(t, "[Recovery] ") {
		return nil
	}
	ev := s.openEvent(fb, p, seq, at, src, t, stGo, AlarmTraceback, 2, m)
	ev.Sub = goRecovered
	return ev
}

// consumeGinRecovery reads gin's recovery dump after its first line.
func (s *State) consumeGinRecovery(ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	switch {
	case t == "":
		return blank(ev, 0) // the colour reset that ends it
	case indented(p.Body) || isGinFrame(t):
		return consumed
	case ev.Cont == 0 && !p.Tagged:
		// The panic value: what failed ("runtime error: invalid memory
		// address or nil pointer dereference"), the line to quote. Its
		// own signature (a nil dereference) says what it is, not that
		// the process died: gin recovered.
		ev.Cont++
		s.offer(ev, t, seq, 3, nil)
		return consumed
	}
	return ended
}

// isGinFrame reports "/src/handler.go:58 (0xc3a5d1)".
func isGinFrame(t string) bool {
	i := strings.LastIndex(t, " (0x")
	return i > 0 && strings.HasSuffix(t, ")") && strings.Contains(t[:i], ".go:")
}

// openGo opens a Go dump at its panic, fatal error or signal line. The
// runtime writes these to stderr with no level; a line logged at INFO or
// WARNING that starts with "panic: " is a logger quoting one.
func (s *State) openGo(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	if quiet(p.Level) || indented(p.Body) {
		return nil
	}
	switch {
	case isGoPanicHeader(t):
		return s.openEvent(fb, p, seq, at, src, t, stGo, AlarmTraceback, 2, m)
	case isGoSignalHeader(t):
		return s.openEvent(fb, p, seq, at, src, t, stGo, AlarmSignal, 2, m)
	}
	return nil
}

// isGoPanicHeader reports the first line of the runtime's dump for a panic
// or a fatal error: "panic: ..." or "fatal error: ..." with a message.
func isGoPanicHeader(t string) bool {
	return strings.HasPrefix(t, "panic: ") && !isBareValue(t[len("panic: "):]) ||
		strings.HasPrefix(t, "fatal error: ") && !isBareValue(t[len("fatal error: "):])
}

// isGoSignalHeader reports the first line of the runtime's dump for a
// signal it did not expect: "SIGSEGV: segmentation violation".
func isGoSignalHeader(t string) bool {
	if !strings.HasPrefix(t, "SIG") {
		return false
	}
	i := strings.Index(t, ": ")
	if i < 5 || i > 10 || i+2 >= len(t) {
		return false
	}
	for j := 3; j < i; j++ {
		if c := t[j]; (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	c := t[i+2]
	return c >= 'a' && c <= 'z'
}

func (s *State) consumeGo(ev *event, p *Prefix, t string) consumeResult {
	if t == "" {
		return blank(ev, 1)
	}
	if ev.Sub == goExited {
		return ended
	}
	switch {
	case strings.HasPrefix(t, "[signal ") || strings.HasPrefix(t, "PC=0x") || t == "signal arrived during cgo execution",
		strings.HasPrefix(t, "panic: ") || strings.HasPrefix(t, "fatal error: ") || strings.HasPrefix(t, "runtime: "),
		isGoRegister(t):
		return consumed
	case isGoroutineHeader(t) || t == "runtime stack:" || strings.HasPrefix(t, "[originating from goroutine "):
		ev.Sub = goStack
		return consumed
	case strings.HasPrefix(t, "exit status "):
		ev.Sub = goExited
		return consumed
	case indented(p.Body):
		return consumed // a frame's file:line, a nested panic
	case ev.Sub == goStack && isGoFrame(t):
		return consumed
	case ev.Sub == goHeader && !p.Tagged && ev.Cont < maxContLines && !isExitReport(t):
		// The rest of a multi-line panic value; a wrapper's report that
		// the process exited is its own event (isExitReport).
		ev.Cont++
		return consumed
	}
	return ended
}

// isGoroutineHeader reports "goroutine 7 [chan receive, 3 minutes]:" and
// the longer "goroutine 1 gp=0xc000002380 m=0 mp=0x6d4f60 [running]:".
func isGoroutineHeader(t string) bool {
	if !strings.HasPrefix(t, "goroutine ") || !strings.HasSuffix(t, "]:") {
		return false
	}
	rest := t[len("goroutine "):]
	return rest != "" && isDigit(rest[0]) && strings.IndexByte(rest, '[') > 0
}

// isGoFrame reports a function line of a goroutine's stack: "main.main()",
// "net/http.(*conn).serve(0xc000120000, {0x7d3a80, 0xc000100000})",
// "created by main.start in goroutine 1", "...additional frames elided...".
func isGoFrame(t string) bool {
	switch {
	case strings.HasPrefix(t, "created by "), t == "...additional frames elided...",
		strings.HasPrefix(t, "goroutine running on other thread"):
		return true
	}
	open := strings.IndexByte(t, '(')
	if open <= 0 || !strings.HasSuffix(t, ")") {
		return false
	}
	return strings.IndexByte(t[:open], ' ') < 0
}

// isGoRegister reports a register line of a signal dump: "rax    0x0",
// "rflags 0x10246", "r12    0xc000123456", "fault  0x0".
func isGoRegister(t string) bool {
	i := strings.IndexByte(t, ' ')
	if i < 1 || i > 7 {
		return false
	}
	for j := 0; j < i; j++ {
		if c := t[j]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	rest := strings.TrimLeft(t[i:], " ")
	return strings.HasPrefix(rest, "0x") && strings.IndexByte(rest, ' ') < 0
}
