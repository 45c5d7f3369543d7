package classify

import (
	"strings"
	"time"
)

// Event assembly (stage 3 of design.md's classifier stages): what the
// recognisers read as separate events but an engineer triages as one item.
//   - copies of one traceback from many ranks merge into one alarm (tryMerge);
//   - hint lines printed with an error join it (RoleHint, in line());
//   - a teardown traceback ("Exception ignored in: ...") joins the alarm
//     that brought the process down, or is a warning when there is none;
//   - a consequence (a launcher reporting its child's failure, "See root
//     cause above") keeps its own alarm but links to its root cause.

// rootCausePriority is the headline priority of a root-cause signature
// (packs/README.md).
const rootCausePriority = 3

// isRootCauseKind reports kinds that are a root cause by their nature: a
// retry line after them never means they were harmless.
func isRootCauseKind(k AlarmKind) bool {
	return k == AlarmOOM || k == AlarmCUDA || k == AlarmNCCL
}

// rootAlarm is the latest live fatal alarm other than ev, followed to its own
// root cause; nil if there is none.
func (s *State) rootAlarm(ev *event) *event {
	for i := len(s.d.Events) - 1; i >= 0; i-- {
		o := s.d.Events[i]
		if o == ev || !o.live() || !o.A.Fatal || o.Alias != 0 || (ev != nil && o.A.ID > ev.A.ID && ev.A.ID != 0) {
			continue
		}
		if o.A.Cause != 0 {
			if r := s.byID(o.A.Cause); r != nil && r.live() {
				return r
			}
		}
		return o
	}
	return nil
}

// echoOfDeath is the alarm that a request-level error on src just after it
// echoes: the latest live fatal alarm, when it ended at most followWindow
// lines back on the same source and is itself a consequence of an earlier
// root cause (vLLM's API server reporting EngineDeadError). A server that has
// just reported its engine dead fails each in-flight request with an error of
// its own; those are the death's echoes, not new events. A process's own
// failure report after a root cause elsewhere (a router's warmup error, an
// asyncio callback's report) is no echo: it keeps its own alarm.
func (s *State) echoOfDeath(src string) *event {
	for i := len(s.d.Events) - 1; i >= 0; i-- {
		o := s.d.Events[i]
		if !o.live() || !o.A.Fatal || o.Alias != 0 {
			continue
		}
		if s.d.N-o.LastN > followWindow || o.A.Cause == 0 || o.Src != src || src == "" {
			return nil
		}
		return o
	}
	return nil
}

// linkCause links a consequence event to the root cause before it.
func (s *State) linkCause(ev *event) {
	if ev.A.Cause != 0 || ev.A.ID == 0 {
		return
	}
	if r := s.rootAlarm(ev); r != nil && r.A.ID < ev.A.ID {
		ev.A.Cause = r.A.ID
	}
}

// adoptLastWords makes the line just before a consequence event's first
// line (a supervisor's "worker exited with status 2, restarting") the
// event's first line and headline, when no root cause came before it and
// that line, unlevelled and on the same source, reads as a failure: a
// program that prints its reason and exits ("Cannot find text model file:
// ...") said why its supervisor reports it dead.
func (s *State) adoptLastWords(fb *feedBuf, ev *event, src string) {
	pr := &s.d.Prev
	if pr.N != s.d.N-1 || pr.Src != src || pr.Alarm != 0 || pr.Level != "" || pr.Kind != KindPlain ||
		pr.Body == "" || !failureSet.in(pr.Body) {
		return
	}
	ev.A.FirstSeq = pr.Seq
	if !pr.Time.IsZero() {
		ev.A.Time = pr.Time
	}
	s.setHeadline(ev, clean(pr.Body, maxPrevBody), pr.Seq, max(ev.Prio, 1), nil) // the reason outranks the report of it
	fb.revise(LineVerdict{Seq: pr.Seq, Kind: KindError, Level: pr.Level, Rank: pr.Rank, Time: pr.Time, Alarm: ev.A.ID})
	ev.addRange(pr.Seq, pr.Level, pr.Rank, pr.Time, -1)
}

// failureWords say that a line reports a failure.
var failureWords = []string{
	"cannot", "can't", "could not", "couldn't", "unable to", "failed", "failure", "not found", "no such file",
	"does not exist", "doesn't exist", "missing", "invalid", "denied", "out of memory",
}

