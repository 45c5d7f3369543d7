package classify

import (
	"regexp"
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
	JoinTo    int         `json:"join,omitempty"`      // a teardown event whose lines belong to this earlier alarm
	WarnIntro bool        `json:"wi,omitempty"`        // silent only because a WARNING line introduced it
	Frames    int         `json:"fr,omitempty"`        // traceback frames read
	Sub       int         `json:"sub,omitempty"`       // a recogniser's sub-state (grammar_*.go)
}

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

var (
	reStrictExc = regexp.MustCompile(`^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Timeout|Failure|Fault|Iteration|Warning)\b(?::.*)?$`)
	reLooseExc  = regexp.MustCompile(`^(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:\[[^\]]*\])?(?::(?:\s.*)?)?$`)
	reProcess   = regexp.MustCompile(`^Process [\w.-]+:$`)
	// faulthandler's per-thread header after "Fatal Python error".
	reThread = regexp.MustCompile(`^(?:Current thread|Thread) 0x[0-9a-fA-F]+ \(most recent call first\):$`)
)

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

// isRichLine reports a line of a traceback drawn by the rich library.
func isRichLine(t string) bool {
	for _, p := range []string{"│", "╭", "╰", "❱"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func isCppLine(t string) bool {
	return strings.HasPrefix(t, "frame #") || strings.HasPrefix(t, "what():") || strings.HasPrefix(t, "Exception raised from") ||
		strings.HasPrefix(t, "terminate called")
}

// consume decides whether a line on the event's source continues it.
func (s *State) consume(fb *feedBuf, ev *event, p *Prefix, seq int64, t string, m *lineMatch) consumeResult {
	if r, ok := s.takeover(ev, p, t, m); ok {
		return r
	}
	if ev.St >= stGo {
		return s.consumeGrammar(fb, ev, p, seq, t, m)
	}
	body := p.Body
	switch ev.St {
	case stSingle:
		switch {
		case m.builtin[litTraceback]:
			ev.St, ev.PrevFile = stFrames, false
			s.headerSig(ev, t, seq, m)
			return consumed
		case m.builtin[litLoggingError]:
			ev.St, ev.LogErr = stChain, true
			return consumed
		case isFrameLine(t):
			ev.St, ev.PrevFile = stFrames, true
			return consumed
		case reThread.MatchString(t):
			ev.St, ev.PrevFile = stFrames, false
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

	case stChain:
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

	case stFrames:
		switch {
		case m.builtin[litTraceback]:
			ev.PrevFile = false
			return consumed
		case t == "":
			return consumed
		case isFrameLine(t):
			ev.PrevFile = true
			ev.Frames++
			if ev.Frames == 1 && ev.WarnIntro && uncaughtEntry(t) {
				s.promote(fb, ev)
			}
			return consumed
		case isCaretLine(t) || strings.HasPrefix(t, "[Previous line repeated") || t == "Call stack:" || t == "..." || reThread.MatchString(t):
			return consumed
		case isRichLine(t):
			return consumed // rich's boxed traceback (TGI shards)
		case ev.LogErr && (strings.HasPrefix(t, "Message: ") || strings.HasPrefix(t, "Arguments: ")):
			ev.St = stAfterExc
			return consumed
		}
		indented := body != "" && (body[0] == ' ' || body[0] == '\t')
		if ev.PrevFile {
			ev.PrevFile = false
			if indented || !reStrictExc.MatchString(truncate(t, maxRegexInput)) {
				return consumed // the source line of the frame above
			}
		} else if indented {
			return consumed
		}
		if reLooseExc.MatchString(truncate(t, maxRegexInput)) {
			s.exceptionLine(fb, ev, p, seq, t, m)
			return consumed
		}
		return ended

	case stAfterExc:
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
		case m.builtin[litTraceback] || isFrameLine(t) || m.follow != nil || m.best != nil:
			return ended
		case ev.Blanks == 0 && (strings.HasPrefix(t, "frame #") || strings.HasPrefix(t, "Exception raised from")):
			return consumed // C++ frames of a torch error message
		case ev.Blanks == 0 && ev.Cont < maxContLines && (!p.Tagged || (p.Level == ev.Level && (p.Level == "ERROR" || p.Level == "CRITICAL"))):
			ev.Cont++
			return consumed
		}
		return ended

	case stCpp:
		switch {
		case t == "":
			ev.Blanks++
			if ev.Blanks > 1 {
				return ended
			}
			return consumed
		case strings.HasPrefix(t, "what():"):
			ev.Blanks = 0
			prio := 2
			var g *Signature
			if m.best != nil && m.best.Priority > prio {
				prio, g = m.best.Priority, m.best
			}
			s.setHeadline(ev, t, seq, prio, g)
			ev.Cont = 0
			s.tryMerge(fb, ev)
			return consumed
		case isCppLine(t):
			ev.Blanks = 0
			switch {
			case m.best != nil:
				s.setHeadline(ev, t, seq, m.best.Priority, m.best)
			case strings.HasPrefix(t, "Exception raised from"):
				// Where c10 raised it says more than any frame.
				s.setHeadline(ev, t, seq, 1, nil)
			}
			return consumed
		case m.builtin[litTraceback]:
			ev.St, ev.PrevFile = stFrames, false
			return consumed
		case ev.Blanks == 0 && ev.Cont < maxContLines && !p.Tagged && m.best == nil && m.follow == nil:
			ev.Cont++
			return consumed
		}
		return ended
	}
	return ended
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
	ev.St, ev.Level, ev.Cont, ev.Blanks = stAfterExc, p.Level, 0, 0
	ev.Await = s.d.N + awaitWindow
	if m.shutdown {
		// The operator interrupted the process (KeyboardInterrupt).
		s.withdraw(fb, ev)
		if s.d.Shutdown == 0 {
			s.d.Shutdown = seq
		}
		return
	}
	s.tryMerge(fb, ev)
}

// newEvent opens an event; a silent event makes no alarm.
func (s *State) newEvent(fb *feedBuf, src string, seq int64, at time.Time, silent bool) *event {
	ev := &event{Src: src, St: stSingle, LastN: s.d.N, Silent: silent, Prio: -1, KindPrio: -1}
	ev.A = Alarm{FirstSeq: seq, LastSeq: seq, Kind: AlarmTraceback, Fatal: true, Ranks: 1, Time: at}
	if !silent {
		ev.A.ID = s.d.NextID
		s.d.NextID++
		s.d.Alarms++
		s.d.Fatal++
		if src != "" {
			ev.Srcs = []string{src}
		}
		fb.touch(ev)
	}
	s.d.Events = append(s.d.Events, ev)
	return ev
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
		case fatal && !ev.A.Fatal && (g.Kind == AlarmCUDA || g.Kind == AlarmNCCL || g.Kind == AlarmSignal):
			s.setFatal(ev, true)
		}
	}
	if changed {
		ev.A.Fingerprint = Fingerprint(ev.A.Kind, ev.A.Template)
	}
}

