package ingest

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/clock"
	"launchwatch/internal/decode"
	"launchwatch/internal/status"
	"launchwatch/internal/store"
)

// Ack is the answer to a stored batch.
type Ack struct {
	Launch     string `json:"launch"`
	Accepted   int    `json:"accepted"`         // lines stored by this batch
	Duplicates int    `json:"duplicates"`       // lines of this batch that were already stored (a retry)
	LastSeq    int64  `json:"last_seq"`         // the highest seq stored for the launch
	Status     string `json:"status,omitempty"` // the settled status; absent while a fatal alarm settles, unless ready
	// Settling is set while a fatal alarm waits to settle (at most the
	// settle bound after the last line): Status may still become alarm.
	Settling bool `json:"settling,omitempty"`
}

// Pipeline stores batches of lines: it numbers them, drops the ones already
// stored, classifies the new ones in seq order and writes lines, alarms and
// the launch's new state in one transaction.
type Pipeline struct {
	store *store.Store
	log   *slog.Logger
	clock clock.Clock
	// settleAfter bounds how long an unsettled fatal alarm waits for a
	// line that could still change it (settle.go).
	settleAfter time.Duration
	// deadlines wakes this process's settler when a batch sets a settle
	// deadline; buffered, so a wake is never lost and never blocks.
	deadlines chan struct{}
}

// Option configures a Pipeline.
type Option func(*Pipeline)

// WithClock makes the pipeline read the time from c (tests move a fake one).
func WithClock(c clock.Clock) Option { return func(p *Pipeline) { p.clock = c } }

// WithSettleAfter sets the settle bound; d <= 0 keeps DefaultSettleAfter.
func WithSettleAfter(d time.Duration) Option {
	return func(p *Pipeline) {
		if d > 0 {
			p.settleAfter = d
		}
	}
}

// NewPipeline returns a Pipeline writing to st.
func NewPipeline(st *store.Store, log *slog.Logger, opts ...Option) *Pipeline {
	p := &Pipeline{store: st, log: log, clock: clock.Real{}, settleAfter: DefaultSettleAfter, deadlines: make(chan struct{}, 1)}
	for _, o := range opts {
		o(p)
	}
	return p
}

func (p *Pipeline) now() time.Time { return p.clock.Now() }

// Ingest stores lines as the next batch of the launch key, creating the
// launch with attrs when this is its first batch. Lines with Seq 0 are
// numbered after the last stored line. A line whose seq is stored already,
// or a seqless line whose Key is, is a duplicate and is not stored again,
// so a retried batch is harmless.
func (p *Pipeline) Ingest(ctx context.Context, key string, attrs store.LaunchAttrs, lines []decode.Line) (Ack, error) {
	if len(lines) > decode.MaxBatchLines { // the decoders refuse earlier; this holds for every protocol
		return Ack{}, decode.TooManyLines()
	}
	id, err := p.store.EnsureLaunch(ctx, key, attrs)
	if err != nil {
		return Ack{}, err
	}
	received := p.now().UTC()
	ack := Ack{Launch: key}
	settling := false
	err = p.store.WithTx(ctx, func(tx *store.Tx) error {
		ack.Accepted, ack.Duplicates = 0, 0 // WithTx may be retried by callers; start clean
		l, err := tx.LockLaunch(ctx, id)
		if err != nil {
			return err
		}
		if err := checkLabels(l.Labels, attrs.Labels); err != nil {
			return err
		}
		fresh, dups, err := freshLines(ctx, tx, l, lines)
		if err != nil {
			return err
		}
		ack.Duplicates = dups
		b := batch{tx: tx, launch: l, received: received, settleAfter: p.settleAfter, clock: l.Clock}
		if err := b.apply(ctx, fresh, attrs); err != nil {
			return err
		}
		if err := tx.CopyLineKeys(ctx, id, lineKeys(fresh)); err != nil {
			return err
		}
		ack.Accepted, ack.LastSeq, ack.Status, ack.Settling = len(fresh), b.lastSeq, b.status, b.settleAt != nil
		if b.unsettled && ack.Status != status.Ready {
			// No status while a fatal alarm is not settled: a client that
			// needs one reads the launch, which answers once it is. (A ready
			// launch is ready whatever an alarm after its ready line turns
			// out to be.) A trailing ERROR run alone leaves the status as it
			// is: the lines that follow decide it, or a reader after the
			// bound. A crash log cut in the middle of its traceback needs the
			// read to be decided at all, which is why an unfinished
			// traceback counts here too.
			ack.Status = ""
		}
		settling = b.settleAt != nil && len(fresh) > 0
		if len(fresh) == 0 {
			return nil // nothing changed: a retry
		}
		return tx.Notify(ctx, key)
	})
	if err != nil {
		return Ack{}, err
	}
	if settling {
		p.wakeSettler()
	}
	return ack, nil
}