var failureSet = newWordSet(failureWords)

// startTeardown opens the event of an "Exception ignored in: ..." report
// (PyErr_WriteUnraisable: an exception in __del__, an atexit callback or a
// finalizer, which Python prints and ignores). It never makes an alarm of
// its own: its lines join the alarm that brought the process down, if any.
func (s *State) startTeardown(fb *feedBuf, src string, seq int64, at time.Time) *event {
	ev := s.newEvent(fb, src, seq, at, true)
	if r := s.rootAlarm(nil); r != nil {
		ev.JoinTo = r.A.ID
	}
	return ev
}

// joinLine makes a line of a teardown event part of the alarm it joins, or a
// warning when that alarm is gone.
func (s *State) joinLine(fb *feedBuf, ev *event, v *LineVerdict) {
	o := s.byID(ev.JoinTo)
	if o == nil || !o.live() {
		v.Kind = KindWarning
		return
	}
	v.Kind, v.Alarm = KindError, o.A.ID
	o.addRange(v.Seq, v.Level, v.Rank, v.Time, s.d.Prev.Seq)
	if v.Seq > o.A.LastSeq {
		o.A.LastSeq = v.Seq
	}
	o.LastN = s.d.N
	fb.touch(o)
}

// uncaughtEntry reports a traceback's first frame that is the interpreter's
// entry point: `python -m` (runpy's _run_module_as_main) or a console script
// in a bin directory. A traceback that starts there reached the top of the
// program uncaught, so it is the process dying, whatever warning came before.
func uncaughtEntry(frame string) bool {
	if strings.Contains(frame, "runpy") && (strings.Contains(frame, "in _run_module_as_main") || strings.Contains(frame, "in _run_code")) {
		return true
	}
	return strings.HasSuffix(frame, "in <module>") && strings.Contains(frame, "/bin/")
}

// promote turns a silent event into a live alarm: its lines so far become
// error lines of a new alarm.
func (s *State) promote(fb *feedBuf, ev *event) {
	if !ev.Silent || ev.A.ID != 0 || ev.Untracked {
		return
	}
	ev.Silent, ev.WarnIntro = false, false
	ev.A.ID = s.d.NextID
	s.d.NextID++
	s.d.Alarms++
	if ev.A.Fatal {
		s.d.Fatal++
	}
	if ev.Src != "" {
		ev.Srcs = []string{ev.Src}
	}
	for _, r := range ev.Ranges {
		for q := r.From; q <= r.To; q++ {
			fb.revise(LineVerdict{Seq: q, Kind: KindError, Level: r.Level, Rank: r.Rank, Time: r.Time, Alarm: ev.A.ID})
		}
	}
	fb.touch(ev)
}

// continuesNativeRun reports a line without a level that continues a
// single-line event opened by the line just before on the same source: a
// C/C++ program (llama.cpp, a CUDA tool) reporting one failure line by line
// as it unwinds ("error loading model: ...", "failed to load model",
// "exiting due to model loading error").
func (s *State) continuesNativeRun(ev *event, p *Prefix, m *lineMatch) bool {
	pr := s.d.Prev
	if p.Level != "" || pr.Level != "" || pr.N != s.d.N-1 || pr.Alarm != ev.A.ID || ev.A.ID == 0 ||
		isExitReport(strings.TrimSpace(p.Body)) {
		return false
	}
	if m.best != nil && m.best.Launcher {
		return false // a launcher's or a script's report of the death: its own event
	}
	return (m.best != nil && m.best.IsFatal() == ev.A.Fatal) || m.ending
}

// restarted reports an event ev of the same failure as o that is no
// other rank's copy of it but a restarted process's: o's process was
// reported dead (a signal in o, or a supervisor's report of its death
// from another origin: systemd's "Main process exited") before ev began,
// and, when both times are known, ev began more than restartGap after o.
// Ranks fail together, within a second or two, and their launcher reports
// the deaths after the tracebacks.
func (s *State) restarted(o, ev *event) bool {
	if !o.A.Time.IsZero() && !ev.A.Time.IsZero() && ev.A.Time.Sub(o.A.Time) <= restartGap {
		return false
	}
	if o.Signalled && o.A.LastSeq < ev.A.FirstSeq {
		return true
	}
	for _, d := range s.d.Events {
		if d.A.Cause == o.A.ID && d.A.Kind == AlarmSignal && d.A.FirstSeq < ev.A.FirstSeq {
			return true
		}
	}
	return false
}

