package classify

import (
	"strings"
	"time"
)

// evState is where an event's grammar is.
type evState int

const (
	stClosed   evState = iota
	stSingle           // a signature line; a traceback or logging-error dump may follow
	stFrames           // inside a Python traceback
	stAfterExc         // after a final exception line: message lines, chaining or a re-raise may follow
	stChain            // after "During handling ..." or "Process X:": a traceback header follows
	stCpp              // a C++ abort dump: frames, what(), "Exception raised from"
)

// event is one error event being read, and the alarm it makes.
type event struct {
	A         Alarm       `json:"a"`
	Src       string      `json:"src,omitempty"`
	St        evState     `json:"st"`
	Prio      int         `json:"prio"`
	KindPrio  int         `json:"kprio"`
	Level     string      `json:"level,omitempty"` // level of the final exception line
	PrevFile  bool        `json:"pf,omitempty"`
	Cont      int         `json:"cont,omitempty"`
	Blanks    int         `json:"blanks,omitempty"`
	LogErr    bool        `json:"logerr,omitempty"`
	Await     int64       `json:"await,omitempty"` // line count until which a retry line withdraws the event
	LastN     int64       `json:"last_n"`
	Silent    bool        `json:"silent,omitempty"` // benign: lines are warnings, no alarm
	Alias     int         `json:"alias,omitempty"`  // merged into this alarm
	Untracked bool        `json:"untracked,omitempty"`
	Ranges    []lineRange `json:"ranges,omitempty"`
	Srcs      []string    `json:"srcs,omitempty"`
	Fixed     bool        `json:"fixed,omitempty"`     // Fatal was set by a signature
	Signalled bool        `json:"signalled,omitempty"` // a signal or process death is part of the event
	Alive     int         `json:"alive,omitempty"`     // requests served after the event
	// Reloaded: after this death reported while serving, its origin loaded
	// a model again (State.reloadedAfterDeath).
	Reloaded bool `json:"reloaded,omitempty"`
	// Replicas: requests other tasks of the same job step served after
	// this task's death (replicaDeathOutlived).
	Replicas  int  `json:"replicas,omitempty"`
	JoinTo    int  `json:"join,omitempty"` // a teardown event whose lines belong to this earlier alarm
	WarnIntro bool `json:"wi,omitempty"`   // silent only because a WARNING line introduced it
	Frames    int  `json:"fr,omitempty"`   // traceback frames read
	Tentative bool `json:"tent,omitempty"` // promoted by SettleStreamEnd: withdrawn if the stream goes on
	Sub       int  `json:"sub,omitempty"`  // a recogniser's sub-state (grammar_*.go)
	// NetFrame: the traceback frame read last is inside a network client
	// library; Net: what its exception lines showed so far (netNone,
	// netOnly: network failures under such frames, netOther). See undecided.
	NetFrame bool `json:"nf,omitempty"`
	Net      int  `json:"net,omitempty"`
	// NetExc: the traceback's last exception line names a network failure
	// (a timeout, a refused or dropped connection), raised in any frame.
	NetExc bool `json:"nexc,omitempty"`
	// Logged: a logger's ERROR record introduced the traceback
	// (logger.exception, called where the exception was caught).
	Logged bool `json:"logged,omitempty"`
	// Thread: threading's "Exception in thread NAME:" introduced the
	// traceback: it killed one thread, not the process.
	Thread bool `json:"thr,omitempty"`
	// Beside: the event opened on a line of a service beside the launch's
	// server (aside.go, besideServer): never fatal to the launch.
	Beside bool `json:"beside,omitempty"`
	// AuxThread: and that thread only reported (prevLine.AuxThread).
	AuxThread bool `json:"athr,omitempty"`
	// Interrupt: a frame of the traceback is a signal handler, or raises
	// KeyboardInterrupt: a signal is being turned into an exception, and
	// until its exception line says otherwise the traceback is an
	// operator's stop being reported, not a failure (see undecided).
	Interrupt bool `json:"intr,omitempty"`
	// Worked: a frame read so far does the program's own work, by its
	// source line; CurWork: the frame being read does.
	// A traceback whose frames only enter the program, run its event loop
	// and wait (poll, sleep, join) says nothing yet of a failure: that is
	// where a signal finds a main thread (see undecided).
	Worked  bool `json:"wk,omitempty"`
	CurWork bool `json:"cwk,omitempty"`
	// Waits: a frame read so far blocks (blockingCall): until its
	// exception line says what was raised, the traceback may be a signal's
	// KeyboardInterrupt reaching a process that waited (see undecided).
	Waits bool `json:"waits,omitempty"`
	// DynImport: a frame read so far is importlib's, or its source line
	// imports by name (isDynamicImport): the program imports a module at
	// run time (importlib.import_module, a loader's exec_module), as plugin
	// and extension loaders do. A plain import statement that fails shows
	// neither.
	DynImport bool `json:"dimp,omitempty"`
	// Spawned: the event came after a supervisor or proxy started a child
	// (stateData.Spawned): it may be that child's failure, which the
	// parent would report next (see undecided).
	// Words: the event is a line that reads as a program's last words
	// ("error: ...") and nothing else: no signature named a failure. A
	// server that serves on after it was reporting one request's failure
	// it handled (see survived).
	Words   bool  `json:"words,omitempty"`
	Spawned bool  `json:"spawned,omitempty"`
	SpawnN  int64 `json:"spawn_n,omitempty"` // the line count when it opened
	// Shape is the prefix shape of the line that opened the event, when it
	// had a prefix (prefixShape): a report in another logger's format is
	// another program's (a supervisor's), not a line of this event.
	Shape string `json:"shape,omitempty"`
}

