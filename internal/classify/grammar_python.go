package classify

import (
	"regexp"
	"strings"
	"time"
)

// The Python traceback recogniser: "Traceback (most recent call last):",
// frames with their source and caret lines, the final exception line and
// its message, chained tracebacks ("During handling of the above exception",
// "The above exception was the direct cause"), multiprocessing's
// "Process X:" re-raises, logging's "--- Logging error ---" dumps, rich's
// boxed tracebacks and faulthandler's thread headers. It says where an
// event starts, what it consumes and which line heads it; the verdict stage
// decides whether it was fatal.

var (
	// Both also read Ray's re-raise of a remote exception,
	// "ray.exceptions.RayTaskError(OutOfMemoryError): ray::Actor.method() (...)".
	reStrictExc = mustDottedName(`^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Timeout|Failure|Fault|Iteration|Warning)(?:\b(?::.*)?|\([A-Za-z_][\w.]*\):.*)$`, ":(")
	reLooseExc  = mustDottedName(`^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:(?:\[[^\]]*\])?(?::(?:\s.*)?)?|\([A-Za-z_][\w.]*\):(?:\s.*)?)$`, "[:(")
	reProcess   = regexp.MustCompile(`^Process [\w.-]+:$`)
	// faulthandler's per-thread header after "Fatal Python error".
	// reAsyncioContext: a context line of asyncio's default exception
	// handler report.
	reAsyncioContext = regexp.MustCompile(`^(?:handle|future|task|protocol|transport|socket): <|^source_traceback: Object created at`)
	reThread         = regexp.MustCompile(`^(?:Current thread|Thread) 0x[0-9a-fA-F]+ \(most recent call first\):$`)
)

// startTraceback opens a Python traceback event at a "Traceback (most recent
// call last):" line. When the line just before it on the same source was an
// ERROR line (logger.exception), the event starts there.
func (s *State) startTraceback(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	pr := s.d.Prev
	intro := pr.N == s.d.N-1 && pr.Src == src && pr.Alarm == 0 && pr.Kind != KindConfig &&
		(pr.Level == "ERROR" || pr.Level == "CRITICAL" || pr.Level == "FATAL")
	silent := s.benign(p, src)
	var ev *event
	if intro && !silent {
		pat := pr.Time
		if pat.IsZero() {
			pat = at
		}
		ev = s.newEvent(fb, src, pr.Seq, pat, false)
		s.setHeadline(ev, pr.Body, pr.Seq, 1, nil)
		kind := KindError
		fb.revise(LineVerdict{Seq: pr.Seq, Kind: kind, Level: pr.Level, Rank: pr.Rank, Time: pr.Time, Alarm: ev.A.ID})
		ev.addRange(pr.Seq, pr.Level, pr.Rank, pr.Time, -1)
		ev.Logged = true
	} else {
		ev = s.newEvent(fb, src, seq, at, silent)
		// Silent only because a WARNING line came just before: that warning
		// may have logged it (exc_info), or the process may be dying of an
		// uncaught exception right after an unrelated warning. The first
		// frame tells (see uncaughtEntry).
		ev.WarnIntro = silent && s.d.Shutdown == 0 && p.Level != "WARNING" && p.Level != "DEBUG"
	}
	prio := 0
	if m.best != nil {
		prio = m.best.Priority
	}
	s.setHeadline(ev, t, seq, prio, m.best)
	if m.best != nil {
		ev.Net = netOther // the header line names the failure ("Scheduler hit an exception: Traceback")
	}
	ev.Thread = pr.Thread && pr.N == s.d.N-1 && pr.Src == src
	ev.AuxThread = ev.Thread && pr.AuxThread
	ev.St = stFrames
	return ev
}

// isPyThreadDeath reports threading.excepthook's intro line, "Exception in
// thread Thread-2 (worker):" (Java's form quotes the name and carries the
// exception on the same line).
func isPyThreadDeath(t string) bool {
	return strings.HasPrefix(t, "Exception in thread ") && strings.HasSuffix(t, ":") && !strings.HasPrefix(t, `Exception in thread "`)
}