// MaxLaunchLabels bounds the labels of one launch: batches merge their
// labels into the launch's, and a client must not grow them without end.
const MaxLaunchLabels = 64

// checkLabels refuses a batch whose labels would give the launch more than
// MaxLaunchLabels.
func checkLabels(stored, added map[string]string) error {
	n := len(stored)
	for k := range added {
		if _, ok := stored[k]; !ok {
			n++
		}
	}
	if n > MaxLaunchLabels {
		return decode.BadRequest("a launch has at most %d labels; this batch would give it %d", MaxLaunchLabels, n)
	}
	return nil
}

// freshLines numbers lines that have no seq, sorts the batch by seq and
// splits off the lines already stored (earlier batches, or repeated inside
// this one) as duplicates.
func freshLines(ctx context.Context, tx *store.Tx, l *store.LaunchForUpdate, lines []decode.Line) ([]decode.Line, int, error) {
	if len(lines) == 0 {
		return nil, 0, nil
	}
	if lines[0].Seq == 0 {
		return seqlessLines(ctx, tx, l, lines)
	}
	slices.SortStableFunc(lines, func(a, b decode.Line) int { return cmp.Compare(a.Seq, b.Seq) })
	if err := checkSeqRange(l.LastSeq, lines[len(lines)-1].Seq); err != nil {
		return nil, 0, err
	}
	var old []int64
	for _, ln := range lines {
		if ln.Seq <= l.LastSeq {
			old = append(old, ln.Seq)
		}
	}
	stored := map[int64]bool{}
	if len(old) > 0 {
		var err error
		if stored, err = tx.ExistingSeqs(ctx, l.ID, old); err != nil {
			return nil, 0, err
		}
	}
	fresh := lines[:0:0]
	dups := 0
	for i, ln := range lines {
		if stored[ln.Seq] || i > 0 && ln.Seq == lines[i-1].Seq {
			dups++
			continue
		}
		fresh = append(fresh, ln)
	}
	return fresh, dups, nil
}

// seqlessLines drops the lines of a seqless batch whose duplicate key is
// stored already or repeats inside the batch (a retried Loki push or OTLP
// export) and numbers the rest after the last stored line, in batch order.
// Lines without a key are always new.
func seqlessLines(ctx context.Context, tx *store.Tx, l *store.LaunchForUpdate, lines []decode.Line) ([]decode.Line, int, error) {
	var keys [][]byte
	for _, ln := range lines {
		if ln.Key != nil {
			keys = append(keys, ln.Key)
		}
	}
	stored, err := tx.ExistingLineKeys(ctx, l.ID, keys)
	if err != nil {
		return nil, 0, err
	}
	seen := make(map[string]bool, len(keys))
	fresh := make([]decode.Line, 0, len(lines))
	for _, ln := range lines {
		if ln.Key != nil {
			k := string(ln.Key)
			if stored[k] || seen[k] {
				continue
			}
			seen[k] = true
		}
		fresh = append(fresh, ln)
	}
	if l.LastSeq > math.MaxInt64-int64(len(fresh)) {
		return nil, 0, decode.BadRequest("cannot number %d more lines after seq %d: send explicit seqs", len(fresh), l.LastSeq)
	}
	for i := range fresh {
		fresh[i].Seq = l.LastSeq + 1 + int64(i)
	}
	return fresh, len(lines) - len(fresh), nil
}

// lineKeys lists the duplicate keys of the lines that have one.
func lineKeys(lines []decode.Line) []store.LineKey {
	var out []store.LineKey
	for _, ln := range lines {
		if ln.Key != nil {
			out = append(out, store.LineKey{Key: ln.Key, Seq: ln.Seq})
		}
	}
	return out
}

// batch is one transaction's work on one launch.
type batch struct {
	tx          *store.Tx
	launch      *store.LaunchForUpdate
	received    time.Time
	settleAfter time.Duration
	lastSeq     int64
	status      string
	settleAt    *time.Time // the launch's settle deadline after this batch
	unsettled   bool       // a fatal alarm of the launch is not settled yet
	rebuilt     bool       // the classification was redone from replayFrom on (a gap fill, an unusable state)
	replayFrom  int64      // the seq after which it was redone; 0: from the first line
	converged   bool       // it stopped early: later verdicts, alarms and phases stand
	clock       store.LaunchClock
}

