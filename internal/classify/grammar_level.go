package classify

import (
	"slices"
	"strings"
	"time"
)

// Levels as evidence. A line's level is a claim by its logger, weighed with
// what comes after it:
//   - a CRITICAL or FATAL line is an alarm, unless a benign signature
//     (role "benign") says its wording is harmless;
//   - a run of ERROR lines on one source is a candidate (a pendingRun). It
//     becomes one fatal event when the process ends right after it: a
//     terminating line (role "terminate": "Exiting", "Shutting down"), a
//     signal or exit report, last words ("Error: ..."), a CRITICAL line or
//     an alarm signature right after it, or the stream settling (Settle)
//     while the launch is not ready. Followed by ordinary lines instead, its
//     lines stay warnings: servers log handled failures and fallbacks at ERROR.
//
// A launch whose ERROR lines turn out to carry progress or readiness (a
// wrapper re-logging the server's whole stderr at ERROR) has lying levels:
// its ERROR runs prove nothing (grammarState.Lies).
//
// The headline of a level event is its most telling line: a signature's
// line if one matched, else the first line that does not merely report the
// ending ("terminating server process", "Exiting").

const (
	maxRuns     = 8  // sources with a pending ERROR run
	maxRunLines = 64 // lines of a run kept to revise when it is promoted
	runGap      = 2  // non-blank lines after a run within which a terminating line promotes it
)

// pendingRun is a run of ERROR lines on one source that is not an event yet.
type pendingRun struct {
	Src      string      `json:"src,omitempty"`
	First    int64       `json:"first"`
	Last     int64       `json:"last"`
	Time     time.Time   `json:"tm"`
	Head     string      `json:"head"`
	HeadSeq  int64       `json:"head_seq"`
	HeadPrio int         `json:"head_prio"`
	Lines    int         `json:"lines"`
	Gap      int         `json:"gap"` // non-blank lines fed since the run's last line
	Ranges   []lineRange `json:"ranges,omitempty"`
	// Beside: the run's first line came from a service beside the
	// launch's server (besideServer, judged as that line was read): a
	// run promoted later, when another line is being read, keeps it.
	Beside bool `json:"beside,omitempty"`
}

// levelOf is the line's level, reading TensorRT-LLM's Python logger tag
// ("[07/22/2025-05:45:38] [TRT-LLM] [E] msg") when the prefix had none.
func levelOf(p *Prefix) string {
	if p.Level != "" {
		return p.Level
	}
	b := p.Body
	if strings.HasPrefix(b, "[") && len(b) > 22 && b[20] == ']' && b[3] == '/' {
		b = b[22:] // the "[MM/DD/YYYY-HH:MM:SS] " time
	}
	if !strings.HasPrefix(b, "[TRT-LLM] [") || len(b) < 14 || b[12] != ']' {
		return ""
	}
	switch b[11] {
	case 'E':
		return "ERROR"
	case 'F', 'C':
		return "CRITICAL"
	case 'W':
		return "WARNING"
	case 'I':
		return "INFO"
	}
	return ""
}

func isErrorLevel(lv string) bool { return lv == "ERROR" || lv == "CRITICAL" || lv == "FATAL" }

// levelMatters reports whether the level signatures (benign, terminate)
// can change anything for this line: it is an error-level line, an ERROR
// run is pending that a terminating line would promote, or a native
// program's failure report may end with one.
func (s *State) levelMatters(p *Prefix) bool {
	return len(s.d.G.Runs) > 0 || isErrorLevel(levelOf(p)) || s.openNativeEvent() || s.hasTentative()
}

// hasTentative reports an alarm that SettleStreamEnd promoted and the next
// line may withdraw (settle.go).
func (s *State) hasTentative() bool {
	for _, ev := range s.d.Events {
		if ev.Tentative {
			return true
		}
	}
	return false
}

// openNativeEvent reports a single-line event opened by the line just before
// (assemble.go's continuesNativeRun may extend it with a terminating line).
func (s *State) openNativeEvent() bool {
	pr := s.d.Prev
	return pr.Alarm != 0 && pr.Level == "" && pr.N == s.d.N-1
}