// What the exception lines of an event showed so far (event.Net).
const (
	netNone  = iota // no exception line yet
	netOnly         // only network failures raised inside network client code
	netOther        // anything else, or a root cause: never retryable again
	// netImport: only a failed import of a module that the program loads
	// by name at run time (event.DynImport): a plugin, extension or custom
	// node that its loader may well skip, as a line right after it says
	netImport
)

// lineRange is a run of consecutively fed lines of an event with the same
// prefix, kept so that the lines can be revised if the event is withdrawn or
// merged.
type lineRange struct {
	From  int64     `json:"f"`
	To    int64     `json:"t"`
	Level string    `json:"l,omitempty"`
	Rank  string    `json:"r,omitempty"`
	Time  time.Time `json:"tm"`
}

func (ev *event) live() bool { return ev.A.ID != 0 && !ev.A.Withdrawn && !ev.Silent }

// addRange records seq; prevSeq is the seq fed just before (-1 if unknown).
func (ev *event) addRange(seq int64, level, rank string, t time.Time, prevSeq int64) {
	if ev.Untracked {
		return
	}
	if n := len(ev.Ranges); n > 0 {
		r := &ev.Ranges[n-1]
		if r.To == prevSeq && seq == r.To+1 && r.Level == level && r.Rank == rank && r.Time.Equal(t) {
			r.To = seq
			return
		}
	}
	if len(ev.Ranges) >= maxRanges {
		ev.Untracked = true
		ev.Ranges = nil
		return
	}
	ev.Ranges = append(ev.Ranges, lineRange{From: seq, To: seq, Level: level, Rank: rank, Time: t})
}

type consumeResult int

const (
	ended    consumeResult = iota // the line is not part of the event, which is over
	consumed                      // the line is part of the event
	notYet                        // not part of it, but the event may go on (a blank line)
)

// consume decides whether a line on the event's source continues it.
func (s *State) consume(fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	if r, ok := s.takeover(ev, p, seq, t, m); ok {
		return r
	}
	if c := consumerOf(ev.St); c != nil {
		return c(s, fb, ev, p, seq, t, m)
	}
	return ended // stClosed, or a state an older classifier saved
}

