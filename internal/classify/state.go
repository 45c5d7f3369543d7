package classify

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Bounds that keep a State small whatever the input.
const (
	maxEvents     = 256  // recent events that may still change (one per rank in a rank storm)
	maxRanges     = 256  // runs of lines remembered per event, to revise them
	maxSources    = 1024 // ranks remembered per event
	maxContLines  = 12   // message lines after a final exception line
	retireAfter   = 64   // lines after which a closed event is final
	staleAfter    = 2000 // lines after which an unfinished event is given up
	mergeWindow   = 500  // lines within which the same event from another rank is merged
	followWindow  = 8    // lines within which a follow signature joins an event
	awaitWindow   = 5    // lines within which a retry line withdraws a traceback
	unreadyWindow = 10   // seqs after the ready line within which a bind failure's report, begun there, takes readiness back
	maxPrevBody   = 512
	maxPhaseInsts = 24
)

// State is the per-launch classifier state. The zero value is not ready for
// use; call New or Restore.
//
// The state keeps the launch counters, the readiness marker, the phases, the
// previous line and at most maxEvents recent error events with at most
// maxRanges runs of lines each, so its size is bounded whatever is fed.
type State struct {
	d  stateData
	rs *ruleSet
	h  hits // scratch
	// ansi holds the line being classified with its colour codes
	// stripped (Prefix.parseIn).
	ansi stripBuf
	yc   yearCache
	// phaseBuf backs the phase signatures of the line being classified
	// (lineMatch.phases), so that progress lines allocate none.
	phaseBuf [4]*Signature
	// lp and lm are the prefix and the signature matches of the line
	// being classified. They live here, not on line's stack, because the
	// recognisers are called through the table's function values: escape
	// analysis cannot see that none keeps them, so locals would be moved to
	// the heap, two allocations a line (15 % of the classifier's time).
	// Nothing keeps a pointer to either past its line.
	lp Prefix
	lm lineMatch
}

type stateData struct {
	Server string  `json:"server,omitempty"`
	Last   int64   `json:"last"`
	N      int64   `json:"n"` // lines fed
	NextID int     `json:"next_id"`
	Ready  *Marker `json:"ready,omitempty"`
	// ReadyLine is the ready line's verdict as it would be without its
	// readiness (takeBackReady revises the line to it).
	ReadyLine *LineVerdict `json:"ready_line,omitempty"`
	Shutdown  int64        `json:"shutdown,omitempty"` // seq of an operator's shutdown, 0 if none
	// Prompt is the seq of the last shell prompt with a command after it
	// ("user@host:~$ cmd"): the operator typed another command, whose
	// output follows (operatorCommandFailed).
	Prompt int64 `json:"prompt,omitempty"`
	// Restart is the seq of the last line that starts the program again
	// after a fatal failure (restartBoundary): a readiness after it is
	// the new attempt's.
	Restart int64 `json:"restart,omitempty"`
	// PayloadDoc counts the lines of a request's or response's content
	// printed as a document over lines of its own ("... with body: {"),
	// 0 when none is open: its lines are user data (inPayloadDoc).
	PayloadDoc int   `json:"payload_doc,omitempty"`
	Alarms     int   `json:"alarms"`
	Fatal      int   `json:"fatal"`
	LastFatal  int64 `json:"last_fatal,omitempty"` // among retired events
	Outlived   int64 `json:"outlived,omitempty"`   // seq of the last parent's report of a child's death (verdict.go)
	// Spawned: a supervisor or proxy said it started a child (RoleSpawn):
	// the events after it may be the child's (event.Spawned).
	Spawned bool `json:"spawned,omitempty"`
	// SpawnShape is the prefix shape (prefixShape) of the line that said
	// so: the parent's own lines have it, a child's output in between
	// (usually) does not.
	SpawnShape string `json:"spawn_shape,omitempty"`
	// Programs are the programs a supervisor said it started, with their
	// pids (supervisord's "spawned: 'NAME' with pid N"), and SidecarPid
	// the pid of the uvicorn whose lines come now when it is a program's
	// that is not the launch's server (aside.go, sidecarUvicorn).
	Programs   []program `json:"programs,omitempty"`
	SidecarPid string    `json:"sidecar_pid,omitempty"`
	ParentN    int64     `json:"parent_n,omitempty"` // the line count at the last line of that shape
	Year       int       `json:"year,omitempty"`
	CurSrc     string    `json:"cur_src,omitempty"`
	Origin     string    `json:"origin,omitempty"` // the first envelope origin seen (source.go)
	Prev       prevLine  `json:"prev"`
	Events     []*event  `json:"events,omitempty"`
	// RetiredFatal keeps the last few fatal events that retired (their
	// lines are final), so that a restart's readiness can still say they
	// were an earlier attempt's (readyAfterErrors); RetiredLost says
	// older ones were dropped, whose LastFatal stands.
	RetiredFatal []*event `json:"retired_fatal,omitempty"`
	RetiredLost  bool     `json:"retired_lost,omitempty"`
	Phases       phaseLog `json:"phases,omitempty"`

	// Server is the current best family; Fixed says it was given to New
	// and evidence does not change it; Fam is the per-family evidence
	// (family.go), at most maxFamilies entries.
	Fixed bool `json:"fixed,omitempty"`
	// Endpoints are the addresses the server announced (endpoint.go), at
	// most maxEndpoints, in the order first seen.
	Endpoints []string `json:"endpoints,omitempty"`
	// Announced is an announcement that is not readiness yet (endpoint.go,
	// State.afterAnnouncement), nil if none; Loaded says the launch showed
	// loading work before it.
	Announced *pendingReady `json:"announced,omitempty"`
	Loaded    bool          `json:"loaded,omitempty"`
	// LoadedOrigins are the origins (originOf a source: "" for the
	// launch's own process) that showed model loading work, at most
	// maxLoadedOrigins: an announcement waits for its own origin's.
	LoadedOrigins []string `json:"loaded_origins,omitempty"`
	// DepSources are sources that printed a dependency's start-up line
	// (aside.go), at most maxDepSources.
	DepSources []string `json:"dep_sources,omitempty"`
	// ManyOrigins: lines of more than one origin were read (a compose
	// project's services, a pod's containers); FamOrigins are the origins
	// (as in LoadedOrigins) whose lines showed a family's own wording, at
	// most maxFamOrigins (aside.go, notTheServersOrigin).
	ManyOrigins bool        `json:"many_origins,omitempty"`
	FamOrigins  []famOrigin `json:"fam_origins,omitempty"`
	// FirstTpl is the template of the launch's first line (a program's
	// start banner): the same line again after an ERROR run is the program
	// started again, so the run was its last words (restartedAfterRun).
	FirstTpl string `json:"first_tpl,omitempty"`
	// Bound: a line said the server listens at an address (an announcement
	// that is not only advice, or an answered health request).
	Bound bool `json:"bound,omitempty"`
	// BoundUnloaded: the launch became ready at a bind with nothing loaded
	// before it; model loading right after takes that back (endpoint.go,
	// loadsAfterBind).
	BoundUnloaded bool `json:"bound_unloaded,omitempty"`
	// ServedAt is the last line that showed a request served (a serving
	// signature or an answered health request): a bind failure after it
	// does not take readiness back.
	ServedAt int64        `json:"served_at,omitempty"`
	Fam      famVotes     `json:"fam,omitempty"`
	G        grammarState `json:"g"` // the recognisers' own state (grammar.go)
}

