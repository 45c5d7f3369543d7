package classify

import (
	"strings"
	"time"
)

// CPython's fatal errors (Python/pylifecycle.c fatal_error) and the thread
// dump faulthandler writes after them (Modules/faulthandler.c):
//
//	Fatal Python error: Segmentation fault                        <- headline
//	                                                              (blank)
//	Thread 0x00007f3b6e7236fc (most recent call first):
//	  File "/usr/lib/python3.11/threading.py", line 320 in wait
//	                                                              (blank)
//	Current thread 0x00007f3c750b0353 (most recent call first):
//	  Garbage-collecting
//	  File "/app/model.py", line 12 in forward
//	                                                              (blank)
//	Extension modules: numpy.core._multiarray_umath, torch._C (total: 2)
//
// plus "Python runtime state: initialized", "<no Python frame>" and, since
// 3.14, "Current thread's C stack trace (most recent call first):" with
// indented "Binary file" lines. The headline is the "Fatal Python error"
// line: it names the fault; the frames only say where each thread was.

func (s *State) openFault(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	if !strings.HasPrefix(t, "Fatal Python error: ") || quiet(p.Level) {
		return nil
	}
	return s.openEvent(fb, p, seq, at, src, t, stFault, AlarmSignal, 2, m)
}

func (s *State) consumeFault(ev *event, p *Prefix, t string) consumeResult {
	switch {
	case t == "":
		return blank(ev, 1)
	case indented(p.Body), reThread.MatchString(t),
		strings.HasPrefix(t, "Current thread"), strings.HasPrefix(t, "Thread 0x"),
		strings.HasPrefix(t, "Python runtime state: "), strings.HasPrefix(t, "Extension modules: "),
		t == "<no Python frame>", strings.HasPrefix(t, "Stack (most recent call first)"):
		ev.Blanks = 0
		return consumed
	}
	return ended
}