// newEvent opens an event; a silent event makes no alarm.
func (s *State) newEvent(fb *feedBuf, src string, seq int64, at time.Time, silent bool) *event {
	ev := &event{Src: src, St: stSingle, LastN: s.d.N, Silent: silent, Prio: -1, KindPrio: -1}
	// After a supervisor started a child, a failure printed under another
	// prefix than the supervisor's own may be the child's (see undecided).
	// s.lp is the line being read.
	if s.lp.Tagged || s.d.Spawned {
		shape := prefixShape(&s.lp)
		if s.lp.Tagged {
			ev.Shape = shape
		}
		if s.d.Spawned && shape != s.d.SpawnShape {
			ev.Spawned, ev.SpawnN = true, s.d.N
		}
	}
	ev.Beside = s.besideServer(&s.lp)
	ev.A = Alarm{FirstSeq: seq, LastSeq: seq, Kind: AlarmTraceback, Fatal: !ev.Beside, Ranks: 1, Time: at}
	if !silent {
		ev.A.ID = s.d.NextID
		s.d.NextID++
		s.d.Alarms++
		if ev.A.Fatal {
			s.d.Fatal++
		}
		if src != "" {
			ev.Srcs = []string{src}
		}
		fb.touch(ev)
	}
	s.d.Events = append(s.d.Events, ev)
	return ev
}

// prefixShape is the shape of the line's prefixes (what precedes its body):
// each run of letters becomes "a", each run of digits "0", other bytes
// stay, so that two lines of one logger's format have one shape whatever
// their time and level ("[a] " for "[ERROR] " and "[INFO] ").
func prefixShape(p *Prefix) string {
	pre := p.full
	if len(p.Body) <= len(pre) && strings.HasSuffix(pre, p.Body) {
		pre = pre[:len(pre)-len(p.Body)]
	}
	if len(pre) > 64 {
		pre = pre[:64]
	}
	b := make([]byte, 0, len(pre))
	for i := 0; i < len(pre); i++ {
		c := pre[i]
		switch {
		case c >= '0' && c <= '9':
			c = '0'
		case c|0x20 >= 'a' && c|0x20 <= 'z':
			c = 'a'
		}
		if n := len(b); n > 0 && (c == 'a' || c == '0') && b[n-1] == c {
			continue
		}
		b = append(b, c)
	}
	return string(b)
}

// setHeadline offers a headline candidate of the given priority; the highest
// priority wins and among equals the later line (the last exception of a chain).
func (s *State) setHeadline(ev *event, t string, seq int64, prio int, g *Signature) {
	changed := false
	if prio >= ev.Prio {
		ev.Prio = prio
		ev.A.Headline = clean(strings.TrimSpace(t), maxHeadline)
		ev.A.HeadlineSeq = seq
		ev.A.Template = Template(ev.A.Headline)
		changed = true
	}
	if g != nil {
		if g.Kind == AlarmSignal {
			ev.Signalled = true
		}
		if g.Priority >= ev.KindPrio {
			ev.A.Kind, ev.KindPrio = g.Kind, g.Priority
			changed = true
		}
		fatal := g.IsFatal()
		switch {
		case !ev.Fixed:
			ev.Fixed = true
			s.setFatal(ev, fatal)
		case fatal && !ev.A.Fatal && killsProcess(g):
			// A root cause that kills the process, or a line saying a
			// process or engine died, outweighs an intro that only said
			// the error was reported and survived.
			s.setFatal(ev, true)
		}
	}
	if g != nil && g.Kind == AlarmSignal && ev.A.Fatal && s.victimOutlived(ev, t) {
		s.setFatal(ev, false)
		ev.Signalled = false
	}
	if changed {
		ev.A.Fingerprint = Fingerprint(ev.A.Kind, ev.A.Template)
	}
}

