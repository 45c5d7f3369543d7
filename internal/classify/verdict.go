package classify

import (
	"regexp"
	"strings"
	"time"
)

// The verdict stage (stage 4 of design.md's classifier stages) decides from
// the evidence that follows an event whether it brought the server down.
// The recognisers never decide that: a traceback is a traceback.
//
//   - Proof that the server keeps serving (successful requests, throughput
//     stats) after an error makes the error non-fatal (survived); so does the
//     server becoming ready after it.
//   - A signal, a process death or a consequence reported by another process
//     (the engine is dead, a child exited) makes it fatal for good (doomed).
//   - While the server was ready before an error and neither proof came yet,
//     the error is not settled: the status waits (settle.go) until evidence
//     comes, the event is retired, or the caller settles the stream.

// servedToSurvive is how many answered requests prove an error survived.
const servedToSurvive = 2

// awaitsEvidence reports a fatal-looking event after readiness whose fate the
// lines that follow will tell.
func (s *State) awaitsEvidence(ev *event) bool {
	return ev.live() && ev.A.Fatal && !ev.Signalled && s.d.Ready != nil && ev.A.FirstSeq > s.d.Ready.Seq
}

// survived counts served requests against the fatal alarms raised while
// serving: an error after readiness that the server answers two requests
// after was one request's, not the server's death. An event whose process
// died (a signal, "is dead") is downgraded only by requests its own origin
// serves after it, and then the dead process was a child
// (childDeathOutlived).
func (s *State) survived(fb *feedBuf, src string) {
	if s.d.Ready == nil {
		return
	}
	for _, ev := range s.d.Events {
		if s.childDeathOutlived(ev, src) || s.replicaDeathOutlived(ev, src) {
			s.setFatal(ev, false)
			fb.touch(ev)
			continue
		}
		if !s.awaitsEvidence(ev) || ev.St == stFrames {
			continue
		}
		ev.Alive++
		if ev.Alive >= servedToSurvive {
			if ev.Words && ev.A.Cause == 0 {
				// "error: ..." that the server served on after was no
				// last word: one request's failure it handled and
				// answered, as a client's rejected request is.
				s.withdraw(fb, ev)
				continue
			}
			s.setFatal(ev, false)
			fb.touch(ev)
		}
	}
}

// wordsNotLast withdraws a program's one-line "last words" ("Error: ...",
// "error: ...") printed before readiness when the line itself says the
// program carries on (carryOnWords: "error: cannot read optional config,
// using defaults") and the same source then loads or starts the server
// (the line after: its match m, text t). Last words that do not say so
// stay: a program restarted by its supervisor loads again after the same
// words, and a chain ("Caused by:") is an error returned from main.
func (s *State) wordsNotLast(fb *feedBuf, seq int64, src string, m *lineMatch, t string) {
	if !(m.ready != nil || m.announce.ok || isModelWork(t, m) || loadingSet.in(head(t)) && !stopSet.in(head(t))) {
		return
	}
	for _, ev := range s.d.Events {
		if ev.Words && ev.live() && ev.A.Fatal && !ev.Signalled && ev.A.Cause == 0 && ev.Src == src &&
			ev.A.FirstSeq == ev.A.LastSeq && ev.A.LastSeq < seq && carryOnSet.in(head(ev.A.Headline)) {
			s.withdraw(fb, ev)
		}
	}
}

// carryOnWords are what an error line says when the program goes on
// without what failed.
var carryOnWords = []string{
	"using default", "use default", "ignoring", "skipping", "continuing", "continue without", "falling back",
	"fall back", "fallback", "retrying", "will retry", "trying again",
}

var carryOnSet = newWordSet(carryOnWords)

// childDeathOutlived counts a request served on source src against a
// fatal event after readiness whose process was reported dead (a signal,
// an exit report) on the same origin, and reports whether that origin has
// now served servedToSurvive requests since it loaded a model again: the
// process that died was a child the server started (a model runner loaded
// on demand: Lemonade's or llama-swap's llama-server), since the server
// started another and answers on. Requests another service answers (a web
// UI beside a dead model server) say nothing of it.
func (s *State) childDeathOutlived(ev *event, src string) bool {
	if !ev.Reloaded || !s.deadWhileServing(ev) || originOf(ev.Src) != originOf(src) {
		return false
	}
	ev.Alive++
	return ev.Alive >= servedToSurvive
}