// reAuxThread finds a reporting job in a thread's name or target
// ("Thread-2 (_report_usage_worker)", "usage-stats", "_send_metrics").
var reAuxThread = regexp.MustCompile(`(?i)usage|telemetry|analytics|metrics|stats|report`)

// isAuxThreadDeath reports threading's intro line for a thread whose name
// or target says it only reports usage, telemetry, analytics, metrics or
// stats: a side job the server does not need to serve.
func isAuxThreadDeath(t string) bool {
	return isPyThreadDeath(t) && reAuxThread.MatchString(t[len("Exception in thread "):])
}

// benign reports whether a traceback starting now is logged as a warning:
// its own level says so, the line before it on the same source was a
// warning, or the operator is shutting the server down.
func (s *State) benign(p *Prefix, src string) bool {
	if s.d.Shutdown != 0 {
		return true
	}
	// INFO is not enough: wrappers re-log a server's whole output at INFO.
	switch p.Level {
	case "WARNING", "DEBUG":
		return true
	}
	pr := s.d.Prev
	return pr.N == s.d.N-1 && pr.Src == src && pr.Alarm == 0 && (pr.Level == "WARNING" || pr.Benign)
}

// continuesBenign reports whether the line just read belongs to a report
// whose wording a benign signature called harmless: it matched one, or it
// goes on with the report of the line just before on the same source (an
// untagged continuation line of a multi-line record, or a further ERROR
// record right after it). A traceback that follows is that report's dump.
func (s *State) continuesBenign(p *Prefix, src string, m *lineMatch, alarm int) bool {
	if m.benign {
		return true
	}
	pr := &s.d.Prev // read only: a copy of the whole struct cost more than its reads
	if !pr.Benign || alarm != 0 || pr.N != s.d.N-1 || pr.Src != src {
		return false
	}
	return !p.Tagged || p.Level == "ERROR"
}

// startLoggingError opens the event of a "--- Logging error ---" dump that
// no failure came just before: a log call failed to format or write its
// record. logging.Handler.handleError prints the traceback, the call stack
// and the record, and the process goes on: the dump is silent.
func (s *State) startLoggingError(fb *feedBuf, src string, seq int64, at time.Time, t string) *event {
	ev := s.newEvent(fb, src, seq, at, true)
	s.setHeadline(ev, t, seq, 0, nil)
	ev.St, ev.LogErr = stChain, true
	return ev
}

// isFrameLine reports a traceback frame line (better-exceptions marks the
// failing frame with "> ").
func isFrameLine(t string) bool {
	t = strings.TrimPrefix(t, "> ")
	return strings.HasPrefix(t, `File "`) && strings.Contains(t, `", line `)
}

func isCaretLine(t string) bool {
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; c != '^' && c != '~' && c != ' ' {
			return false
		}
	}
	return true
}

// signalHandlerFrame reports a frame line whose function is a signal
// handler by its name (signal_handler, _handle_sigterm, on_sigint, …): the
// function Python runs when a signal arrives, whatever it raises.
func signalHandlerFrame(frame string) bool {
	i := strings.LastIndex(frame, ", in ")
	if i < 0 {
		return false
	}
	fn := frame[i+len(", in "):]
	// "sigterm" and "sigint" hold no "signal"; indexFoldedASCII folds as
	// strings.ToLower does for ASCII, without the copy.
	return indexFoldedASCII(fn, "signal") >= 0 || indexFoldedASCII(fn, "sigterm") >= 0 || indexFoldedASCII(fn, "sigint") >= 0
}

// requestDispatchFrames are the functions through which a web server
// runs a request's handler, each with the library whose file it is in
// (uvicorn's HTTP protocols, hypercorn, Flask and werkzeug, aiohttp,
// gunicorn's workers, http.server): a traceback through one was raised by
// a request, which the server catches and answers with an error.
var requestDispatchFrames = [...]struct{ fn, lib string }{
	{"run_asgi", "/uvicorn/protocols/http/"}, {"run_asgi", "/hypercorn/"},
	{"full_dispatch_request", "/flask/"}, {"wsgi_app", "/flask/"}, {"run_wsgi", "/werkzeug/"},
	{"_handle_request", "/aiohttp/"}, {"handle_request", "/gunicorn/workers/"},
	{"handle_one_request", "/http/server.py"},
}