// observeLine runs for every line before any grammar: it ages the pending
// runs and notices lying levels.
func (s *State) observeLine(p *Prefix, t string, m *lineMatch) {
	g := &s.d.G
	if !g.Lies && isErrorLevel(levelOf(p)) && (m.ready != nil || len(m.phases) > 0 ||
		m.builtin[litItS] || m.builtin[litSIt] || m.builtin[litBar]) {
		g.Lies, g.Runs = true, nil
	}
	if t == "" || len(g.Runs) == 0 {
		return
	}
	keep := g.Runs[:0]
	for _, r := range g.Runs {
		r.Gap++
		if r.Gap <= runGap+1 {
			keep = append(keep, r)
		}
	}
	for i := len(keep); i < len(g.Runs); i++ {
		g.Runs[i] = nil
	}
	g.Runs = keep
}

// openLevel opens an event at a CRITICAL/FATAL line, or records an ERROR
// line (or a continuation of one) in its source's pending run.
func (s *State) openLevel(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch) *event {
	lv := levelOf(p)
	if m.benign || p.Answered || (s.d.G.Lies && lv == "ERROR") || m.builtin[litTraceback] || isFrameLine(t) || strings.HasPrefix(t, "frame #") {
		return nil
	}
	switch lv {
	case "CRITICAL", "FATAL":
		return s.openEvent(fb, p, seq, at, src, t, stLevel, AlarmOther, tellingPrio(t, m), m)
	case "ERROR":
		r := s.d.G.runOn(src)
		if r == nil && m.ending && (s.d.Ready == nil || s.fatalJustBefore()) {
			// "Application startup failed. Exiting.": the line ends the
			// process; after readiness, only right after a fatal failure
			// ("MQLLMEngine is already dead, terminating server process"
			// under the engine's traceback), the front end's report of it.
			return s.openEvent(fb, p, seq, at, src, t, stLevel, AlarmOther, 1, m)
		}
		if r == nil {
			r = s.d.G.newRun(src, seq, at)
			r.Beside = s.besideServer(p)
		}
		r.add(p, seq, s.d.Prev.Seq, t, m, true)
		return nil
	}
	// An indented continuation (a multi-line message, an error's
	// "Caused by:" list or backtrace) of the run's last line.
	if r := s.d.G.runOn(src); r != nil && r.Gap == 1 && !p.Tagged && (indented(p.Body) || isContinuationHeader(t) || isDetailLine(t)) {
		if m.benign {
			// The message goes on to say the failure was handled (a
			// deprecation, a fallback): the run was no failure.
			s.d.G.dropRun(r)
			return nil
		}
		r.add(p, seq, s.d.Prev.Seq, t, m, false)
	}
	return nil
}

// promoteByLine promotes the pending run on src when this line shows the
// process ending, or continues the run's failure (a CRITICAL line or an
// alarm signature right after it). The line joins the new event.
func (s *State) promoteByLine(fb *feedBuf, p *Prefix, seq int64, at time.Time, src, t string, m *lineMatch, v *LineVerdict) bool {
	r := s.d.G.runOn(src)
	if r == nil {
		if r = s.reportedRun(t); r == nil {
			return false
		}
	}
	if s.runtimeDumpAfterRun(r, p, t) {
		s.promoteRun(fb, r)
		return false // the dump opens its own event
	}
	lv := levelOf(p)
	// An indented line right after the run is its message going on, not a
	// program's last words.
	ending := isSignalConsequence(m) || m.follow != nil || (p.Level == "" && isLastWords(t) && !(r.Gap == 1 && indented(p.Body))) ||
		(m.ending && s.d.Ready == nil)
	adjacent := r.Gap == 1 && (m.best != nil || ((lv == "CRITICAL" || lv == "FATAL") && !m.benign))
	if !ending && !adjacent {
		return false
	}
	ev := s.promoteRun(fb, r)
	if ev == nil {
		return false
	}
	switch {
	case ending && m.best == nil:
		s.consequence(ev, m)
		ev.Signalled = true
	case ending:
		s.consequence(ev, m)
	default:
		if m.best != nil {
			s.offer(ev, t, seq, 0, m)
		} else if pr := tellingPrio(t, m); pr > ev.Prio {
			s.setHeadline(ev, t, seq, pr, nil)
		}
	}
	s.assign(fb, ev, v, at)
	s.tryMerge(fb, ev)
	s.d.CurSrc = src
	return true
}

