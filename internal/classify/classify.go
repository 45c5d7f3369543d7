// Package classify judges inference-server log lines in context: which lines
// belong to a real error event (an alarm), which are startup progress,
// readiness or configuration dumps. It is pure Go with no I/O so the same code
// runs at ingest and in `launchwatch eval`.
//
// A State is per launch and streaming: Feed takes the launch's lines in seq
// order, in batches of any size, and the final verdicts do not depend on where
// the batch boundaries fell. Because a verdict can depend on lines that arrive
// later (a traceback's headline is its last line), a Result may revise lines
// and alarms reported by an earlier Feed; callers apply revisions by seq and
// alarm ID. A State can be saved with MarshalBinary and restored with Restore,
// so consecutive batches of one launch may reach different processes.
//
// How it works, in the four stages of design.md (one or more files each):
//
//  1. Envelope and prefix (envelope.go, prefix.go): peel what collectors add
//     (CRI, compose, journald, syslog, kubectl, Docker json-file, JSON log
//     records) and the server's own prefix (time, level, logger, rank or
//     process tag); what goes on is (source, time, level, rank, body).
//  2. Recognisers (grammar*.go; signatures in packs/*.json, found by one
//     pass of the literal prefilter in matcher.go): one small grammar per kind of
//     text, per source — Python tracebacks, C++ abort dumps, Go and Rust
//     panics, Java exceptions, ExceptionGroups, faulthandler dumps, a
//     process's last words, CRITICAL lines and ERROR runs — plus readiness
//     and family (family.go), phases (phase.go) and configuration dumps
//     (config.go). A recogniser says where an event starts and ends and which
//     line heads it, never whether it was fatal.
//  3. Assembly (assemble.go): copies from many ranks merge into one alarm;
//     hint lines and teardown tracebacks join their error; a consequence (a
//     launcher reporting its child, "See root cause above") links to its
//     root cause (Alarm.Cause).
//  4. Verdict (verdict.go, settle.go): fatal, survived, withdrawn or
//     settled, from the evidence that follows — the server keeps serving or
//     becomes ready (survived), a process dies (fatal), a retry line follows
//     a caught exception (withdrawn), the event can no longer change
//     (settled; the status acts on settled alarms only).
package classify

import "time"

// LineKind is the verdict on one line.
type LineKind string

// Line kinds.
const (
	KindPlain    LineKind = "plain"
	KindProgress LineKind = "progress"
	KindReady    LineKind = "ready"
	KindConfig   LineKind = "config"
	KindWarning  LineKind = "warning"
	KindError    LineKind = "error"
)

// AlarmKind says what sort of error event an alarm is.
type AlarmKind string

// Alarm kinds.
const (
	AlarmOOM       AlarmKind = "oom"
	AlarmNCCL      AlarmKind = "nccl"
	AlarmCUDA      AlarmKind = "cuda"
	AlarmTraceback AlarmKind = "traceback"
	AlarmSignal    AlarmKind = "signal"
	AlarmCompile   AlarmKind = "compile"
	AlarmAssert    AlarmKind = "assert"
	AlarmOther     AlarmKind = "other"
)

// Line is one input line of a launch.
type Line struct {
	Seq  int64     // position in the launch, strictly increasing across Feed calls
	Text string    // the line without its trailing newline
	Time time.Time // the shipper's timestamp or the receive time; zero if unknown
	// Clock is the line's time on its launch's clock (ingest's, see
	// design.md "The launch clock"); when set, it is the time of the
	// phases, readiness and alarms the line marks, in place of the time in
	// its prefix.
	Clock time.Time
}

// LineVerdict is the classification of one line. A later Result may carry a
// new verdict for the same Seq; the latest one wins.
type LineVerdict struct {
	Seq   int64
	Kind  LineKind
	Level string    // the level in the line's prefix (INFO, WARNING, ERROR ...), "" if none
	Rank  string    // the rank in the prefix (TP1, DP0, PP2 ...), "" if none
	Time  time.Time // the timestamp in the line's prefix, zero if none
	Alarm int       // ID of the alarm the line belongs to, 0 if none
}