// requestDispatchFrame reports a frame line of one of requestDispatchFrames.
func requestDispatchFrame(frame string) bool {
	i := strings.LastIndex(frame, ", in ")
	if i < 0 {
		return false
	}
	fn := frame[i+len(", in "):]
	for _, d := range requestDispatchFrames {
		if fn == d.fn && strings.Contains(frame[:i], d.lib) {
			return true
		}
	}
	return false
}

// plumbingSource reports a frame's source line that enters the program
// (sys.exit(main()), a CLI's dispatch), runs an event loop (asyncio.run,
// uvloop.run, run_until_complete, run_forever) or waits (poll, wait,
// sleep, select, join, acquire, recv, accept).
func plumbingSource(src string) bool {
	src = strings.TrimPrefix(strings.TrimPrefix(src, "return "), "await ")
	switch {
	case strings.HasPrefix(src, "sys.exit(main(") || strings.HasPrefix(src, "sys.exit(cli(") ||
		strings.HasPrefix(src, "main(") || strings.HasPrefix(src, "cli(") || strings.HasPrefix(src, "cli.main("):
		return true
	case strings.HasPrefix(src, "args.func(args") || strings.IndexByte(src, '(') >= 0 && entryCallSet.in(src):
		return true
	}
	return waitingWord(calledName(src))
}

// calledName is the name of the function a source line calls, without
// its receiver or module ("poll" of "poller.poll(5000)"); the whole line
// up to its dots when it has no call.
func calledName(src string) string {
	call := src
	if i := strings.IndexByte(call, '('); i > 0 {
		call = call[:i]
	}
	if i := strings.LastIndexByte(call, '.'); i >= 0 {
		call = call[i+1:]
	}
	return call
}

// blockingCall reports a frame's source line that calls a function that
// blocks ("events = poller.poll(timeout)", "self._cond.wait(timeout)"):
// where a signal finds a process, as it does one that waits for its
// workers to start.
func blockingCall(src string) bool {
	src = strings.TrimPrefix(strings.TrimPrefix(src, "return "), "await ")
	if _, rhs, ok := strings.Cut(src, " = "); ok {
		src = rhs
	}
	if strings.IndexByte(src, '(') <= 0 {
		return false
	}
	return waitingWord(calledName(src))
}

// entryCallSet are calls that dispatch a CLI's command or run an event loop.
var entryCallSet = newWordSet([]string{"dispatch_function(", "asyncio.run(", "uvloop.run(", "runner.run(",
	"run_until_complete(", "run_forever(", "_run_once("})

// waitingWords are the words of a function name that says it blocks.
var waitingWords = [...]string{"poll", "wait", "sleep", "select", "join", "acquire", "recv", "accept", "serve_forever", "run_forever", "_run_once"}

// waitingWord reports a function name that says it blocks (ignoring ASCII
// case). Frame after frame names are short: one pass over fn's bytes tries
// the words that start with each, instead of a search per word.
func waitingWord(fn string) bool {
	for i := 0; i < len(fn); i++ {
		c := lower(fn[i])
		if strings.IndexByte("pwsjar_", c) < 0 {
			continue
		}
		for _, w := range waitingWords {
			if w[0] == c && hasFoldedPrefix(fn[i:], w) {
				return true
			}
		}
	}
	return false
}