// reportedRun is the pending run of the container or process an exit
// report names ("sd-server-1 exited with code 1"), when the report comes
// from another source than the run: docker compose's own line has no
// container prefix, and once a collector's envelope (journald's "host
// ident[pid]: ") is around both, the container's lines are another origin
// than the report's. The name must be the run's origin's innermost part.
func (s *State) reportedRun(t string) *pendingRun {
	if len(s.d.G.Runs) == 0 {
		return nil
	}
	name, ok := exitReportName(strings.TrimSpace(t))
	if !ok {
		return nil
	}
	for _, r := range s.d.G.Runs {
		o := originOf(r.Src)
		if o == "" {
			o = s.d.Origin
		}
		if i := strings.LastIndexByte(o, '|'); i >= 0 {
			o = o[i+1:]
		}
		if o == name {
			return r
		}
	}
	return nil
}

// promoteReporters promotes the ERROR runs of other sources that ended on
// the line just before a traceback opened on src, while the launch is not
// ready: one process reported the failure ("Failed to update the
// deployments") as another raised it, and both are the launch's failure.
func (s *State) promoteReporters(fb *feedBuf, src string) {
	if s.d.Ready != nil || len(s.d.G.Runs) == 0 {
		return
	}
	for _, r := range slices.Clone(s.d.G.Runs) {
		if r.Src != src && r.Gap == 1 {
			s.promoteRun(fb, r)
		}
	}
}

// promoteRun turns a pending run into an event whose lines are revised
// into its alarm. A run that an event opened on its source since (a
// traceback it introduced) is dropped instead: that event explains it.
func (s *State) promoteRun(fb *feedBuf, r *pendingRun) *event {
	s.d.G.dropRun(r)
	for _, ev := range s.d.Events {
		if ev.A.ID != 0 && ev.Src == r.Src && ev.A.LastSeq >= r.First {
			return nil
		}
	}
	silent := s.d.Shutdown != 0 && s.d.Shutdown < r.First
	ev := s.newEvent(fb, r.Src, r.First, r.Time, silent)
	ev.St, ev.A.Kind, ev.A.LastSeq = stLevel, AlarmOther, r.Last
	if r.Beside && !ev.Beside {
		s.setFatal(ev, false)
		ev.Beside = true
	}
	kind, id := KindError, ev.A.ID
	if ev.Silent {
		kind, id = KindWarning, 0
	}
	for _, rg := range r.Ranges {
		for q := rg.From; q <= rg.To; q++ {
			fb.revise(LineVerdict{Seq: q, Kind: kind, Level: rg.Level, Rank: rg.Rank, Time: rg.Time, Alarm: id})
		}
	}
	ev.Ranges = r.Ranges
	s.setHeadline(ev, r.Head, r.HeadSeq, r.HeadPrio, nil)
	return ev
}