// apply classifies and writes the fresh lines (sorted by seq, none stored
// yet) and the launch's new state.
func (b *batch) apply(ctx context.Context, fresh []decode.Line, attrs store.LaunchAttrs) error {
	server := b.launch.Server
	if server == "" {
		server = attrs.Server
	}
	state, usable := b.restoreState(server)
	times, err := b.clockTimes(ctx, fresh, attrs.TZ)
	if err != nil {
		return err
	}
	var res classify.Result
	switch {
	case len(fresh) == 0 && state.LastSeq() == b.launch.LastSeq:
		// Nothing new (a retry, an empty batch) and the state is current.
	case len(fresh) > 0 && state.LastSeq() == b.launch.LastSeq && fresh[0].Seq > state.LastSeq():
		// The usual case: the batch continues the launch, so the
		// classifier streams on from its saved state.
		var cps []store.Checkpoint
		if res, cps, err = feedInOrder(state, classifierLines(fresh, times, b.received)); err != nil {
			return err
		}
		if err := b.writeLines(ctx, fresh, times, &res); err != nil {
			return err
		}
		if err := b.tx.SaveCheckpoints(ctx, b.launch.ID, cps); err != nil {
			return err
		}
	default:
		// Lines arrived out of order (a gap was filled), or the saved state
		// is unusable (even for a batch of duplicates only, which would
		// otherwise save an empty state and reset the phase): classify the
		// launch again from its stored lines so the verdicts are those of an
		// in-order arrival: from the checkpoint before the gap when the
		// state is usable, else from the first line.
		// The lines are written first with their times but no verdicts;
		// the reclassification then writes the real verdicts.
		if err := b.writeLines(ctx, fresh, times, &classify.Result{}); err != nil {
			return err
		}
		scratch := !usable || state.LastSeq() != b.launch.LastSeq || len(fresh) == 0
		if state, res, err = b.refeed(ctx, server, state, fresh, scratch); err != nil {
			return err
		}
		b.rebuilt = true
	}
	if b.ended() {
		// Lines that arrive after the exit report: the process is gone, so
		// no later line can change their events.
		if err := b.settleState(ctx, state, classify.SettleExit, &res); err != nil {
			return err
		}
	}
	return b.store(ctx, server, state, res, fresh, attrs)
}

// ended reports whether the launch's process reported its exit.
func (b *batch) ended() bool {
	return b.launch.ExitCode != nil || b.launch.ExitSignal != nil
}

// store writes what the classifier learned (alarms, phases, rules hit) and
// the launch's new state and status.
func (b *batch) store(ctx context.Context, server string, state *classify.State, res classify.Result, fresh []decode.Line, attrs store.LaunchAttrs) error {
	alarms := latestAlarms(res.Alarms)
	if err := b.tx.UpsertAlarms(ctx, b.launch.ID, alarms); err != nil {
		return err
	}
	if b.rebuilt && !b.converged {
		if err := b.tx.DeleteAlarmsAfter(ctx, b.launch.ID, state.Summary().Alarms); err != nil {
			return err
		}
		// The reclassification reports every phase from where it began
		// again, possibly different ones.
		if err := b.tx.DeletePhasesAfter(ctx, b.launch.ID, b.replayFrom); err != nil {
			return err
		}
	}
	if err := b.tx.UpsertPhases(ctx, b.launch.ID, res.Phases); err != nil {
		return err
	}
	if err := b.applyRules(ctx, server, alarms); err != nil {
		return err
	}
	return b.saveLaunch(ctx, fresh, attrs, state, res.Config)
}

// restoreState returns the saved classifier state of the launch and true,
// or a new one and false when there is none or it cannot be read (written
// by an older classifier); apply then rebuilds from the stored lines.
func (b *batch) restoreState(server string) (*classify.State, bool) {
	if len(b.launch.ClassifierState) > 0 {
		state, err := classify.Restore(b.launch.ClassifierState)
		if err == nil {
			return state, true
		}
	}
	return classify.New(server), false
}

func classifierLines(lines []decode.Line, times []lineTime, received time.Time) []classify.Line {
	out := make([]classify.Line, len(lines))
	for i, l := range lines {
		t := l.TS
		if t.IsZero() {
			t = received
		}
		out[i] = classify.Line{Seq: l.Seq, Text: l.Text, Time: t, Clock: times[i].ts}
	}
	return out
}