// isRichLine reports a line of a traceback drawn by the rich library.
func isRichLine(t string) bool {
	for _, p := range []string{"│", "╭", "╰", "❱"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// headerSig lets a signature on a traceback header line ("Scheduler hit an
// exception: Traceback ...") speak for the event.
func (s *State) headerSig(ev *event, t string, seq int64, m *lineMatch) {
	if m.best != nil {
		s.setHeadline(ev, t, seq, m.best.Priority, m.best)
	}
}

// exceptionLine handles the final exception line of a traceback.
func (s *State) exceptionLine(fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) {
	prio := 2
	var g *Signature
	if m.best != nil {
		g = m.best
		if g.Priority > prio {
			prio = g.Priority
		}
	}
	s.setHeadline(ev, t, seq, prio, g)
	if m.conseq {
		s.reportsDeath(ev)
	}
	// The exception line just read names a network failure, wherever it
	// was raised (a client library's wrapper of it too).
	ev.NetExc = m.transient && prio < rootCausePriority
	if ev.Net != netOther {
		// A network failure raised inside network client code is a call
		// its caller may retry; any other exception is not.
		ev.Net = netOther
		switch {
		case m.transient && ev.NetFrame && prio < rootCausePriority:
			ev.Net = netOnly
		case ev.DynImport && isImportFailure(t) && prio < rootCausePriority:
			ev.Net = netImport
		}
	}
	ev.NetFrame = false
	ev.St, ev.Level, ev.Cont, ev.Blanks, ev.Sub = stAfterExc, p.Level, 0, 0, 0
	if wrapsRemoteCause(t) {
		ev.Sub |= remoteFrames
	}
	ev.Await = s.d.N + awaitWindow
	if m.shutdown {
		s.operatorStopped(fb, ev, seq)
		return
	}
	s.tryMerge(fb, ev)
}

// isDynamicImport reports a frame's source line that imports a module by
// name at run time: importlib.import_module, __import__, or the loader
// recipe of importlib's documentation (spec.loader.exec_module(module)).
func isDynamicImport(t string) bool {
	return strings.Contains(t, "import_module(") || strings.Contains(t, "exec_module(") || strings.Contains(t, "__import__(")
}

// isImportFailure reports an exception line saying a module could not be
// imported.
func isImportFailure(t string) bool {
	return strings.HasPrefix(t, "ModuleNotFoundError: ") || strings.HasPrefix(t, "ImportError: ")
}

// opensPythonDump moves ev into a Python traceback or faulthandler dump
// when t starts one under the line that opened ev (its header, a first
// frame, a thread header), and reports whether it did.
func (s *State) opensPythonDump(ev *event, t string, seq int64, m *lineMatch) bool {
	switch {
	case strings.HasPrefix(t, "+ Exception Group Traceback"):
		// uvicorn's "Exception in ASGI application" over a TaskGroup's
		// ExceptionGroup: the group grammar finds its leaf exception.
		ev.St, ev.Sub, ev.PrevFile = stPyGroup, 0, false
	case m.builtin[litTraceback]:
		ev.St, ev.PrevFile = stFrames, false
		s.headerSig(ev, t, seq, m)
	case isFrameLine(t):
		ev.St, ev.PrevFile = stFrames, true
	case reThread.MatchString(t):
		ev.St, ev.PrevFile = stFrames, false
	default:
		return false
	}
	return true
}

// consumeSingle: after a single signature line, a traceback, a logging-error
// dump, a thread dump or a C++ abort dump may follow.
func (s *State) consumeSingle(fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	switch {
	case ev.A.Kind == AlarmSignal && ev.Sub != signalBacktrace && m.builtin[litTraceback]:
		// A report that a process died (a launcher's "exits with return
		// code = -11") introduces no traceback: one that follows is
		// another process's, an event of its own.
		return ended
	case s.opensPythonDump(ev, t, seq, m):
		return consumed
	case m.builtin[litLoggingError]:
		ev.St, ev.LogErr = stChain, true
		return consumed
	case isCppLine(t):
		ev.St = stCpp
		return s.consume(fb, ev, p, seq, t, m)
	case t == "":
		ev.Blanks++
		if ev.Blanks > 1 {
			return ended
		}
		return notYet
	case ev.Blanks == 1 && !indented(p.Body) && isJVMExceptionLine(t):
		// Spring Boot's logback pattern prints a record's throwable after
		// a blank line (%wEx): the exception is the record's.
		ev.St, ev.Sub, ev.Blanks = stJava, 0, 0
		s.offer(ev, t, seq, 2, m)
		return consumed
	case !p.Tagged && reAsyncioContext.MatchString(t):
		// asyncio's exception handler prints its context ("handle: <...>",
		// "future: <Task ...>") between its message and the traceback.
		return consumed
	case ev.A.Kind == AlarmSignal && ev.Blanks == 0 && isBacktraceHeader(t):
		// A runtime's own signal handler prints its stack under its
		// banner (TVM's "!!!!!!! TVM encountered a Segfault !!!!!!!",
		// then "Stack trace:" and numbered frames, as Rust's are).
		ev.Sub = signalBacktrace
		return consumed
	case ev.Sub == signalBacktrace && ev.Blanks == 0 && isRustFrame(p.Body):
		return consumed
	case !p.Tagged && consumeGGML(ev, p.Body, t):
		// ggml's abort dump under its error line (grammar_ggml.go).
		return consumed
	case s.errorDetails(ev, p, t):
		// An ERROR line's details on lines of their own, as a pending
		// ERROR run takes them (NIM's "SYSTEM INFO" under its error).
		ev.Cont++
		return consumed
	case s.continuesNativeRun(ev, p, m):
		// A native program reports one failure as it unwinds: each
		// caller prints its own "failed to ..." line under the first.
		// The first line is the root cause: a later one heads the
		// event only with a higher priority.
		if m.best != nil && m.best.Priority > ev.Prio {
			s.setHeadline(ev, t, seq, m.best.Priority, m.best)
		}
		return consumed
	}
	return ended
}

// consumeChain: after "During handling ..." or "Process X:", a traceback
// header follows.
func (s *State) consumeChain(fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	switch {
	case t == "":
		return consumed
	case m.builtin[litTraceback]:
		ev.St, ev.PrevFile = stFrames, false
		return consumed
	case isFrameLine(t):
		ev.St, ev.PrevFile = stFrames, true
		return consumed
	case t == "Call stack:":
		ev.St = stFrames
		return consumed
	}
	return ended
}

// consumeFrames reads the frames of a Python traceback up to its final
// exception line.
func (s *State) consumeFrames(fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	body := p.Body
	switch {
	case m.builtin[litTraceback]:
		ev.PrevFile = false
		return consumed
	case t == "":
		return consumed
	case isFrameLine(t):
		ev.PrevFile = true
		ev.NetFrame = m.transient
		ev.Frames++
		ev.Worked = ev.Worked || ev.CurWork
		ev.CurWork = false // its source line, if any, says what it does
		if signalHandlerFrame(t) {
			ev.Interrupt = true
		}
		if strings.Contains(t, "importlib") {
			ev.DynImport = true
		}
		if requestDispatchFrame(t) {
			s.servedRequestFailed(ev)
		}
		if ev.Frames == 1 && ev.WarnIntro && uncaughtEntry(t) {
			s.promote(fb, ev)
		}
		return consumed
	case isCaretLine(t) || strings.HasPrefix(t, "[Previous line repeated") || t == "Call stack:" || t == "..." || reThread.MatchString(t):
		return consumed
	case isRichLine(t):
		return consumed // rich's boxed traceback (TGI shards)
	case ev.LogErr && (strings.HasPrefix(t, "Message: ") || strings.HasPrefix(t, "Arguments: ")):
		ev.St, ev.Sub = stAfterExc, 0
		return consumed
	}
	indented := body != "" && (body[0] == ' ' || body[0] == '\t')
	if ev.PrevFile {
		ev.PrevFile = false
		if indented || !reStrictExc.MatchString(truncate(t, maxRegexInput)) {
			if strings.HasPrefix(t, "raise KeyboardInterrupt") {
				ev.Interrupt = true
			}
			ev.CurWork = !plumbingSource(t)
			ev.Waits = ev.Waits || blockingCall(t)
			if isDynamicImport(t) {
				ev.DynImport = true
			}
			return consumed // the source line of the frame above
		}
	} else if indented {
		return consumed
	}
	if reLooseExc.MatchString(truncate(t, maxRegexInput)) {
		s.exceptionLine(fb, ev, p, seq, t, m)
		return consumed
	}
	s.headerOnly(fb, ev, p, m)
	return ended
}

// headerOnly withdraws a traceback that is its header line alone when the
// same source goes on with ordinary work (a line at INFO or DEBUG, a phase,
// a progress bar, readiness): Python never prints the header without frames
// under it, so the line was a logger's stray "Traceback (most recent call
// last):" (a formatter that logs an exception's lines one record each and
// lost the rest), no failure. A header the stream ends after, or one that
// an error line follows, stays: a paste cut there, or another failure.
func (s *State) headerOnly(fb *feedBuf, ev *event, p *Prefix, m *lineMatch) {
	if ev.Frames != 0 || ev.A.FirstSeq != ev.A.LastSeq || ev.A.FirstSeq != ev.A.HeadlineSeq || m.best != nil || m.follow != nil ||
		ev.Signalled || !ev.live() {
		return
	}
	if p.Level == "INFO" || p.Level == "DEBUG" || m.ready != nil || isStartupProgress(m) {
		s.withdraw(fb, ev)
	}
}

// consumeAfterExc: after a final exception line, its message may go on, a
// chained traceback or a re-raise may follow.
func (s *State) consumeAfterExc(fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	switch {
	case t == "":
		ev.Blanks++
		if ev.Blanks > 2 {
			return ended
		}
		return notYet
	case m.builtin[litChained] || m.builtin[litCause]:
		ev.St, ev.Blanks = stChain, 0
		return consumed
	case m.builtin[litLoggingError]:
		ev.St, ev.LogErr, ev.Blanks = stChain, true, 0
		return consumed
	case reProcess.MatchString(t):
		ev.St, ev.Blanks = stChain, 0
		return consumed
	case ev.LogErr && t == "Call stack:":
		ev.St = stFrames
		return consumed
	case ev.LogErr && (strings.HasPrefix(t, "Message: ") || strings.HasPrefix(t, "Arguments: ")):
		return consumed
	case ev.Cont > 0 && ev.Blanks == 0 && indented(p.Body) && isSignalConsequence(m) && !isFrameLine(t):
		// A field of a multi-line exception message that reports a
		// process's exit (torch elastic's ChildFailedError table:
		// "  exitcode  : 1 (pid: 7752)", "  traceback : Signal 9 (SIGKILL)
		// received by PID 7752") is the message, not a new event.
		s.consequence(ev, m)
		ev.Cont++
		return consumed
	case ev.Blanks == 0 && ev.A.Kind == AlarmNCCL && ev.Cont < contBudget(ev) && isNCCLResultLine(t):
		// torch's NCCL error message goes on with NCCL's description of
		// its result code ("ncclSystemError: System call ... failed") and
		// "Last error:": the same message, not a second NCCL failure.
		ev.Cont++
		return consumed
	case ev.Sub&remoteFrames != 0 && ev.Blanks == 0 && ev.Cont == 0 && isFrameLine(t):
		// Ray's re-raise goes on with the remote process's frames and
		// its final exception line: one traceback.
		ev.St, ev.PrevFile, ev.Sub = stFrames, true, 0
		ev.Frames++
		return consumed
	case m.builtin[litTraceback] || isFrameLine(t) || m.follow != nil || m.best != nil:
		return ended
	case m.ending && p.Tagged:
		// A record of its own after the exception: the process says it is
		// ending ("MQLLMEngine is already dead, terminating server
		// process" at the traceback's level), the front end's report.
		return ended
	case m.ready != nil || len(m.phases) > 0 || m.config != nil || isProgressLine(m) || m.serving:
		// Another process's progress bar or startup line, or a request
		// answered ("Output generated in 4.88 seconds"), that lands right
		// after the exception: not its message.
		return ended
	case ev.Blanks == 0 && (strings.HasPrefix(t, "frame #") || strings.HasPrefix(t, "Exception raised from")):
		return consumed // C++ frames of a torch error message
	case ev.Blanks == 0 && ev.Cont < contBudget(ev) && (!p.Tagged || (p.Level == ev.Level && (p.Level == "ERROR" || p.Level == "CRITICAL"))):
		if isBorderLine(t) {
			// A message framed by "====" borders (torch elastic's failure
			// report) runs to its closing border: one entry per failed rank.
			ev.Sub ^= msgFramed
		}
		ev.Cont++
		return consumed
	}
	return ended
}

// msgFramed is the stAfterExc sub-state bit set between the borders of a
// framed exception message.
const msgFramed = 2

// remoteFrames is the stAfterExc sub-state bit set after an exception line
// that wraps a remote cause ("RayTaskError(OutOfMemoryError): ray::..."):
// the remote traceback's frames follow it.
const remoteFrames = 4

// signalBacktrace: a single-line signal event reads the stack trace its
// handler printed (consumeSingle); not ggmlDump's value.
const signalBacktrace = 2

// isBacktraceHeader reports the line that starts a native stack trace.
func isBacktraceHeader(t string) bool {
	return t == "Stack trace:" || t == "stack backtrace:" || t == "Stack backtrace:"
}

// wrapsRemoteCause reports an exception line of the form
// "pkg.NameError(CauseName): ...", Ray's re-raise of a remote exception.
func wrapsRemoteCause(t string) bool {
	i := 0
	for i < len(t) && (isWordByte(t[i]) || t[i] == '.') {
		i++
	}
	if i == 0 || i >= len(t) || t[i] != '(' {
		return false
	}
	j := strings.IndexByte(t[i:], ')')
	return j > 1 && i+j+1 < len(t) && t[i+j+1] == ':' && isDottedName(t[i+1:i+j])
}

func isDottedName(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) && s[i] != '.' {
			return false
		}
	}
	return s != ""
}