// restartGap is how long after a process's death an identical failure is
// a restart's rather than another rank's.
const restartGap = 10 * time.Second

// tryMerge folds ev into an earlier alarm with the same fingerprint from
// another rank: the same traceback printed by TP0..TP7 is one alarm.
func (s *State) tryMerge(fb *feedBuf, ev *event) {
	if !ev.live() || ev.Untracked || ev.Alias != 0 || ev.Src == "" {
		return
	}
	for _, o := range s.d.Events {
		if o == ev || !o.live() || o.Alias != 0 || o.Src == ev.Src || o.Src == "" || o.A.ID > ev.A.ID ||
			o.A.Fingerprint != ev.A.Fingerprint || o.LastN < s.d.N-mergeWindow || s.restarted(o, ev) {
			continue
		}
		if !contains(o.Srcs, ev.Src) && len(o.Srcs) < maxSources {
			o.Srcs = append(o.Srcs, ev.Src)
			o.A.Ranks = len(o.Srcs)
		}
		if ev.A.FirstSeq < o.A.FirstSeq {
			o.A.FirstSeq = ev.A.FirstSeq
		}
		if ev.A.LastSeq > o.A.LastSeq {
			o.A.LastSeq = ev.A.LastSeq
		}
		o.LastN = s.d.N
		for _, r := range ev.Ranges {
			for q := r.From; q <= r.To; q++ {
				fb.revise(LineVerdict{Seq: q, Kind: KindError, Level: r.Level, Rank: r.Rank, Time: r.Time, Alarm: o.A.ID})
			}
			if !o.Untracked {
				if len(o.Ranges) >= maxRanges {
					o.Untracked, o.Ranges = true, nil
				} else {
					o.Ranges = append(o.Ranges, r)
				}
			}
		}
		ev.Ranges = nil
		ev.A.Withdrawn = true
		s.d.Alarms--
		if ev.A.Fatal {
			s.d.Fatal--
		}
		ev.Alias = o.A.ID
		fb.touch(ev)
		fb.touch(o)
		return
	}
}

// shellDeathReports are the lines a shell prints alone when its job dies by
// a signal (bash's job status), with or without " (core dumped)".
var shellDeathReports = []string{"Killed", "Aborted", "Segmentation fault", "Bus error", "Illegal instruction", "Floating point exception", "Terminated"}

// isShellDeathReport reports a bare job-status line of a shell.
func isShellDeathReport(t string) bool {
	t = strings.TrimSuffix(strings.TrimSpace(t), " (core dumped)")
	for _, r := range shellDeathReports {
		if t == r {
			return true
		}
	}
	return false
}

// deathOfRecent is the fatal event that a shell's bare report of a death by
// signal ends: the latest live fatal alarm that ended within followWindow
// lines. nil when there is none: the line is then a death of its own.
func (s *State) deathOfRecent(t string, m *lineMatch) *event {
	if m.best == nil || m.best.Kind != AlarmSignal || !isShellDeathReport(t) || isExitReport(t) {
		return nil
	}
	ev := s.recent()
	if ev != nil && ev.Alias != 0 {
		ev = s.byID(ev.Alias) // another rank's copy, merged into the first
	}
	if ev != nil && ev.live() && ev.A.Fatal && ev.Alias == 0 {
		return ev
	}
	return nil
}

// repeatOf is the live fatal event whose headline t repeats (the same
// template), nil if none. Only lines that start as a headline does are
// masked and compared: most lines are not checked at all.
func (s *State) repeatOf(t string) *event {
	if s.d.Fatal == 0 || len(t) < 16 {
		return nil
	}
	var tmpl string
	for _, ev := range s.d.Events {
		h := ev.A.Headline
		if !ev.live() || !ev.A.Fatal || len(h) < 16 || h[:8] != t[:8] || len(t) > 2*len(h) {
			continue
		}
		if tmpl == "" {
			tmpl = Template(clean(t, maxHeadline))
		}
		if tmpl == ev.A.Template {
			return ev
		}
	}
	return nil
}