type prevLine struct {
	N     int64     `json:"n,omitempty"`
	Seq   int64     `json:"seq,omitempty"`
	Src   string    `json:"src,omitempty"`
	Level string    `json:"level,omitempty"`
	Rank  string    `json:"rank,omitempty"`
	Time  time.Time `json:"time"`
	Body  string    `json:"body,omitempty"`
	Kind  LineKind  `json:"kind,omitempty"`
	Alarm int       `json:"alarm,omitempty"`
	// Benign: a benign signature says this ERROR line's wording is harmless
	// (a best-effort loader's failure): a traceback right after it is its
	// exc_info, logged as a warning.
	Benign bool `json:"benign,omitempty"`
	// Thread: the line is threading's "Exception in thread NAME:", the
	// intro of a traceback that killed a thread, not the process.
	Thread bool `json:"thread,omitempty"`
	// AuxThread: that thread's name says it only reports (usage,
	// telemetry, analytics, metrics, stats): see isAuxThreadDeath.
	AuxThread bool `json:"auxthread,omitempty"`
	// Intro: the line is a levelled record whose message ends in a colon
	// ("Failed to load flash-attention due to the following error:"): a
	// blank line after it is still its message (keepIntro).
	Intro bool `json:"intro,omitempty"`
}

// New returns the state of a launch that has seen no lines. server is the
// server family (sglang, vllm, tgi, trtllm, lmdeploy, ollama ...) if known,
// else "": the family is then detected from the lines. Options add taught
// signatures (WithSignatures).
func New(server string, opts ...Option) *State {
	server = strings.ToLower(strings.TrimSpace(server))
	s := &State{d: stateData{Server: server, Fixed: server != "", NextID: 1}, rs: defaultRules()}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Restore rebuilds a State saved with MarshalBinary, with the options it
// was made with (the state keeps no taught signature).
func Restore(data []byte, opts ...Option) (*State, error) {
	s := &State{rs: defaultRules()}
	for _, o := range opts {
		o(s)
	}
	if err := json.Unmarshal(data, &s.d); err != nil {
		return nil, fmt.Errorf("classify: restore state: %w", err)
	}
	if s.d.NextID < 1 {
		return nil, fmt.Errorf("classify: restore state: invalid next alarm id %d", s.d.NextID)
	}
	return s, nil
}

// MarshalBinary saves the state so a later batch can continue from it.
func (s *State) MarshalBinary() ([]byte, error) { return json.Marshal(&s.d) }

// LastSeq is the highest seq fed so far, 0 if none.
func (s *State) LastSeq() int64 { return s.d.Last }

// Server is the server family given to New, else the family the lines so
// far give the most evidence for (family.go), "" if unknown.
func (s *State) Server() string { return s.d.Server }

// Summary returns the classifier's view of the whole launch.
func (s *State) Summary() Summary {
	sum := Summary{LastSeq: s.d.Last, Alarms: s.d.NextID - 1, LiveAlarms: s.d.Alarms, FatalAlarms: s.d.Fatal, LastFatalSeq: s.d.LastFatal}
	sum.Endpoints = append([]string(nil), s.d.Endpoints...)
	if s.d.Ready != nil {
		r := *s.d.Ready
		sum.Ready = &r
	}
	for _, ev := range s.d.Events {
		if ev.live() && ev.A.Fatal && ev.A.FirstSeq > sum.LastFatalSeq {
			sum.LastFatalSeq = ev.A.FirstSeq
		}
		switch {
		case s.undecided(ev):
			sum.PendingRuns++ // waits for the next line or the stream's end
		case ev.live() && ev.A.Fatal && !ev.A.Settled:
			sum.PendingFatal++
		}
	}
	sum.PendingRuns += s.pendingRuns() // ERROR runs that SettleStreamEnd would make fatal
	if w := s.d.Announced; w != nil && w.Quiet {
		sum.PendingRuns++ // a readiness that a quiet end of the stream confirms
	}
	var cur *Phase
	for i := range s.d.Phases {
		if cur == nil || s.d.Phases[i].BeginSeq >= cur.BeginSeq {
			cur = &s.d.Phases[i]
		}
	}
	if cur != nil {
		sum.Phase, sum.PhaseDone, sum.PhaseTotal = cur.Name, cur.Done, cur.Total
	}
	return sum
}

// Feed classifies the next lines of the launch, which must come in ascending
// seq order after every line fed before; lines at or below LastSeq are ignored.
func (s *State) Feed(lines []Line) Result {
	var r Result
	s.FeedInto(&r, lines)
	r.mem = resultMem{} // the caller keeps r: nothing of it is reused
	return r
}

// FeedInto is Feed for a caller that is done with r, the Result of an
// earlier call (or a zero Result): it overwrites r and reuses its memory
// (the verdicts, alarms and phases, and the Config map), so that a stream
// fed in many calls does not allocate a Result for each. Keep nothing of r
// across the call but the Ready and Unready markers, which are new copies.
func (s *State) FeedInto(r *Result, lines []Line) {
	fb := feedBuf{mem: r.mem}
	fb.phases = fb.mem.phases[:0]
	if len(lines) > 0 {
		fb.reserve(len(lines))
	}
	// By index and pointer, as line hands l on: a Line is 72 bytes, and
	// copying it into each call measured in FeedInto's own samples.
	for i := range lines {
		l := &lines[i]
		if l.Seq <= s.d.Last {
			continue
		}
		s.line(&fb, l)
		s.d.Last = l.Seq
	}
	s.markSettled(&fb)
	fb.resultInto(r)
}

// line classifies one line.
func (s *State) line(fb *feedBuf, l *Line) {
	s.d.N++
	year := s.d.Year
	if !l.Time.IsZero() {
		year = s.yc.of(l.Time)
	}
	p := &s.lp
	*p = Prefix{}
	p.parseIn(l.Text, year, &s.ansi)
	if !p.Time.IsZero() {
		s.d.Year = s.yc.of(p.Time)
	}
	// Field by field: a composite literal is built in a temporary and
	// copied into v, whose 16-byte loads then wait on the 8-byte stores
	// just made.
	var v LineVerdict
	v.Seq, v.Kind, v.Level, v.Rank, v.Time = l.Seq, KindPlain, p.Level, p.Rank, p.Time
	at := l.Clock
	if at.IsZero() {
		at = p.Time
	}
	if at.IsZero() {
		at = l.Time
	}
	src := s.source(p)

	m := &s.lm
	*m = lineMatch{}
	s.match(p, m)
	if len(p.full) > 2 && p.full[0] == '^' && p.full[1] == 'C' && !strings.HasPrefix(p.Body, "^C") && !isShellPrompt(p.Body) {
		// The terminal's echo of Ctrl-C before the program's next line
		// (Prefix.parse reads the line after it): the operator's stop,
		// as signal.terminal-ctrl-c says of "^C" on a line's own. A
		// prompt after it ran another command (its "unless").
		m.shutdown = true
	}
	body := p.Body
	t := strings.TrimSpace(body)
	s.reconsiderTentative(fb, p, t, m)
	s.observeLine(p, t, m)

	s.classifyLine(fb, l, p, m, &v, at, src, t)
	s.endLine(fb, l, p, m, &v, src, t)
}

// classifyLine is line's decision for a line whose prefix and signatures
// are known: its kind, and the event it opens, continues or ends. It
// returns as soon as the line is placed; endLine then records it (a
// function, not a defer: a deferred call in a function with this many
// returns costs the runtime's defer machinery on every line).
func (s *State) classifyLine(fb *feedBuf, l *Line, p *Prefix, m *lineMatch, v *LineVerdict, at time.Time, src, t string) {
	body := p.Body
	if m.config != nil {
		fb.parseConfig(body[m.configAt:])
		v.Kind = KindConfig
		return
	}
	if m.payload {
		if ev := s.active(src); ev != nil && m.command {
			// The next command's output is its own: the event ends as
			// on a line it does not take.
			ev.St = stClosed
			s.threadCallFailed(fb, ev)
		}
		return
	}

	s.evidenceBefore(fb, l, p, m, src, t)

	// Lines that continue the event open on this source.
	if ev := s.active(src); ev != nil {
		switch s.consume(fb, ev, p, l.Seq, t, m) {
		case consumed:
			s.assign(fb, ev, v, at)
			s.d.CurSrc = src
			return
		case notYet:
		case ended:
			ev.St = stClosed
			s.threadCallFailed(fb, ev)
		}
	}

	if s.evidenceAfter(fb, l, p, m, v, at, src, t) {
		return
	}
	if len(m.phases) > 0 {
		for _, g := range m.phases {
			s.d.Phases.apply(fb, g, body, l.Seq, at)
		}
		v.Kind = KindProgress
		return
	}

	switch {
	case m.hint:
		if ev := s.recent(); ev != nil {
			s.assign(fb, ev, v, at)
		}
		return
	case m.builtin[litIgnored] && strings.HasPrefix(t, "Exception ignored in"):
		ev := s.startTeardown(fb, src, l.Seq, at)
		s.assign(fb, ev, v, at)
		s.d.CurSrc = src
		return
	case p.Embedded:
		ev := s.startEmbedded(fb, p, l.Seq, at, src, t, m)
		s.assign(fb, ev, v, at)
		s.tryMerge(fb, ev)
		return
	case s.openGrammar(fb, p, l.Seq, at, src, t, m, v):
		return
	}

	switch {
	case p.Level == "WARNING" || p.Level == "ERROR" || p.Level == "CRITICAL" || p.Level == "FATAL":
		v.Kind = KindWarning
	case isProgressLine(m):
		v.Kind = KindProgress
	}
}

// evidenceBefore is what a line says about the events before it, whatever
// grammar takes it: a bind failure right after the readiness announced
// takes that back; a retry line right after a traceback withdraws it.
func (s *State) evidenceBefore(fb *feedBuf, l *Line, p *Prefix, m *lineMatch, src, t string) {
	if m.unready && s.d.Ready != nil {
		// Counted from where the failure's report began: a traceback
		// whose final line says the bind failed began right after the
		// banner that announced the address.
		from := l.Seq
		if ev := s.active(src); ev != nil && ev.A.FirstSeq > s.d.Ready.Seq {
			from = ev.A.FirstSeq
		}
		if from-s.d.Ready.Seq <= unreadyWindow && s.d.ServedAt <= s.d.Ready.Seq {
			s.takeBackReady(fb)
		}
	}
	if s.d.Ready == nil && s.d.Fatal > 0 {
		s.wordsNotLast(fb, l.Seq, src, m, t)
	}
	s.reloadedAfterDeath(src, m, t)
	s.restartedAfterRun(fb, p, m, src, t)
	if s.loadsAfterBind(l.Seq, m, t) {
		s.d.BoundUnloaded = false
		s.takeBackReady(fb)
	}
	if s.d.Ready != nil && s.d.ServedAt <= s.d.Ready.Seq && s.d.Fatal == 0 && !familiesWithReadiness[s.d.Server] && unavailableAnswered(t) {
		// A request answered 503 before any was served: the server that
		// said it was up is not ready yet (Truss, Cog and BentoML start
		// uvicorn, then load the model; their readiness probes say so).
		// A probe answered 2xx makes it ready (announcedReady). After a
		// fatal alarm a 503 is that death's consequence: the readiness
		// before it stands.
		s.takeBackReady(fb)
	}
	if t == "" {
		return
	}
	if s.d.Alarms > 0 && clientErrorAnswered(t) && s.answerableJustBefore() {
		s.handledRequestErrors(fb, src)
	}
	for _, ev := range s.d.Events {
		if ev.Await >= s.d.N && ev.Src == src {
			if m.retry && !isRootCauseKind(ev.A.Kind) || s.wentOnWithout(ev, p, m, t) {
				s.withdraw(fb, ev)
			}
			ev.Await = 0
		}
	}
}

// wentOnWithout reports the line right after a network call's traceback
// (event.Net) that a logger's ERROR record introduced (event.Logged:
// logger.exception, where the exception was caught), before readiness,
// when it is the same source's ordinary work at INFO or DEBUG: the
// program went on without what it fetched (Wyoming Piper falling back to
// its bundled voices list when it cannot update it), as a retry line says
// it tries again. A traceback Python printed as the process died has no
// such record; one whose handler stops the program goes on to a stop line.
func (s *State) wentOnWithout(ev *event, p *Prefix, m *lineMatch, t string) bool {
	if ev.Net != netOnly || !ev.Logged || s.d.Ready != nil || m.best != nil || m.follow != nil || m.shutdown || m.ending {
		return false
	}
	return (p.Level == "INFO" || p.Level == "DEBUG") && !stopSet.in(head(t))
}

// evidenceAfter is what a line no open event took says about the launch:
// a request served (the failures before it survived), a child's death
// its parent outlived, what dooms the process, a supervisor's child, the
// operator's stop, readiness. It reports whether the line was placed (a
// readiness line).
func (s *State) evidenceAfter(fb *feedBuf, l *Line, p *Prefix, m *lineMatch, v *LineVerdict, at time.Time, src, t string) bool {
	if m.serving || m.announce.health {
		s.d.ServedAt = l.Seq
	}
	if m.serving {
		s.survived(fb, src)
		s.d.G.servedOn(src)
		if s.servingReady() {
			v.Kind = KindReady
			s.becomeReady(fb, *v, at, src)
			return true
		}
	}
	if m.survivor {
		s.outlived(fb, l.Seq)
	}
	if m.dooms {
		s.doomedBefore(fb)
	}
	if (m.best != nil && (m.best.Kind == AlarmSignal || m.conseq)) || (m.follow != nil && m.follow.Kind == AlarmSignal) {
		s.doomed()
	}
	s.notePrograms(m, p.Body)
	if m.spawn || s.d.Spawned {
		// Which lines are the supervisor's own (waitsForParent): those in
		// the prefix shape of the line that started a child.
		shape := prefixShape(p)
		if m.spawn {
			s.d.Spawned, s.d.SpawnShape = true, shape
		}
		if shape == s.d.SpawnShape {
			s.d.ParentN = s.d.N
		}
	}
	prompt := isShellPrompt(p.Body)
	if prompt {
		s.d.Prompt = l.Seq
	}
	if s.d.Fatal > 0 && (prompt || m.restart || m.spawn || s.bannerAgain(p)) {
		s.d.Restart = l.Seq
	}
	if m.shutdown && s.d.Shutdown == 0 && !s.stopsAfterFailure(l.Seq, p.Body) {
		s.d.Shutdown = l.Seq
	} else if s.d.Shutdown != 0 && s.d.Shutdown == s.d.Prev.Seq && strings.TrimSpace(s.d.Prev.Body) == "^C" && reShellCommand.MatchString(p.Body) {
		// The Ctrl-C ended a command the operator was watching with
		// (`kubectl get pods -w`, `tail -f`): the prompt right after it
		// runs another, whose output is no teardown.
		s.d.Shutdown = 0
	}
	if (m.ready != nil || m.announce.ok) && s.aside(p, m, src, t) {
		return false // a database's, a bus's or a web UI's readiness: not the launch's
	}
	if m.ready != nil {
		s.addEndpoint(m.announce.endpoint) // "Serving on http://...": probed too
		s.readyEvidence(m.ready.Family)
		if m.ready.BeforeBind && s.awaitBind(v, at, src) {
			return true
		}
		v.Kind = KindReady
		if s.d.Ready == nil {
			s.becomeReady(fb, *v, at, src)
		}
		return true
	}
	if !m.announce.ok {
		s.addEndpoint(m.announce.endpoint) // an address before its bind ("" for none)
		return false
	}
	if workerTask(p.Origin) {
		return false
	}
	return s.announcedReady(fb, v, at, src, &m.announce)
}

// stopsAfterFailure reports a shutdown line (body, at seq) that is a
// failed server's own teardown, no operator's stop:
//   - systemd's "Stopping UNIT..." within a few lines of an OOM kill the
//     launch reported: systemd stops a unit itself when the kernel
//     OOM-kills one of its processes (OOMPolicy=stop, its default), and the
//     unit's "Failed with result 'oom-kill'" after it is the launch's
//     failure, not teardown;
//   - uvicorn's bare "Shutting down" within followWindow lines of a fatal
//     alarm: the app died (its engine's traceback, "engine is already
//     dead, terminating server process") and the server goes down with
//     it, no signal named; the supervisor's exit report after it is the
//     launch's.
func (s *State) stopsAfterFailure(seq int64, body string) bool {
	oomStop := strings.HasPrefix(body, "Stopping ")
	if !oomStop && strings.TrimSpace(body) != "Shutting down" {
		return false
	}
	for _, ev := range s.d.Events {
		if ev.A.ID == 0 || ev.A.Withdrawn {
			continue
		}
		if oomStop && ev.A.Kind == AlarmOOM && seq-ev.A.LastSeq <= 5 ||
			!oomStop && ev.A.Fatal && seq-ev.A.LastSeq <= followWindow {
			return true
		}
	}
	return false
}

// reShellCommand is a shell prompt with a command after it: "$ cmd",
// "user@host:~/dir$ cmd", "[user@host dir]$ cmd", "(venv) user@host:~$ cmd",
// "PS C:\\work> cmd".
var reShellCommand = regexp.MustCompile(`^(?:\([\w.-]+\)\s+)?(?:[\w.-]+@[\w.-]+(?::\S*)?|\[[\w.-]+@[\w.-]+[^\]]*\])?[$#]\s+\S|^PS [A-Z]:\\[^>]*>\s+\S`)

// bannerAgain reports the launch's first line (its program's start
// banner, FirstTpl) printed again: the program started once more (a
// container restarted by its restart policy prints nothing else). The
// template is made only for a line that starts as the banner does.
func (s *State) bannerAgain(p *Prefix) bool {
	tpl, t := s.d.FirstTpl, p.Body
	if tpl == "" || t == "" || t[0] != tpl[0] || p.Level != "" && p.Level != "INFO" || indented(t) {
		return false
	}
	return Template(truncate(t, maxBannerTemplate)) == tpl
}

// handledRequestErrors withdraws the errors just before an access log's
// 4xx answer on the same origin that the answer shows were a request's
// (answerable): the server caught the request's failure, logged it (an
// ERROR line, logger.exception's traceback: "Error in preprocessing prompt
// inputs", a gateway's timeout reaching its backend) and told the client
// what went wrong with its request. That is a handled rejection, bait as
// the corpus labels it; an unhandled exception is answered 500 ("Exception
// in ASGI application") and stays an alarm.
func (s *State) handledRequestErrors(fb *feedBuf, src string) {
	o := originOf(src)
	for _, ev := range s.d.Events {
		if s.answerable(ev) && ev.LastN >= s.d.N-answerWindow && ev.LastN < s.d.N && originOf(ev.Src) == o {
			s.withdraw(fb, ev)
		}
	}
}

// answerable reports an error an answer right after it can show was one
// request's: a survived (non-fatal) alarm, or a traceback while serving
// whose fate is still open (awaitsEvidence) that ended in a network
// failure (a gateway's call to its backend timed out, and it answers 408
// or 504): the process that answers is alive, and the failed call was that
// request's.
func (s *State) answerable(ev *event) bool {
	if !ev.live() {
		return false
	}
	return !ev.A.Fatal || ev.NetExc && s.awaitsEvidence(ev) && ev.St != stFrames
}

// answerableJustBefore reports an answerable error that ended within
// answerWindow lines: only then can an answer withdraw one. Events are
// kept in the order they opened, and an older one may have taken a later
// line than a newer one, so every kept event is looked at.
func (s *State) answerableJustBefore() bool {
	for i := len(s.d.Events) - 1; i >= 0; i-- {
		ev := s.d.Events[i]
		if ev.LastN < s.d.N-answerWindow {
			continue
		}
		if s.answerable(ev) {
			return true
		}
	}
	return false
}

// answerWindow is how many lines after a request's error its answer may
// come (other requests' lines between).
const answerWindow = 4

// clientErrorAnswered reports an access log's 4xx answer (uvicorn's
// `"POST /v1/chat/completions HTTP/1.1" 400 Bad Request`, key=value
// `status=404`, llama.cpp's `| status 400 |`, gin's `| 499 |`: the client
// gave up), 429 aside: throttling says nothing of the request.
func clientErrorAnswered(t string) bool {
	if i := strings.Index(t, `" 4`); i >= 5 && strings.Contains(t[max(0, i-12):i], "HTTP/") {
		return is4xx(t[i+2:])
	}
	if i := strings.Index(t, "| 4"); i >= 0 && is4xx(t[i+2:]) && strings.HasPrefix(t[i+5:], " |") {
		return true // gin's "| 499 |      1.702s | 10.0.0.5 | POST "/api/chat""
	}
	for _, k := range [...]string{"status=4", "status 4", "status: 4"} {
		if i := strings.Index(t, k); i >= 0 && (i == 0 || !isWordByte(t[i-1])) {
			return is4xx(t[i+len(k)-1:])
		}
	}
	return false
}

// is4xx reports a status code 4xx but 429 at the start of s.
func is4xx(s string) bool {
	if len(s) < 3 || s[0] != '4' || !isDigit(s[1]) || !isDigit(s[2]) || len(s) > 3 && isDigit(s[3]) {
		return false
	}
	return s[:3] != "429"
}

// isShellPrompt reports a shell prompt with a command after it
// (reShellCommand), testing the regular expression only on lines with a
// prompt's mark.
func isShellPrompt(body string) bool {
	return (strings.Contains(body, "$ ") || strings.Contains(body, "# ") || strings.HasPrefix(body, "PS ")) &&
		reShellCommand.MatchString(body)
}

// operatorCommandFailed reports a failure printed after the launch was
// ready and the operator then typed another command at the shell's prompt
// (a CLI that asks the running server to load a model, a curl): that
// command's failure, which the server lives on after, not the server's.
func (s *State) operatorCommandFailed() bool {
	return s.d.Ready != nil && s.d.Prompt > s.d.Ready.Seq
}

// workerTask reports whether origin is a task of `srun --label` other than
// task 0 (peelSrunLabel). A job's service runs in its first task; the
// others are workers, and the sockets they listen on are for the first
// task to connect to (distributed-llama's workers say "Listening on
// 0.0.0.0:9999..." before the root even starts), not the launch's API.
func workerTask(origin string) bool {
	n, ok := strings.CutPrefix(origin, "task")
	return ok && n != "0" && n != ""
}

// endLine records the line classifyLine placed: the cause link of a
// consequence, the events that retire, and the line as the previous one.
func (s *State) endLine(fb *feedBuf, l *Line, p *Prefix, m *lineMatch, v *LineVerdict, src, t string) {
	if m.conseq && v.Alarm != 0 {
		if ev := s.byID(v.Alarm); ev != nil && ev.A.Cause == 0 {
			s.linkCause(ev)
			if ev.A.Cause == 0 && ev.A.FirstSeq == l.Seq {
				s.adoptLastWords(fb, ev, src)
			}
			fb.touch(ev)
		}
	}
	s.retire(fb)
	s.afterAnnouncement(fb, p, m, v, src, t)
	benign := s.continuesBenign(p, src, m, v.Alarm)
	// Every field of prevLine, one by one: a composite literal is built in
	// a temporary, zeroed, then copied with its write barriers, on every
	// line (TestPrevLineFields counts the fields this must set).
	pr := &s.d.Prev
	if t == "" && pr.Intro && pr.N == s.d.N-1 && !p.Tagged && v.Alarm == 0 {
		// A blank line inside a record that introduces what follows
		// ("...due to the following error:\n\n" + the traceback): the
		// record stays the line just before, for the traceback it
		// introduces (startTraceback, benign).
		pr.N = s.d.N
		fb.add(*v)
		return
	}
	pr.N, pr.Seq = s.d.N, l.Seq
	pr.Src, pr.Level, pr.Rank, pr.Time = src, p.Level, p.Rank, p.Time
	pr.Body = ""
	switch {
	case v.Alarm != 0:
	case p.Level == "ERROR" || p.Level == "CRITICAL" || p.Level == "FATAL":
		pr.Body = clean(t, maxPrevBody) // a traceback may follow and make it the headline
	case p.Level == "" && v.Kind == KindPlain:
		pr.Body = truncate(t, maxPrevBody) // a supervisor may report its death next (adoptLastWords)
	}
	pr.Kind, pr.Alarm = v.Kind, v.Alarm
	pr.Benign, pr.Thread, pr.AuxThread = benign, isPyThreadDeath(t), isAuxThreadDeath(t)
	pr.Intro = p.Level != "" && v.Alarm == 0 && strings.HasSuffix(t, ":")
	fb.add(*v)
}

// lineMatch is what the signatures say about one line.
type lineMatch struct {
	builtin  [numBuiltins]bool
	best     *Signature // the highest-priority alarm signature
	follow   *Signature
	config   *Signature
	configAt int // where the configuration starts in the body
	ready    *Signature
	phases   []*Signature
	retry    bool
	// transient: a frame in a network client library, or an exception
	// naming a network failure (RoleTransient).
	transient bool
	shutdown  bool
	serving   bool
	hint      bool         // advice printed with an error: never starts an event
	payload   bool         // a request or response logged with its content: user data
	command   bool         // payload that starts a command's output (Signature.Command)
	conseq    bool         // an alarm signature says the line reports another process's failure
	survivor  bool         // an alarm signature says a parent reports its child's death and lives on
	dooms     bool         // a signature says the failures reported before brought the process down
	unready   bool         // a signature says the server never began to serve
	benign    bool         // a level signature says an ERROR/CRITICAL line is harmless
	ending    bool         // the line says the process is ending
	spawn     bool         // a supervisor or proxy starts a child process (RoleSpawn)
	restart   bool         // a supervisor starts the program again (RoleRestart)
	announce  announcement // the line announces a listening endpoint (endpoint.go)
	request   *Signature   // the highest survived (request-level) alarm signature (finish)
}

// match fills the zero m with what the signatures say about the line.
func (s *State) match(p *Prefix, m *lineMatch) {
	if s.d.PayloadDoc > 0 && s.inPayloadDoc(p) {
		m.payload = true
		return
	}
	// A long line that starts as a configuration dump is one: skip scanning
	// its megabytes for signatures.
	if len(p.Body) > longLine {
		if g, at := s.rs.configAt(p.Body[:longLine/2]); g != nil {
			m.config, m.configAt = g, at
			return
		}
	}
	// The prefix only matters to detect the server family (vLLM's
	// "(EngineCore pid=1)", "[TensorRT-LLM]"); once known, scan the body.
	if s.d.Server == "" {
		s.rs.scan(p.full, &s.h)
	} else {
		s.rs.scan(p.Body, &s.h)
	}
	m.builtin = s.h.builtin
	if s.h.endpoint {
		if s.d.Ready != nil && s.d.Bound {
			m.announce = announcedAfterReady(p.Body, len(s.d.Endpoints) >= maxEndpoints)
		} else {
			m.announce = announcedEndpoint(p.Body)
		}
	}
	if len(p.Body) <= len("Started.") && p.Tagged && !m.announce.ok {
		// "Ready" passes the endpoint prefilter ("ready") and is no
		// statement of the kinds announcedEndpoint reads.
		m.announce = bareStartedLine(p.Body)
	}
	s.observeFamily(p)
	if len(s.h.sigs) == 0 {
		return
	}
	awaiting := false
	for _, ev := range s.d.Events {
		if ev.Await >= s.d.N {
			awaiting = true
		}
	}
	for _, si := range s.h.sigs {
		g := s.rs.sigs[si]
		if !s.canMatter(g, p, awaiting) || !g.confirm(p, g.scopeFor(s.d.Server)) {
			continue
		}
		if g.Role == RolePhase && m.phases == nil {
			m.phases = s.phaseBuf[:0] // reused line after line: only this line reads it
		}
		m.add(g, p)
	}
	if m.finish(p) && opensDocument(p.Body) {
		s.d.PayloadDoc = 1
	}
}

// canMatter reports whether a signature the literals found can say
// anything about the line now: only those are confirmed (their regular
// expressions run).
func (s *State) canMatter(g *Signature, p *Prefix, awaiting bool) bool {
	switch {
	case g.Role == RoleDetect,
		g.Role == RoleRetry && !awaiting,
		g.Role == RoleServing && len(s.d.Events) == 0 && len(s.d.G.Runs) == 0 && len(s.d.G.Served) > 0,
		g.Role == RoleTransient && len(s.d.Events) == 0,
		(g.Role == RoleBenign || g.Role == RoleTerminate) && g.Levels == nil && !s.levelMatters(p):
		return false
	}
	return true
}

// add records what a confirmed signature says about the line.
func (m *lineMatch) add(g *Signature, p *Prefix) {
	switch g.Role {
	case RoleAlarm:
		m.conseq = m.conseq || g.Consequence
		m.survivor = m.survivor || g.Survivor
		m.dooms = m.dooms || g.Dooms
		m.unready = m.unready || g.Unready
		// At equal priority a family's own signature outranks a generic
		// one: it knows whether that server survives the failure
		// (Xinference's relayed "[address=...] CUDA out of memory").
		if m.best == nil || g.Priority > m.best.Priority ||
			g.Priority == m.best.Priority && len(g.Servers) > 0 && len(m.best.Servers) == 0 {
			m.best = g
		}
		if !g.IsFatal() && (m.request == nil || g.Priority > m.request.Priority) {
			m.request = g
		}
	case RoleFollow:
		m.follow = g
		m.dooms = m.dooms || g.Dooms
	case RoleConfig:
		if m.config == nil {
			if at := literalEnd(p.Body, g); at >= 0 {
				m.config, m.configAt = g, at
			}
		}
	case RoleReady:
		m.ready = g
	case RolePhase:
		m.phases = append(m.phases, g)
	case RoleRetry:
		m.retry = true
	case RoleTransient:
		m.transient = true
	case RoleShutdown:
		m.shutdown = true
	case RoleServing:
		m.serving = true
		m.survivor = m.survivor || g.Survivor
	case RoleHint:
		m.hint = true
	case RolePayload:
		m.payload = true
		m.command = m.command || g.Command
	case RoleBenign:
		m.benign = true
	case RoleTerminate:
		m.ending = true
	case RoleSpawn:
		m.spawn = true
	case RoleRestart:
		m.restart = true
	}
}

// finish weighs what the signatures said against each other once all of
// them are in, and reports whether the line is payload.
func (m *lineMatch) finish(p *Prefix) bool {
	if b := m.best; b != nil && m.request != nil && b.IsFatal() && !killsProcess(b) {
		// One request's failure report quoting its cause ("Exception
		// calling application: CUDA out of memory"): the request failed,
		// as it would had the cause come on the traceback's last line.
		m.best = m.request
	}
	if m.payload {
		// A prompt or a generated text may quote a traceback, a CUDA error
		// or a readiness line: none of it is the server's own.
		*m = lineMatch{payload: true, command: m.command}
		return true
	}
	if m.hint || isTableRow(p.Body) {
		// "Search for `cudaErrorAssert' in ..." names an error but only
		// explains the one just printed; a row of a status table (Triton's
		// model table) quotes an error already reported above it.
		m.best, m.follow, m.conseq, m.survivor = nil, nil, false, false
	}
	return false
}

// killsProcess reports a fatal signature whose failure ends the process
// whatever reported it: a CUDA or NCCL error, a signal, a death report.
// (setHeadline lets the same outweigh a survived intro.)
func killsProcess(g *Signature) bool {
	return g.Kind == AlarmCUDA || g.Kind == AlarmNCCL || g.Kind == AlarmSignal || g.Consequence
}

// maxPayloadDoc bounds the lines a payload document may take: a document
// that never closes stops hiding lines after it.
const maxPayloadDoc = 4096

// opensDocument reports a payload line that ends by opening a JSON object
// or array whose members follow on lines of their own (LM Studio's
// "Received POST request to /v1/chat/completions with body: {").
func opensDocument(body string) bool {
	t := strings.TrimRight(body, " \t")
	return t != "" && (t[len(t)-1] == '{' || t[len(t)-1] == '[')
}

// inPayloadDoc reports whether the line belongs to the payload document
// open on the launch, and closes it at its last line: the indented lines
// without a logger's prefix (the document's members) up to the bracket
// that closes it in the first column ("}"). A line with a prefix, or any
// other line in the first column (a traceback's header), is what comes
// after the document: it ended.
func (s *State) inPayloadDoc(p *Prefix) bool {
	b := strings.TrimRight(p.Body, " \t,")
	if b == "}" || b == "]" {
		s.d.PayloadDoc = 0
		return !p.Tagged
	}
	if p.Tagged || !indented(p.Body) || s.d.PayloadDoc >= maxPayloadDoc {
		s.d.PayloadDoc = 0
		return false
	}
	s.d.PayloadDoc++
	return true
}

// isTableRow reports a row of a text table: "| tensorrt_llm | 1 | UNAVAILABLE: ... |".
func isTableRow(body string) bool {
	t := strings.TrimSpace(body)
	return len(t) > 2 && t[0] == '|' && t[len(t)-1] == '|'
}

// recent is the latest live event that ended within followWindow lines.
func (s *State) recent() *event {
	for i := len(s.d.Events) - 1; i >= 0; i-- {
		ev := s.d.Events[i]
		if ev.LastN >= s.d.N-followWindow && !ev.Silent {
			return ev
		}
	}
	return nil
}

// active is the latest unfinished event on src.
func (s *State) active(src string) *event {
	for i := len(s.d.Events) - 1; i >= 0; i-- {
		if ev := s.d.Events[i]; ev.Src == src && ev.St != stClosed {
			return ev
		}
	}
	return nil
}