// contBudget is how many message lines may follow a final exception line:
// more inside a framed message, still bounded.
func contBudget(ev *event) int {
	if ev.Sub&msgFramed != 0 {
		return 4 * maxContLines
	}
	return maxContLines
}

// isBorderLine reports a line of 20 or more '=' only.
func isBorderLine(t string) bool {
	return len(t) >= 20 && strings.Trim(t, "=") == ""
}

// isExceptionLine reports a final exception line ("ValueError: bad x",
// "torch.OutOfMemoryError: CUDA out of memory").
func isExceptionLine(t string) bool {
	return reStrictExc.MatchString(truncate(t, maxRegexInput))
}

// startEmbedded opens the event of a structured record that carried a whole
// traceback in its message: one line, complete, headed by itself (its body
// ends with the final exception line).
func (s *State) startEmbedded(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	ev := s.newEvent(fb, src, seq, at, s.benign(p, src))
	prio := 2
	if m.best != nil && m.best.Priority > prio {
		prio = m.best.Priority
	}
	s.setHeadline(ev, t, seq, prio, m.best)
	ev.St, ev.Level = stClosed, p.Level
	ev.Await = s.d.N + awaitWindow
	if p.Request && s.d.Ready != nil && !isRootCauseKind(ev.A.Kind) {
		// A serving server's report of one request's exception (the
		// record names the request): that request failed, as an
		// "Exception in ASGI application" does.
		s.setFatal(ev, false)
		ev.Fixed = true
	}
	return ev
}

