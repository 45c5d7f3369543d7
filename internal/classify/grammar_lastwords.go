package classify

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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
		if g := m.follow; g != nil && g.Priority > ev.Prio {
			// Last words that rank as the root cause name why the
			// failure just reported ended the process (TGI's router:
			// "Error: Backend(Warmup(...))" under its warmup error).
			s.setHeadline(ev, t, seq, g.Priority, g)
		}
		return ev
	}
	ev := s.openEvent(fb, p, seq, at, src, t, stLast, AlarmOther, 2, m)
	ev.Await = s.d.N + awaitWindow // "Error: ..., retrying" was no last word
	ev.Words = m.best == nil
	if s.operatorCommandFailed() {
		// A command typed after the server was ready gave up: the
		// server's launch goes on (lms load refused, the server runs).
		ev.Beside = true
		s.setFatal(ev, false)
	}
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

// isLastWords reports a program's final report of why it stops, at the
// start of a line with no level: "Error: <message>" or "error: <message>"
// (cobra, clap, anyhow), "Fatal error: ", "Critical error: " or "Fatal: "
// (C and C++ programs' own exit paths), also behind the
// emoji or symbol a CLI prints before it ("🚨 Critical error: ...",
// "❌ Error: ..."). Go's lower-case "fatal error: " is its runtime's
// (grammar_go.go); git's lower-case "fatal: not a git repository" is a
// version probe's (setuptools-scm) in many healthy launches, never a
// server's last words.
func isLastWords(t string) bool {
	t = peelMarks(t)
	for _, head := range lastWordsHeads {
		if strings.HasPrefix(t, head) {
			msg := t[len(head):]
			return len(msg) >= 4 && msg[0] != ' ' && !isBareValue(msg)
		}
	}
	return commandError(t)
}

// commandError reports a command-line tool's own error line, its name
// before "error: " ("%s: error: %s", as PostgreSQL's initdb and pg_ctl
// print it: "initdb: error: directory "/var/lib/postgresql/data" exists
// but is not empty"): a lower-case name of letters, digits, '.', '_' and
// '-', no path, no line number. Slurm's tools name their tasks' failures,
// not their own.
func commandError(t string) bool {
	i := strings.IndexByte(t[:min(len(t), 32)], ':')
	if i < 2 || t[0] < 'a' || t[0] > 'z' || !strings.HasPrefix(t[i:], ": error: ") {
		return false
	}
	for j := 1; j < i; j++ {
		if c := t[j]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	switch t[:i] {
	case "srun", "slurmstepd", "salloc", "sbatch":
		return false // Slurm's reports of its tasks' deaths (signals.json), not its own
	}
	msg := t[i+len(": error: "):]
	return len(msg) >= 4 && msg[0] != ' ' && !isBareValue(msg)
}

// lastWordsHeads begin a program's last words (isLastWords).
var lastWordsHeads = [...]string{"Error: ", "error: ", "Fatal error: ", "Critical error: ", "Fatal: "}

// peelMarks drops the symbols a line begins with and the spaces after
// them: emoji and dingbats ("🚨 ", "❌ ", "✗ "), never letters, digits or
// ASCII punctuation (a list's "- Error: ..." is a list item).
func peelMarks(t string) string {
	rest := t
	for len(rest) > 0 && rest[0] >= utf8.RuneSelf {
		r, size := utf8.DecodeRuneInString(rest)
		if !unicode.IsSymbol(r) && !unicode.Is(unicode.Mn, r) && r != 0xFE0F && r != 0x200D {
			break
		}
		rest = rest[size:]
	}
	if len(rest) == len(t) {
		return t
	}
	trimmed := strings.TrimLeft(rest, " ")
	if len(trimmed) == len(rest) {
		return t // a symbol glued to a word is part of it
	}
	return trimmed
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