func (s *State) setFatal(ev *event, fatal bool) {
	if ev.A.Fatal == fatal {
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

// tryMerge folds ev into an earlier alarm with the same fingerprint from
// another rank: the same traceback printed by TP0..TP7 is one alarm.
func (s *State) tryMerge(fb *feedBuf, ev *event) {
	if !ev.live() || ev.Untracked || ev.Alias != 0 || ev.Src == "" {
		return
	}
	for _, o := range s.d.Events {
		if o == ev || !o.live() || o.Alias != 0 || o.Src == ev.Src || o.Src == "" || o.A.ID > ev.A.ID ||
			o.A.Fingerprint != ev.A.Fingerprint || o.LastN < s.d.N-mergeWindow {
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

// retire drops events that can no longer change.
func (s *State) retire(fb *feedBuf) {
	evs := s.d.Events
	if len(evs) == 0 {
		return
	}
	keep := evs[:0]
	over := len(evs) - maxEvents
	for i, ev := range evs {
		idle := s.d.N - ev.LastN
		done := (ev.St == stClosed && idle > retireAfter && ev.Await < s.d.N) || idle > staleAfter || i < over
		if !done {
			keep = append(keep, ev)
			continue
		}
		s.settleEvent(fb, ev)
		if ev.live() && ev.A.Fatal && ev.A.FirstSeq > s.d.LastFatal {
			s.d.LastFatal = ev.A.FirstSeq
		}
	}
	for i := len(keep); i < len(evs); i++ {
		evs[i] = nil
	}
	s.d.Events = keep
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