// victimOutlived reports a kernel OOM report's victim line (t: "Out of
// memory: Killed process N (name)") whose pid an earlier alarm the launch
// survived names ("Worker (pid:N) was sent SIGKILL!"): the kernel's
// report, pasted from dmesg after the server's log, is the same death the
// parent already reported and outlived, not a second one.
func (s *State) victimOutlived(ev *event, t string) bool {
	_, rest, ok := strings.Cut(t, "Killed process ")
	if !ok {
		return false
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 {
		return false
	}
	pid := rest[:n]
	for _, other := range s.d.Events {
		if other != ev && other.live() && !other.A.Fatal && other.A.LastSeq < ev.A.FirstSeq && namesNumber(other.A.Headline, pid) {
			return true
		}
	}
	return false
}

// namesNumber reports whether text holds num as a whole number (no digit
// on either side).
func namesNumber(text, num string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], num)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(num)
		if (j == 0 || !isDigit(text[j-1])) && (end == len(text) || !isDigit(text[end])) {
			return true
		}
		i = j + 1
	}
}

// assign makes the current line part of ev.
func (s *State) assign(fb *feedBuf, ev *event, v *LineVerdict, at time.Time) {
	ev.LastN = s.d.N
	ev.Blanks = 0
	ev.addRange(v.Seq, v.Level, v.Rank, v.Time, s.d.Prev.Seq)
	if v.Seq < ev.A.FirstSeq {
		ev.A.FirstSeq = v.Seq
	}
	if ev.JoinTo != 0 {
		s.joinLine(fb, ev, v)
		return
	}
	if ev.Silent || ev.A.ID == 0 {
		v.Kind = KindWarning
		return
	}
	v.Kind = KindError
	if ev.Alias != 0 {
		v.Alarm = ev.Alias
		if o := s.byID(ev.Alias); o != nil {
			if v.Seq > o.A.LastSeq {
				o.A.LastSeq = v.Seq
			}
			o.LastN = s.d.N
			fb.touch(o)
		}
		return
	}
	v.Alarm = ev.A.ID
	if v.Seq > ev.A.LastSeq {
		ev.A.LastSeq = v.Seq
	}
	if ev.A.Time.IsZero() {
		ev.A.Time = at
	}
	fb.touch(ev)
}

func (s *State) byID(id int) *event {
	for _, ev := range s.d.Events {
		if ev.A.ID == id {
			return ev
		}
	}
	return nil
}

// retire drops events that can no longer change.
func (s *State) retire(fb *feedBuf) {
	evs := s.d.Events
	if len(evs) == 0 {
		return
	}
	over := len(evs) - maxEvents
	// Most lines retire nothing: find the first event that goes before
	// rewriting the slice (each kept pointer written back costs a write
	// barrier while the collector runs).
	first := -1
	for i, ev := range evs {
		if s.retires(ev, i, over) {
			first = i
			break
		}
	}
	if first < 0 {
		return
	}
	keep := evs[:first]
	for i := first; i < len(evs); i++ {
		ev := evs[i]
		if !s.retires(ev, i, over) {
			keep = append(keep, ev)
			continue
		}
		s.settleEvent(fb, ev)
		if ev.live() && ev.A.Fatal {
			s.d.LastFatal = max(s.d.LastFatal, ev.A.FirstSeq)
			if len(s.d.RetiredFatal) >= maxRetiredFatal {
				s.d.RetiredFatal, s.d.RetiredLost = append(s.d.RetiredFatal[:0], s.d.RetiredFatal[1:]...), true
			}
			s.d.RetiredFatal = append(s.d.RetiredFatal, ev)
		}
	}
	for i := len(keep); i < len(evs); i++ {
		evs[i] = nil
	}
	s.d.Events = keep
}

// maxRetiredFatal bounds the retired fatal events a launch keeps.
const maxRetiredFatal = 4

// retires reports whether the event at index i of s.d.Events can no longer
// change; over is how many events exceed maxEvents.
func (s *State) retires(ev *event, i, over int) bool {
	idle := s.d.N - ev.LastN
	return (ev.St == stClosed && idle > retireAfter && ev.Await < s.d.N && !s.awaitsEvidence(ev)) || idle > staleAfter || i < over
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
