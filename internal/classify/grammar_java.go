package classify

import (
	"regexp"
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
//
// .NET's runtime prints an unhandled exception the same way (ToString of
// the exception, the innermost last):
//
//	Unhandled exception. System.InvalidOperationException: model not loaded
//	 ---> System.IO.FileNotFoundException: Could not find file '/m.onnx'.   <- headline
//	   at System.IO.File.OpenRead(String path)
//	   --- End of inner exception stack trace ---
//	   at Infer.Program.Main(String[] args) in /src/Program.cs:line 14
//
// (.NET Framework and Mono: "Unhandled Exception: System.X: ..."; async
// frames are cut by "--- End of stack trace from previous location ---").

// openJava opens an event at "Exception in thread ..." or .NET's
// "Unhandled exception. ...".
func (s *State) openJava(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	if !strings.HasPrefix(t, `Exception in thread "`) && !isDotnetUnhandled(t) || quiet(p.Level) {
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
	case strings.HasPrefix(body, "Caused by: "), strings.HasPrefix(body, " ---> "):
		ev.Sub = 0
		s.offer(ev, t, seq, 2, m)
		return consumed
	case isDotnetStackMark(t):
		return consumed
	case indented(body):
		return consumed // Suppressed: blocks and their causes
	case ev.Sub == 0 && !p.Tagged && ev.Cont < maxContLines:
		ev.Cont++ // a multi-line exception message before the first frame
		return consumed
	}
	return ended
}

// reJVMException is a JVM exception's first line: a package-qualified
// class named ...Exception or ...Error, alone or before its message.
var reJVMException = regexp.MustCompile(`^(?:[a-z_][\w$]*\.){2,}[A-Z][\w$]*(?:Exception|Error)(?::|$)`)

// isJVMExceptionLine reports the first line of a JVM exception as
// printStackTrace writes it ("java.lang.IllegalStateException: msg").
func isJVMExceptionLine(t string) bool {
	return strings.IndexByte(t, '.') > 0 && reJVMException.MatchString(truncate(t, maxRegexInput))
}

// isDotnetUnhandled reports the .NET runtime's first line of an unhandled
// exception: "Unhandled exception. System.X: ..." (.NET Core and later) or
// "Unhandled Exception: System.X: ..." (.NET Framework, Mono).
func isDotnetUnhandled(t string) bool {
	for _, p := range [...]string{"Unhandled exception. ", "Unhandled Exception: "} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			return strings.Contains(rest, "Exception") || strings.Contains(rest, "Error")
		}
	}
	return false
}

// isDotnetStackMark reports .NET's lines between frame lists: "--- End of
// inner exception stack trace ---", "--- End of stack trace from previous
// location ---".
func isDotnetStackMark(t string) bool {
	return strings.HasPrefix(t, "--- End of ") && strings.HasSuffix(t, " ---")
}

// isJavaFrame reports "\tat pkg.Class.method(File.java:12)" and the
// elision lines "\t... 7 more" / "\t... 7 common frames omitted"; also
// .NET's "   at Ns.Class.Method(String path) in /src/File.cs:line 14".
func isJavaFrame(body string) bool {
	if !indented(body) || isJSFrame(body) { // a JS frame's "(file.js:12:9)" has a column
		return false
	}
	t := strings.TrimLeft(body, " \t")
	if strings.HasPrefix(t, "at ") {
		t = cutPackagingData(t)
		if i := strings.LastIndex(t, ") in "); i > 0 && strings.Contains(t[i:], ":line ") {
			t = t[:i+1]
		}
		return strings.IndexByte(t, '(') > 3 && strings.HasSuffix(t, ")")
	}
	if strings.HasPrefix(t, "... ") {
		return strings.HasSuffix(t, " more") || strings.HasSuffix(t, " omitted")
	}
	return false
}

// cutPackagingData drops the packaging data Logback and Log4j 2 append to
// a frame (" ~[spring-web-6.1.5.jar!/:6.1.5]", " [na:na]": the jar and
// its version, "~" when guessed), so the frame ends at its ")" again.
func cutPackagingData(t string) string {
	if !strings.HasSuffix(t, "]") {
		return t
	}
	i := strings.LastIndex(t, " [")
	if j := strings.LastIndex(t, " ~["); j > i {
		i = j
	}
	if i < 0 || strings.IndexByte(t[i:], ')') >= 0 {
		return t
	}
	return t[:i]
}