// Alarm is one error event. IDs are assigned 1, 2, 3 ... in order of
// creation within a launch and never reused; a later Result may carry a
// changed Alarm with the same ID (the event grew), which replaces the earlier one.
type Alarm struct {
	ID          int
	FirstSeq    int64 // first line of the event
	LastSeq     int64 // last line of the event
	Kind        AlarmKind
	Fatal       bool   // brings the server down (as opposed to one failed request)
	Headline    string // the line an engineer would quote
	HeadlineSeq int64  // the seq of the line Headline quotes
	Template    string // Headline with its variable parts masked
	Fingerprint string // stable hash of Kind and Template
	Ranks       int    // how many ranks repeated the event (at least 1)
	// Cause is the ID of the root-cause alarm this one is a consequence of
	// (a launcher reporting its child's failure, "See root cause above"), 0
	// if it is a root cause itself. A consequence is shown under its cause
	// and decided with it, not triaged on its own.
	Cause int
	Time  time.Time
	// Withdrawn is set on the latest copy of an alarm that turned out not to
	// be one: a traceback that was caught and retried, an operator's
	// interrupt, or a repeat of another rank's alarm that was merged into it
	// (its lines are revised to point at that alarm). Callers should hide or
	// delete withdrawn alarms; IDs are still never reused.
	Withdrawn bool
	// Settled is set once the event can no longer change its verdict or its
	// headline: its grammar ended (a later line on its source did not
	// continue it), no retry line can withdraw it any more, it was retired,
	// or Settle was called (the stream ended, the process exited, or the
	// caller's wall-clock bound passed). The status and `wait` act on
	// settled alarms only, so a verdict never flickers. Copies of other
	// ranks may still merge into a settled alarm (Ranks grows).
	Settled bool
}

// Phase is a startup phase such as weight loading or CUDA graph capture.
type Phase struct {
	Name     string // init, weights, kv_cache, cuda_graph, warmup, ...
	BeginSeq int64
	Begin    time.Time
	EndSeq   int64     // 0 while the phase is running
	End      time.Time // zero while the phase is running
	Done     int       // progress within the phase, e.g. 12 of 64 shards
	Total    int
}

// Marker is a single point of a launch, such as readiness.
type Marker struct {
	Seq  int64
	Time time.Time
}

// Result is what one Feed call learned.
type Result struct {
	// Lines holds a verdict for every line fed in this call and any
	// revised verdicts of earlier lines, in ascending seq order.
	Lines []LineVerdict
	// Alarms holds the alarms created or changed by this call.
	Alarms []Alarm
	// Phases holds the phases begun, advanced or ended by this call.
	Phases []Phase
	// Config holds configuration keys parsed from config dumps in this call.
	Config map[string]string
	// Ready is set by the call that first saw the launch become ready.
	Ready *Marker
	// Unready is set by the call that took back the readiness an earlier
	// call (or this one) reported: the server never began to serve after
	// all (State.takeBackReady). It is that readiness's marker.
	Unready *Marker

	// mem is what State.FeedInto reuses of an earlier Result.
	mem resultMem
}

// resultMem is the memory of a Result that FeedInto reuses, kept also when
// the Result's field is nil (a call that found no alarm, say): the array
// Lines lies in (with room in front of them, feedBuf.reserve), the arrays
// of Alarms and Phases, and the map Config is.
type resultMem struct {
	verdicts []LineVerdict
	alarms   []Alarm
	phases   []Phase
	config   map[string]string
}

// Summary is the classifier's current view of the whole launch.
type Summary struct {
	LastSeq      int64   // the highest seq fed so far, 0 if none
	Ready        *Marker // nil until ready
	Phase        string  // the current (latest begun) phase, "" if none
	PhaseDone    int
	PhaseTotal   int
	Alarms       int   // alarm IDs issued so far (1..Alarms), withdrawn ones included
	FatalAlarms  int   // fatal alarms so far, withdrawn ones excluded
	LastFatalSeq int64 // the first line of the latest fatal alarm, 0 if none
	LiveAlarms   int   // alarms so far, withdrawn ones excluded
	// PendingFatal counts live fatal alarms that are not settled yet: the
	// caller should call Settle when no line has come for a while.
	PendingFatal int
	// PendingRuns counts what only the stream's end makes fatal: runs of
	// ERROR lines that were the last lines of a launch that is not ready
	// (Settle(SettleStreamEnd) makes them a fatal alarm: the process went
	// quiet after them; more lines make them warnings), and undecided
	// tracebacks (settle.go: a network call's failure, a bare header) whose
	// next line has not come yet; and a readiness line that waits for its
	// bind (State.awaitBind), which the stream's end confirms.
	PendingRuns int
	// Endpoints are the addresses the server announced it listens on
	// ("http://0.0.0.0:8000"), in the order first seen (endpoint.go).
	Endpoints []string
}
