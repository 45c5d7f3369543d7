package classify

import (
	"strings"
	"time"
)

// Rust panics, as std's default panic hook prints them
// (library/std/src/panicking.rs default_hook):
//
//	thread 'main' panicked at src/main.rs:10:5:                  (Rust >= 1.73)
//	called `Result::unwrap()` on an `Err` value: NotFound         <- headline
//	note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace
//
// newer toolchains add the thread id ("thread 'main' (4242) panicked at"),
// older ones print the message inside the first line, which is then the
// headline: "thread 'main' panicked at 'boom', src/main.rs:10:5". With
// RUST_BACKTRACE set, "stack backtrace:" and numbered frames with indented
// "at file:line" lines follow. A panic that aborts instead of unwinding
// ends in "fatal runtime error: ..." and the shell's "Aborted".
//
// The headline is the panic message: it names what went wrong, while the
// location line only names where. A second panic in the same dump (the main
// thread unwrapping a panicked worker's JoinHandle) is a consequence and
// keeps the first message.

// Sub-states of a Rust panic.
const (
	rustMessage   = iota // after "panicked at <location>:": the message lines
	rustTrailer          // after the message: notes, a backtrace, another panic
	rustBacktrace        // inside "stack backtrace:"
)

// openRust opens a Rust panic at its "thread '...' panicked at" line. The
// phrase is the panic hook's own; a tracing subscriber may re-log it at any
// level but DEBUG.
func (s *State) openRust(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	if p.Level == "DEBUG" {
		return nil
	}
	msgFollows, ok := rustPanicLine(t)
	if !ok {
		return nil
	}
	if msgFollows {
		ev := s.openEvent(fb, p, seq, at, src, t, stRust, AlarmTraceback, 1, m)
		ev.Sub = rustMessage
		return ev
	}
	ev := s.openEvent(fb, p, seq, at, src, t, stRust, AlarmTraceback, 2, m)
	ev.Sub = rustTrailer
	return ev
}

// openRustAbort opens an event at "fatal runtime error: stack overflow"
// when no panic came before it on the source.
func (s *State) openRustAbort(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	if quiet(p.Level) || !strings.HasPrefix(t, "fatal runtime error: ") {
		return nil
	}
	ev := s.openEvent(fb, p, seq, at, src, t, stRust, AlarmSignal, 2, m)
	ev.Sub = rustTrailer
	return ev
}

// rustPanicLine reports whether t is a panic hook's first line, and whether
// the message follows on the next lines (the format since Rust 1.73).
func rustPanicLine(t string) (msgFollows, ok bool) {
	if !strings.HasPrefix(t, "thread '") {
		return false, false
	}
	end := strings.Index(t[len("thread '"):], "' ")
	if end < 0 {
		return false, false
	}
	rest := t[len("thread '")+end+2:]
	if strings.HasPrefix(rest, "(") { // thread id
		close := strings.IndexByte(rest, ')')
		if close < 2 || !allDigits(rest[1:close]) {
			return false, false
		}
		rest = strings.TrimPrefix(rest[close+1:], " ")
	}
	switch {
	case strings.HasPrefix(rest, "panicked at '"):
		return false, true
	case strings.HasPrefix(rest, "panicked at ") && strings.HasSuffix(rest, ":"):
		return true, true
	case strings.HasPrefix(rest, "panicked at "), strings.HasPrefix(rest, "has overflowed its stack"),
		strings.HasPrefix(rest, "panicked while"):
		return false, true
	}
	return false, false
}

func (s *State) consumeRust(ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	if t == "" {
		if ev.Sub == rustMessage {
			ev.Sub = rustTrailer
		}
		return blank(ev, 1)
	}
	switch {
	case strings.HasPrefix(t, "note: "):
		ev.Sub = rustTrailer
		return consumed
	case t == "stack backtrace:" || t == "Stack backtrace:":
		ev.Sub = rustBacktrace
		return consumed
	case strings.HasPrefix(t, "fatal runtime error: "):
		ev.Sub = rustTrailer
		return consumed
	}
	if follows, ok := rustPanicLine(t); ok {
		// Another thread's panic in the same dump: a consequence
		// (PrevFile marks that the headline is taken).
		ev.Sub, ev.Cont, ev.PrevFile = rustTrailer, 0, true
		if follows {
			ev.Sub = rustMessage
		}
		return consumed
	}
	switch ev.Sub {
	case rustMessage:
		// The message's first line is anything; a multi-line one (an
		// assert_eq's "  left:"/" right:") goes on indented.
		if ev.Cont >= 4*maxContLines || (ev.Cont > 0 && !indented(p.Body)) {
			return ended
		}
		if ev.Cont == 0 && !ev.PrevFile {
			s.offer(ev, t, seq, 2, m)
		}
		ev.Cont++
		return consumed
	case rustBacktrace:
		if isRustFrame(p.Body) {
			return consumed
		}
	}
	return ended
}

// isRustFrame reports a backtrace line: "   3: core::result::unwrap_failed"
// or "             at ./src/main.rs:10:5" (or the old "  3:     0x55d0 - name").
func isRustFrame(body string) bool {
	if !indented(body) {
		return false
	}
	t := strings.TrimLeft(body, " \t")
	if strings.HasPrefix(t, "at ") {
		return true
	}
	i := strings.IndexByte(t, ':')
	return i > 0 && allDigits(t[:i])
}
