package classify

import (
	"strings"
	"time"
)

// Elixir's exceptions, as the BEAM prints an uncaught one and as Logger and
// Mix report an application that could not start:
//
//	** (Mix) Could not start application infer: Infer.Application.start(:normal, []) returned an error: ...
//	    ** (EXIT) an exception was raised:
//	        ** (RuntimeError) could not load weights            <- headline
//	            (infer 0.1.0) lib/infer/serving.ex:21: Infer.Serving.init/1
//	            (stdlib 6.1.2) gen_server.erl:2229: :gen_server.init_it/2
//
// Each "** (Name) message" line is an exception; (EXIT) and (Mix) only say
// that the one under them ended the process or the application, so the
// innermost other one is the headline. Logger's "Application X exited: ..."
// report before it and Mix's report after it of the same failure are one
// event.

// openElixir opens an event at a "** (Name) ..." exception line.
func (s *State) openElixir(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	if !isElixirException(t) || quiet(p.Level) && p.Level != "INFO" {
		return nil
	}
	prio := 2
	if isElixirWrapper(t) {
		prio = 1
	}
	ev := s.openEvent(fb, p, seq, at, src, t, stElixir, AlarmTraceback, prio, m)
	if prio == 2 {
		ev.Sub = 1
	}
	return ev
}

func (s *State) consumeElixir(ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	switch {
	case isElixirException(t):
		if ev.Sub == 0 && !isElixirWrapper(t) {
			// The first exception under (EXIT)/(Mix): the root cause. A
			// later report of the same failure repeats it.
			ev.Sub = 1
			s.offer(ev, t, seq, 2, m)
		}
		return consumed
	case isElixirFrame(t):
		return consumed
	}
	return ended
}

// isElixirException reports "** (Name) message".
func isElixirException(t string) bool {
	if !strings.HasPrefix(t, "** (") || len(t) < 7 || t[4] < 'A' || t[4] > 'Z' {
		return false
	}
	end := strings.IndexByte(t, ')')
	return end > 5 && strings.IndexByte(t[4:end], ' ') < 0
}

// isElixirWrapper reports the exception lines that only frame another:
// "** (EXIT) an exception was raised:", "** (Mix) Could not start ...".
func isElixirWrapper(t string) bool {
	return strings.HasPrefix(t, "** (EXIT)") || strings.HasPrefix(t, "** (Mix)")
}

// isElixirFrame reports a stack entry: "(app 0.1.0) lib/x/y.ex:21: X.Y.f/1"
// or "(stdlib 6.1.2) gen_server.erl:2229: :gen_server.init_it/2".
func isElixirFrame(t string) bool {
	if len(t) < 10 || t[0] != '(' {
		return false
	}
	end := strings.IndexByte(t, ')')
	if end < 4 || end+2 >= len(t) || t[end+1] != ' ' {
		return false
	}
	rest := t[end+2:]
	colon := strings.Index(rest, ": ")
	return colon > 0 && (strings.Contains(rest[:colon], ".ex:") || strings.Contains(rest[:colon], ".erl:"))
}