// restartedAfterRun notes the launch's first line that is no warning or
// error (its template: a start banner) and,
// when it comes again on src after a pending ERROR run of src's before
// readiness, makes that run a fatal alarm at once: the program printed its
// start banner again, so a supervisor restarted it and the ERROR lines
// were the last words of the run before ("Failed to initialize AppState:
// ..." then "Starting TensorZero Gateway ..." again, a restart loop that
// would otherwise grow one run that never settles).
func (s *State) restartedAfterRun(fb *feedBuf, p *Prefix, m *lineMatch, src, t string) {
	var r *pendingRun
	if s.d.FirstTpl != "" {
		// Once the banner is known, only a line after an ERROR run before
		// readiness can be its restart: most lines stop here, before the
		// searches below.
		if r = s.d.G.runOn(src); r == nil || s.d.Ready != nil {
			return
		}
	}
	if p.Level != "" && p.Level != "INFO" && p.Level != "DEBUG" || indented(p.Body) {
		return // a banner is no warning or error line, nor a record's continuation
	}
	if m.serving || m.ready != nil || m.announce.ok || m.announce.health || strings.Contains(t, " HTTP/") {
		return // nor a request answered or an address: an excerpt may begin mid-serve with one
	}
	if s.d.FirstTpl == "" && (indexFold(t, "error") >= 0 || failureSet.in(head(t))) {
		return // nor a message about a failure
	}
	if s.d.FirstTpl == "" {
		if strings.TrimSpace(t) != "" {
			s.d.FirstTpl = Template(truncate(t, maxBannerTemplate))
		}
		return
	}
	if Template(truncate(t, maxBannerTemplate)) != s.d.FirstTpl {
		return
	}
	if ev := s.promoteRun(fb, r); ev != nil {
		ev.Signalled = true
		ev.St = stClosed
	}
}

// maxBannerTemplate bounds the start banner's text kept in the state.
const maxBannerTemplate = 200

// servedOn records that src answered a request: the ERROR lines of its
// pending run were failures it handled, not its last words, and its later
// silence is a serving process waiting for requests (promoteOnSettle).
func (g *grammarState) servedOn(src string) {
	if r := g.runOn(src); r != nil {
		g.dropRun(r)
	}
	if contains(g.Served, src) {
		return
	}
	if len(g.Served) >= maxRuns {
		g.Served = append(g.Served[:0], g.Served[1:]...)
	}
	g.Served = append(g.Served, src)
}

// promoteOnSettle promotes the runs that were the last lines of a launch
// that is not ready: the process went silent right after them. Not those of
// a source that answered requests: its silence is no sign of death.
func (s *State) promoteOnSettle(fb *feedBuf) []*event {
	if s.d.Ready != nil {
		return nil
	}
	var evs []*event
	var kept []*pendingRun
	for _, r := range append([]*pendingRun(nil), s.d.G.Runs...) {
		if r.Gap == 0 && !contains(s.d.G.Served, r.Src) {
			if ev := s.promoteRun(fb, r); ev != nil {
				evs = append(evs, ev)
			}
			continue
		}
		// A run that is no candidate now (lines of other work came after
		// it, or its source served since) stays as the settler leaves it:
		// a reader's settling must change no more than the settler's when
		// nothing waits for the stream's end (TestVerdictDoesNotHangOnWhoSettlesFirst).
		kept = append(kept, r)
	}
	s.d.G.Runs = kept
	return evs
}

// pendingRuns counts runs that Settle would promote now.
func (s *State) pendingRuns() int {
	if s.d.Ready != nil {
		return 0
	}
	n := 0
	for _, r := range s.d.G.Runs {
		if r.Gap == 0 && !contains(s.d.G.Served, r.Src) {
			n++
		}
	}
	return n
}

func (s *State) consumeLevel(ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	if t == "" {
		return blank(ev, 1)
	}
	switch {
	case s.opensPythonDump(ev, t, seq, m):
		return consumed
	case m.ready != nil || len(m.phases) > 0:
		return ended
	case isErrorLevel(levelOf(p)) && !m.benign:
		ev.Blanks = 0
		if m.best != nil {
			s.offer(ev, t, seq, 0, m)
		} else if pr := tellingPrio(t, m); pr > ev.Prio {
			s.setHeadline(ev, t, seq, pr, nil)
		}
		return consumed
	case isSignalConsequence(m) || m.follow != nil:
		s.consequence(ev, m)
		return consumed
	case !p.Tagged && (indented(p.Body) || isContinuationHeader(t) || isAbortDumpLine(t)) && ev.Cont < maxRunLines:
		ev.Cont++
		ev.Blanks = 0
		return consumed
	}
	return ended
}