// isProgressLine reports a progress bar (tqdm's "%|", "it/s]", a carriage
// return redraw).
func isProgressLine(m *lineMatch) bool {
	return m.builtin[litCR] || m.builtin[litItS] || m.builtin[litSIt] || m.builtin[litBar]
}

// isNCCLResultLine reports NCCL's description of a result code as torch
// appends it to an NCCL error message: "ncclSystemError: ...",
// "ncclUnhandledCudaError: ...", "ncclRemoteError: ...".
func isNCCLResultLine(t string) bool {
	name, _, ok := strings.Cut(t, ": ")
	if !ok || !strings.HasPrefix(name, "nccl") || !strings.HasSuffix(name, "Error") || len(name) < 10 {
		return false
	}
	for i := 4; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// errorDetails reports an unprefixed line right after a signature's event
// that opened at an error level and goes on with its details: an indented
// line, a list item or a heading in capitals (isDetailLine).
func (s *State) errorDetails(ev *event, p *Prefix, t string) bool {
	pr := s.d.Prev
	return !p.Tagged && ev.Blanks == 0 && ev.Cont < maxRunLines && pr.N == s.d.N-1 && pr.Alarm == ev.A.ID && ev.A.ID != 0 &&
		len(ev.Ranges) > 0 && isErrorLevel(ev.Ranges[0].Level) && (indented(p.Body) || isDetailLine(t))
}
