package classify

import (
	"strings"
	"time"
)

// A process's last words: what a command-line program prints on its way out
// when main fails.
//
//	Error: listen tcp 127.0.0.1:11434: bind: address already in use   (Go's cobra; Rust's main returning Err)
//	Error: failed to load the model config                            (anyhow's Debug format) <- headline
//
//	Caused by:
//	    0: reading /models/x/config.json
//	    1: No such file or directory (os error 2)
//
//	Stack backtrace:
//	   0: anyhow::error::<impl anyhow::Error>::msg
//
// cobra may follow with its usage text ("Usage:", "Flags:", indented lines,
// `Use "x --help" for more information`), clap with "Usage: ..." and "For
// more information, try '--help'.", and CLIs such as Triton's main print a
// lower-case "error: creating server: ...".
//
// argparse prints its usage first and the error last:
//
//	usage: serve.py [-h] [--model MODEL]
//	                [--port PORT]
//	serve.py: error: the following arguments are required: --model   <- headline
//
// The headline is the "Error:" line itself: it is the program's own summary
// of why it stops (anyhow puts the outermost context there); the causes
// below it refine it. When an event ended just before on the same launch,
// the last words are that event's consequence and join it instead.

func (s *State) openLastWords(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	if p.Level != "" || indented(p.Body) {
		return nil
	}
	if strings.HasPrefix(t, "usage: ") {
		s.d.G.UsageN = s.d.N // argparse: the error line comes after the usage
		return nil
	}
	if !isLastWords(t) {
		return nil
	}
	if ev := s.recent(); ev != nil {
		s.consequence(ev, m)
		ev.Signalled = true
		return ev
	}
	ev := s.openEvent(fb, p, seq, at, src, t, stLast, AlarmOther, 2, m)
	ev.Await = s.d.N + awaitWindow // "Error: ..., retrying" was no last word
	ev.Words = m.best == nil
	return ev
}

// openUsageError opens an event at argparse's "prog: error: msg" line right
// after its usage lines, and follows the usage's indented continuation.
func (s *State) openUsageError(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	g := &s.d.G
	if g.UsageN == 0 || g.UsageN != s.d.N-1 || p.Level != "" {
		return nil
	}
	if indented(p.Body) {
		g.UsageN = s.d.N
		return nil
	}
	i := strings.Index(t, ": error: ")
	if i <= 0 || i > 60 || strings.ContainsAny(t[:i], ":\"'()[]") {
		return nil
	}
	ev := s.openEvent(fb, p, seq, at, src, t, stLast, AlarmOther, 2, m)
	ev.Sub = lastDone
	return ev
}

// isLastWords reports "Error: <message>" or "error: <message>" at the start
// of a line with no level: a program's final report of why it stops.
func isLastWords(t string) bool {
	var msg string
	switch {
	case strings.HasPrefix(t, "Error: "):
		msg = t[len("Error: "):]
	case strings.HasPrefix(t, "error: "):
		msg = t[len("error: "):]
	default:
		return false
	}
	return len(msg) >= 4 && msg[0] != ' ' && !isBareValue(msg)
}

// isBareValue reports a configuration value ("false", "none", "0.5"): a
// dump's "error: false" key is no last word.
func isBareValue(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "null", "none", "nil", "yes", "no", "off", "on", "raise", "ignore", "warn", "strict":
		return true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isDigit(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// Sub-states of last words.
const (
	lastMessage = iota // after the Error line: causes, backtrace or usage may follow
	lastDone           // argparse's error line ends the program
)

func (s *State) consumeLastWords(ev *event, p *Prefix, t string) consumeResult {
	if t == "" {
		return blank(ev, 1)
	}
	if ev.Sub == lastDone {
		return ended
	}
	switch {
	case t == "Caused by:" || t == "Stack backtrace:" || t == "stack backtrace:" || t == "Location:",
		strings.HasPrefix(t, "Usage:"), t == "Flags:" || t == "Global Flags:" || t == "Aliases:" ||
			t == "Available Commands:" || t == "Examples:",
		strings.HasPrefix(t, "Use \"") && strings.HasSuffix(t, "for more information about a command."),
		strings.HasPrefix(t, "For more information, try "),
		strings.HasPrefix(t, "Backtrace omitted.") || strings.HasPrefix(t, "Run with RUST_BACKTRACE"):
		ev.Blanks = 0
		return consumed
	case indented(p.Body) && !p.Tagged:
		ev.Blanks = 0
		return consumed
	}
	return ended
}