// writeLines COPYs the fresh lines with their times and their verdicts
// from res, and rewrites earlier lines whose verdicts res revised.
func (b *batch) writeLines(ctx context.Context, fresh []decode.Line, times []lineTime, res *classify.Result) error {
	verdicts := make(map[int64]classify.LineVerdict, len(res.Lines))
	var revised []classify.LineVerdict
	for _, v := range res.Lines {
		verdicts[v.Seq] = v
	}
	rows := make([]store.Line, len(fresh))
	for i, l := range fresh {
		v, ok := verdicts[l.Seq]
		if !ok {
			v = classify.LineVerdict{Kind: classify.KindPlain}
		}
		delete(verdicts, l.Seq)
		rows[i] = store.Line{Seq: l.Seq, TS: times[i].ts, ReceivedAt: b.received, LoggedAt: times[i].logged,
			Stream: l.Stream, Kind: string(v.Kind), Level: cmp.Or(v.Level, l.Level), Rank: v.Rank,
			AlarmNo: alarmNo(v.Alarm), Text: l.Text}
	}
	for _, v := range verdicts {
		revised = append(revised, v)
	}
	if err := b.tx.CopyLines(ctx, b.launch.ID, rows); err != nil {
		return err
	}
	return b.tx.UpdateVerdicts(ctx, b.launch.ID, revised)
}

func alarmNo(id int) *int {
	if id == 0 {
		return nil
	}
	return &id
}

// latestAlarms keeps the last copy of each alarm ID, in ID order.
func latestAlarms(alarms []classify.Alarm) []classify.Alarm {
	if len(alarms) < 2 {
		return alarms
	}
	byID := make(map[int]classify.Alarm, len(alarms))
	for _, a := range alarms {
		byID[a.ID] = a
	}
	out := make([]classify.Alarm, 0, len(byID))
	for _, a := range byID {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b classify.Alarm) int { return a.ID - b.ID })
	return out
}

func (b *batch) saveLaunch(ctx context.Context, fresh []decode.Line, attrs store.LaunchAttrs, state *classify.State, config map[string]string) error {
	saved, err := state.MarshalBinary()
	if err != nil {
		return fmt.Errorf("ingest: save classifier state: %w", err)
	}
	sum := state.Summary()
	var readySeq *int64
	if sum.Ready != nil {
		readySeq = &sum.Ready.Seq
	}
	facts, err := b.tx.AlarmFacts(ctx, b.launch.ID, readySeq)
	if err != nil {
		return err
	}
	b.settleAt = b.deadline(sum, len(fresh) > 0)
	b.unsettled = sum.PendingFatal > 0
	u := store.LaunchUpdate{
		ID: b.launch.ID, Attrs: attrs, Config: config, AddedLines: int64(len(fresh)),
		Phase: sum.Phase, PhaseDone: sum.PhaseDone, PhaseTotal: sum.PhaseTotal,
		LastSeq: b.launch.LastSeq, ClassifierState: saved, SettleAt: b.settleAt, PendingRuns: sum.PendingRuns > 0,
		Clock: b.clock,
	}
	if sum.Ready != nil && (b.launch.ReadyAt == nil || b.rebuilt) {
		// Once stored, the ready time moves with the launch clock
		// (ShiftClock); the saved state keeps the time it first had.
		t, seq := sum.Ready.Time, sum.Ready.Seq
		u.ReadyAt, u.ReadySeq = &t, &seq
	}
	if len(fresh) > 0 {
		// Arrival times, not line times: "when did we last hear from this
		// launch" is what silence detection needs, even for a replayed log.
		u.LastSeq = max(u.LastSeq, fresh[len(fresh)-1].Seq)
		u.FirstLineAt, u.LastLineAt = &b.received, &b.received
	}
	f := status.Facts{
		Ready: u.ReadyAt != nil || b.launch.ReadyAt != nil, Phase: sum.Phase,
		OpenFatal: facts.OpenFatal, ConfirmedFatal: facts.ConfirmedFatal, PendingFatal: facts.PendingFatal,
		WasReady: b.launch.Status == status.Ready,
		ExitCode: b.launch.ExitCode, ExitSignal: b.launch.ExitSignal, ExitRequested: b.launch.ExitRequested,
	}
	u.Status = status.Of(f)
	b.lastSeq, b.status = u.LastSeq, u.Status
	return b.tx.SaveLaunch(ctx, u)
}

// Bounds on a batch's seqs. A stray seq far beyond the launch's last one
// leaves a gap that every later batch would fill by reclassifying the whole
// launch, and one near 2^63 makes every unnumbered batch overflow: both are
// a shipper's bug, refused with a 400 that says so rather than stored.
const (
	maxSeqJump = 1_000_000
	maxSeq     = 1 << 53 // what a JSON number holds exactly
)

// checkSeqRange refuses a batch whose highest seq is above maxSeq or more
// than maxSeqJump beyond the launch's last stored seq.
func checkSeqRange(last, highest int64) error {
	switch {
	case highest > maxSeq:
		return decode.BadRequest("seq %d is above 2^53: numbers lines from 1 up", highest)
	case highest-last > maxSeqJump:
		return decode.BadRequest("seq %d is more than %d beyond the launch's last line (%d): send the lines in between first, or number them from %d", highest, maxSeqJump, last, last+1)
	}
	return nil
}
