package classify

import (
	"strings"
	"time"
)

// JVM exceptions, as Throwable.printStackTrace and the default uncaught
// exception handler print them:
//
//	Exception in thread "main" java.lang.IllegalStateException: engine not started
//		at com.example.Engine.start(Engine.java:42)
//		... 3 more
//	Caused by: java.io.FileNotFoundException: /models/x.bin (No such file or directory)  <- headline
//		at java.base/java.io.FileInputStream.open0(Native Method)
//		Suppressed: ...                                     (indented, with its own Caused by)
//
// A logged exception starts at its bare class line ("java.lang.X: msg"),
// which a signature opens; its first "at" frame hands the event to this
// grammar (see takeover).
//
// The headline is the last unindented "Caused by:" line: the JVM prints the
// wrapping exception first and its causes after it, so the last cause is
// the root cause; without causes it is the top line.

// openJava opens an event at "Exception in thread ...".
func (s *State) openJava(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	if !strings.HasPrefix(t, `Exception in thread "`) || quiet(p.Level) {
		return nil
	}
	return s.openEvent(fb, p, seq, at, src, t, stJava, AlarmTraceback, 2, m)
}

func (s *State) consumeJava(ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	body := p.Body
	switch {
	case t == "":
		return blank(ev, 0)
	case isJavaFrame(body):
		ev.Sub = 1
		return consumed
	case strings.HasPrefix(body, "Caused by: "):
		ev.Sub = 0
		s.offer(ev, t, seq, 2, m)
		return consumed
	case indented(body):
		return consumed // Suppressed: blocks and their causes
	case ev.Sub == 0 && !p.Tagged && ev.Cont < maxContLines:
		ev.Cont++ // a multi-line exception message before the first frame
		return consumed
	}
	return ended
}

// isJavaFrame reports "\tat pkg.Class.method(File.java:12)" and the
// elision lines "\t... 7 more" / "\t... 7 common frames omitted".
func isJavaFrame(body string) bool {
	if !indented(body) {
		return false
	}
	t := strings.TrimLeft(body, " \t")
	if strings.HasPrefix(t, "at ") {
		return strings.IndexByte(t, '(') > 3 && strings.HasSuffix(t, ")")
	}
	if strings.HasPrefix(t, "... ") {
		return strings.HasSuffix(t, " more") || strings.HasSuffix(t, " omitted")
	}
	return false
}