// replicaDeathOutlived reports a death while serving of one task of a job
// step (srun --label's "2: ...", or srun's own "task 2: Exited" report of
// it) after which another task of the step has now served
// replicaServedToSurvive requests: the tasks were replicas behind one
// frontend, and the deployment serves on without the dead one. Tasks of
// one tensor-parallel engine die together; none serves after.
func (s *State) replicaDeathOutlived(ev *event, src string) bool {
	o := originOf(src)
	if !isTaskOrigin(o) || !s.deadWhileServing(ev) {
		return false
	}
	dead := originOf(ev.Src)
	if !isTaskOrigin(dead) {
		// srun's own report, in the step's outer envelope if any.
		if g := reTaskReport.FindStringSubmatch(ev.A.Headline); g != nil {
			dead = o[:strings.LastIndexByte(o, '|')+1] + "task" + g[1]
		}
	}
	if !isTaskOrigin(dead) || dead == o {
		return false
	}
	ev.Replicas++
	return ev.Replicas >= replicaServedToSurvive
}

// replicaServedToSurvive is how many requests the other tasks must serve
// after a task's death: more than a server's own (servedToSurvive), as a
// request or two may still finish while the others notice.
const replicaServedToSurvive = 3

// reTaskReport finds the task a launcher's death report names ("srun:
// error: node-7: task 2: Exited with exit code 1").
var reTaskReport = regexp.MustCompile(`^srun: error: \S+: task (\d+): `)

// isTaskOrigin reports a Slurm task's origin ("task2", envelope.go), also
// inside an outer envelope ("pod/c|task2").
func isTaskOrigin(o string) bool {
	o = o[strings.LastIndexByte(o, '|')+1:]
	return strings.HasPrefix(o, "task") && len(o) > len("task") && allDigits(o[len("task"):])
}

// deadWhileServing reports a live fatal event after readiness whose
// process was reported dead.
func (s *State) deadWhileServing(ev *event) bool {
	return ev.live() && ev.A.Fatal && ev.Signalled && s.d.Ready != nil && ev.A.FirstSeq > s.d.Ready.Seq && ev.St != stFrames
}

// reloadedAfterDeath notes model loading on source src (the line's match m,
// text t) after a death reported while serving on the same origin: the
// server started its child again (childDeathOutlived). Requests answered
// without it are in flight when a server's own engine dies (vLLM's API
// answers a few after "Engine core proc ... died unexpectedly").
func (s *State) reloadedAfterDeath(src string, m *lineMatch, t string) {
	if s.d.Ready == nil || s.d.Fatal == 0 {
		return
	}
	work := -1 // isModelWork(t, m), searched once and only when an event asks
	for _, ev := range s.d.Events {
		if ev.Reloaded || !s.deadWhileServing(ev) || originOf(ev.Src) != originOf(src) {
			continue
		}
		if work < 0 {
			work = 0
			if isModelWork(t, m) {
				work = 1
			}
		}
		ev.Reloaded = work == 1
	}
}

// outlived downgrades the fatal events before a parent's report that its
// child died while it lives on (a Survivor signature): the process that died
// was the child (a model runner of `ollama serve`), and the parent printing
// the report is proof that the server did not. Even a signal does not keep
// them fatal: it killed the child. Events after the previous such report
// only, so one report does not forgive failures it does not cover.
func (s *State) outlived(fb *feedBuf, seq int64) {
	for _, ev := range s.d.Events {
		if ev.live() && ev.A.Fatal && ev.A.FirstSeq > s.d.Outlived {
			s.setFatal(ev, false)
			ev.Signalled = false
			fb.touch(ev)
		}
	}
	s.d.Outlived = seq
}

// doomed marks the errors that still await evidence as fatal for good: the
// line just read says a process died.
func (s *State) doomed() {
	for _, ev := range s.d.Events {
		if s.awaitsEvidence(ev) {
			ev.Signalled = true
		}
	}
}

// doomedBefore makes the non-fatal alarms before a server's last words
// fatal (a Dooms signature): before readiness they were startup failures
// the server could have outlived, and it says it did not.
func (s *State) doomedBefore(fb *feedBuf) {
	if s.d.Ready != nil {
		return
	}
	for _, ev := range s.d.Events {
		if ev.live() && !ev.A.Fatal && ev.Alias == 0 {
			s.setFatal(ev, true)
			ev.Signalled = true
			fb.touch(ev)
		}
	}
}