// tellingPrio ranks a line of a level event as a headline: 1 for a line
// that says what failed, 0 for one that only reports the ending.
func tellingPrio(t string, m *lineMatch) int {
	if m.ending {
		return 0
	}
	return 1
}

// isContinuationHeader reports the unindented lines inside an error's
// multi-line report (anyhow's, eyre's and Rust's backtrace headers).
// isDetailLine reports a line of the details an error message goes on
// with on lines of their own: a list item ("- Free GPUs:") or a heading in
// capitals ("SYSTEM INFO").
func isDetailLine(t string) bool {
	if strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* ") {
		return true
	}
	if len(t) > 40 {
		return false
	}
	letters := 0
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c >= 'A' && c <= 'Z':
			letters++
		case c == ' ' || c == '_' || c == ':':
		default:
			return false
		}
	}
	return letters >= 4
}

func isContinuationHeader(t string) bool {
	switch t {
	case "Caused by:", "Stack backtrace:", "stack backtrace:", "Location:", "Backtrace:":
		return true
	}
	return false
}

// runOn is the pending run on src, nil if none.
func (g *grammarState) runOn(src string) *pendingRun {
	for _, r := range g.Runs {
		if r.Src == src {
			return r
		}
	}
	return nil
}

// newRun starts a pending run on src, dropping the oldest beyond maxRuns.
func (g *grammarState) newRun(src string, seq int64, at time.Time) *pendingRun {
	if len(g.Runs) >= maxRuns {
		g.Runs[0] = nil
		g.Runs = g.Runs[1:]
	}
	r := &pendingRun{Src: src, First: seq, Time: at, HeadPrio: -1}
	g.Runs = append(g.Runs, r)
	return r
}

func (g *grammarState) dropRun(r *pendingRun) {
	for i, x := range g.Runs {
		if x == r {
			g.Runs = append(g.Runs[:i], g.Runs[i+1:]...)
			return
		}
	}
}

// add records a line of the run; head says whether it may become the
// run's headline (a continuation line may not); prev is the seq of the line
// fed before it.
func (r *pendingRun) add(p *Prefix, seq, prev int64, t string, m *lineMatch, head bool) {
	r.Gap = 0
	r.Last = seq
	r.Lines++
	if head {
		pr := tellingPrio(t, m)
		if m.best != nil {
			pr = max(pr, m.best.Priority)
		}
		if pr > r.HeadPrio {
			r.Head, r.HeadSeq, r.HeadPrio = clean(t, maxHeadline), seq, pr
		}
	}
	if len(r.Ranges) >= maxRunLines {
		return // later lines stay warnings if the run is promoted
	}
	if n := len(r.Ranges); n > 0 {
		last := &r.Ranges[n-1]
		if seq == last.To+1 && prev == last.To && last.Level == p.Level && last.Rank == p.Rank && last.Time.Equal(p.Time) {
			last.To = seq
			return
		}
	}
	r.Ranges = append(r.Ranges, lineRange{From: seq, To: seq, Level: p.Level, Rank: p.Rank, Time: p.Time})
}

// runtimeDumpAfterRun reports a runtime's own dump (a Go or Rust panic)
// opening on the very line after the pending ERROR run r on its source: a
// logger cannot introduce what the runtime prints as the process dies, as
// Python's logger.exception introduces its traceback, so the ERROR line (a
// zap record with its own stacktrace field) is a failure of its own that
// the process did not survive, and the dump another. A blank line or more
// between them leaves the run to be decided as any other.
func (s *State) runtimeDumpAfterRun(r *pendingRun, p *Prefix, t string) bool {
	if r.Gap != 1 || r.Last != s.d.Prev.Seq || quiet(p.Level) || indented(p.Body) {
		return false
	}
	if _, ok := rustPanicLine(t); ok {
		return true
	}
	return isGoPanicHeader(t) || isGoSignalHeader(t)
}

// fatalJustBefore reports a live fatal alarm that ended on the line before.
func (s *State) fatalJustBefore() bool {
	ev := s.recent()
	return ev != nil && ev.live() && ev.A.Fatal && ev.LastN == s.d.N-1
}