// readyAfterErrors downgrades the fatal-looking errors before readiness: the
// server came up after them, so none of them brought it down. A process
// death (a signal) stays fatal: a launcher may report ready after a child died.
// So does an error of a sibling instance: a process with the ready line's
// process name but another pid ("APIServer pid=7002" when "APIServer
// pid=7001" became ready) is a second server of the same deployment (two
// servers started from one script), and the one that came up does not undo
// the other's death.
//
// A failure that a restart followed (a supervisor's "Scheduled restart
// job", a wrapper's retry, the start banner again, a new command at the
// shell's prompt: State.Restart) was an earlier attempt's, whatever it
// was: the attempt that became ready is another process.
func (s *State) readyAfterErrors(fb *feedBuf, readySrc string) {
	for _, ev := range s.d.Events {
		earlier := ev.A.LastSeq < s.d.Restart
		if ev.live() && ev.A.Fatal && (earlier || !ev.Signalled && ev.A.Kind != AlarmSignal && !siblingOf(ev, readySrc)) {
			s.setFatal(ev, false)
			fb.touch(ev)
		}
	}
	if len(s.d.RetiredFatal) == 0 || s.d.Restart == 0 {
		return
	}
	// Fatal events of an earlier attempt that retired before the new one
	// became ready (a model's loading takes more lines than an event is
	// kept for).
	kept := s.d.RetiredFatal[:0]
	last := int64(0)
	for _, ev := range s.d.RetiredFatal {
		if ev.live() && ev.A.Fatal && ev.A.LastSeq < s.d.Restart {
			s.setFatal(ev, false)
			fb.touch(ev)
			continue
		}
		kept = append(kept, ev)
		last = max(last, ev.A.FirstSeq)
	}
	clear(s.d.RetiredFatal[len(kept):])
	s.d.RetiredFatal = kept
	if !s.d.RetiredLost {
		s.d.LastFatal = last
	}
}

// siblingOf reports whether one of the event's sources is another instance
// of the process that printed the ready line: the same name before "pid=",
// another pid.
func siblingOf(ev *event, readySrc string) bool {
	name, pid, ok := procNamePid(readySrc)
	if !ok {
		return false
	}
	srcs := ev.Srcs
	if len(srcs) == 0 {
		srcs = []string{ev.Src}
	}
	for _, src := range srcs {
		if n, p, ok := procNamePid(src); ok && n == name && p != pid {
			return true
		}
	}
	return false
}

// procNamePid splits a process tag source such as "APIServer pid=7001" (or
// "RayWorkerWrapper pid=2960, ip=10.1.1.1") into its name and pid; ok is
// false for sources without both.
func procNamePid(src string) (name, pid string, ok bool) {
	name, rest, found := strings.Cut(src, " pid=")
	if !found || name == "" || strings.ContainsAny(name, " @") {
		return "", "", false
	}
	pid, _, _ = strings.Cut(rest, ",")
	return name, pid, pid != ""
}

func (s *State) setFatal(ev *event, fatal bool) {
	if ev.A.Fatal == fatal || fatal && ev.Beside {
		return
	}
	ev.A.Fatal = fatal
	if ev.live() {
		if fatal {
			s.d.Fatal++
		} else {
			s.d.Fatal--
		}
	}
}

// withdraw turns an event into a benign block: its alarm is withdrawn and its
// lines become warnings. An event whose lines can no longer be listed stays.
func (s *State) withdraw(fb *feedBuf, ev *event) {
	if !ev.live() || ev.Untracked || ev.Alias != 0 {
		return
	}
	ev.A.Withdrawn = true
	ev.Silent = true
	s.d.Alarms--
	if ev.A.Fatal {
		s.d.Fatal--
	}
	for _, r := range ev.Ranges {
		for q := r.From; q <= r.To; q++ {
			fb.revise(LineVerdict{Seq: q, Kind: KindWarning, Level: r.Level, Rank: r.Rank, Time: r.Time})
		}
	}
	fb.touch(ev)
}

// takeBackReady undoes the launch's readiness: the line just read, right
// after the ready line, says the server never began to serve. uvicorn logs
// "Application startup complete." once the application started, and only
// then binds its socket (unless it was handed one already bound, as vLLM
// does); a bind failure right after it means the server never listened.
// The ready line becomes an ordinary line again; what readiness did to the
// errors and phases before it stands.
// becomeReady makes the launch ready at the line whose verdict (without
// its readiness) is lv, at time at, on source src.
func (s *State) becomeReady(fb *feedBuf, lv LineVerdict, at time.Time, src string) {
	s.d.Ready = &Marker{Seq: lv.Seq, Time: at}
	lv.Kind = KindPlain
	s.d.ReadyLine = &lv
	fb.ready = s.d.Ready
	s.d.Phases.endAll(fb, lv.Seq, at)
	s.readyAfterErrors(fb, src)
}

func (s *State) takeBackReady(fb *feedBuf) {
	r := *s.d.Ready
	s.d.Ready, fb.ready, fb.unready = nil, nil, &r
	if s.d.ReadyLine != nil {
		fb.revise(*s.d.ReadyLine)
		s.d.ReadyLine = nil
	}
}

// The decisions the recognisers ask for: they say what a line showed, the
// verdict stage decides what the event then is.

// consequence records that a line reporting the process's death (a signal,
// an abort, an exit report) belongs to ev without taking its headline.
// A report of a child's death that its parent survives (a non-fatal
// signal signature: a runner died) joins it without making it fatal.
func (s *State) consequence(ev *event, m *lineMatch) {
	if m.follow != nil || (m.best != nil && m.best.Kind == AlarmSignal && m.best.IsFatal()) {
		ev.Signalled = true
		if !ev.A.Fatal {
			s.setFatal(ev, true)
		}
	}
}

// servedRequestFailed: the event's frames show a web server dispatching a
// request to the code that raised (uvicorn's run_asgi, Flask's
// full_dispatch_request): the server caught it and answered that request,
// unless a signature already said what the event is. A cause that kills
// the process whatever raised it still makes it fatal (setHeadline).
func (s *State) servedRequestFailed(ev *event) {
	if !ev.Fixed {
		ev.Fixed = true
		s.setFatal(ev, false)
	}
}

// loggedStack: a ready server printed a Node.js error stack (its logger's
// record of an error it caught, or err.stack on the console): one
// request's failure, whatever the record's first line said, unless the
// event is a death (a signal, a CUDA or NCCL error). Node's own report of
// an uncaught exception ends with its version line, a death report that
// makes the event fatal again (consequence).
func (s *State) loggedStack(ev *event) {
	if ev.A.Kind != AlarmSignal && ev.A.Kind != AlarmCUDA && ev.A.Kind != AlarmNCCL {
		ev.Fixed = true
		s.setFatal(ev, false)
	}
}

// reportsDeath: the event's exception line says a process or engine died
// (EngineDeadError): whatever its intro said, the server did not survive it.
func (s *State) reportsDeath(ev *event) {
	if !ev.A.Fatal {
		s.setFatal(ev, true)
	}
}

// operatorStopped: the event's exception is the operator's interrupt
// (KeyboardInterrupt): no failure, and the launch is being stopped.
func (s *State) operatorStopped(fb *feedBuf, ev *event, seq int64) {
	s.withdraw(fb, ev)
	if s.d.Shutdown == 0 {
		s.d.Shutdown = seq
	}
}

// threadCallFailed withdraws a thread's traceback that ended as a failed
// network call (the thread's own call to a telemetry, analytics or usage
// server that cannot be reached: Gradio's analytics, a stats reporter), or
// any traceback of a thread that only reports (isAuxThreadDeath: vLLM's
// usage report failing to write its file; an OOM, CUDA or NCCL failure
// stays, the device is the server's too). Only that thread died, the
// process serves on, and its failure is no server failure: the lines stay
// as warnings.
//
// So is a traceback of a service beside the launch's server (a gateway in
// front of it) that ends in a network failure: the neighbour could not
// reach something, most likely the server while it loads, and answered
// its client; the launch's own lines say how the server is.
func (s *State) threadCallFailed(fb *feedBuf, ev *event) {
	if (ev.Thread && (ev.Net == netOnly || ev.AuxThread && !isRootCauseKind(ev.A.Kind)) || ev.Beside && ev.NetExc) && ev.live() && !ev.Signalled {
		s.withdraw(fb, ev)
	}
}
