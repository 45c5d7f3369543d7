package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/status"
	"launchwatch/internal/store"
)

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
	idle        bool // the settler settles the launch (classify.SettleIdle)
	piece       int  // about how many lines a COPY is handed at a time (stream.go)
	cutFrom     int  // the fewest lines of a run whose blocks' COPY is cut in two (stream.go)
	// cache compiles the taught signatures (signatures.go); taught are
	// those of the launch's scope, read by loadSignatures.
	cache  *sigCache
	log    *slog.Logger
	taught taught
}

// apply classifies and writes the fresh lines (sorted by seq, none stored
// yet) and the launch's new state.
func (b *batch) apply(ctx context.Context, fresh []decode.Line, attrs launchid.Attrs) error {
	server := b.launch.GivenServer()
	if server == "" {
		server = attrs.Server
	}
	if err := b.loadSignatures(ctx, server, attrs.Labels); err != nil {
		return err
	}
	state, usable := b.restoreState(server)
	times, err := b.clockTimes(ctx, fresh, attrs.TZ)
	if err != nil {
		return err
	}
	if err := b.noteGaps(ctx, fresh, times); err != nil {
		return err
	}
	var res classify.Result
	switch {
	case len(fresh) == 0 && state.LastSeq() == b.launch.LastSeq:
		// Nothing new (a retry, an empty batch) and the state is current.
	case len(fresh) > 0 && state.LastSeq() == b.launch.LastSeq && fresh[0].Seq > state.LastSeq():
		// The usual case: the batch continues the launch, so the
		// classifier streams on from its saved state.
		// The classifier streams on from its saved state, and the lines are
		// stored as it goes (stream.go).
		var cps []store.Checkpoint
		if res, cps, err = b.copyInOrder(ctx, state, fresh, times); err != nil {
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
// the launch's new state and status. server is the family a shipper gave,
// "" if none did: then the family the classifier detected scopes the rules
// and becomes the launch's server (saveLaunch).
func (b *batch) store(ctx context.Context, server string, state *classify.State, res classify.Result, fresh []decode.Line, attrs launchid.Attrs) error {
	if server == "" {
		server = state.Server()
	}
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
	if err := b.countHits(ctx, state.Server(), fresh, b.received); err != nil {
		return err
	}
	return b.saveLaunch(ctx, fresh, attrs, state, res)
}

// restoreState returns the saved classifier state of the launch and true,
// or a new one and false when there is none or it cannot be read (written
// by an older classifier); apply then rebuilds from the stored lines.
func (b *batch) restoreState(server string) (*classify.State, bool) {
	if len(b.launch.ClassifierState) > 0 {
		state, err := classify.Restore(b.launch.ClassifierState, b.taught.opts()...)
		if err == nil {
			return state, true
		}
	}
	return classify.New(server, b.taught.opts()...), false
}

// classifierLines appends the classifier's view of lines to out (a
// buffer the caller may reuse: the classifier keeps no line it is fed).
func classifierLines(out []classify.Line, lines []decode.Line, times []lineTime, received time.Time) []classify.Line {
	for i, l := range lines {
		t := l.TS
		if t.IsZero() {
			t = received
		}
		out = append(out, classify.Line{Seq: l.Seq, Text: l.Text, Time: t, Clock: times[i].ts})
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
		rows[i] = lineRow(&fresh[i], &times[i], v, b.received)
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

func (b *batch) saveLaunch(ctx context.Context, fresh []decode.Line, attrs launchid.Attrs, state *classify.State, res classify.Result) error {
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
		ID: b.launch.ID, Attrs: attrs, Config: res.Config, AddedLines: int64(len(fresh)),
		Phase: sum.Phase, PhaseDone: sum.PhaseDone, PhaseTotal: sum.PhaseTotal,
		LastSeq: b.launch.LastSeq, ClassifierState: saved, SettleAt: b.settleAt, PendingRuns: sum.PendingRuns > 0,
		Clock: b.clock, Endpoints: sum.Endpoints, JudgedBy: Classifier(), SignatureIDs: b.taught.ids,
	}
	if attrs.Server == "" && b.launch.GivenServer() == "" {
		// Shipped without a server: the family the lines show is the
		// launch's, for server-scoped rules, filters and webhooks.
		detected := state.Server()
		u.DetectedServer = &detected
	}
	if res.Unready != nil && b.launch.ReadySeq != nil && *b.launch.ReadySeq == res.Unready.Seq {
		// The classifier took back the readiness it reported: the server
		// never began to serve (classify.State.takeBackReady).
		u.ClearReady = true
	}
	if sum.Ready != nil && (b.launch.ReadyAt == nil || b.rebuilt || u.ClearReady) {
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
		Ready: u.ReadyAt != nil || b.launch.ReadyAt != nil && !u.ClearReady, Phase: sum.Phase,
		OpenFatal: facts.OpenFatal, ConfirmedFatal: facts.ConfirmedFatal, PendingFatal: facts.PendingFatal,
		WasReady:   b.launch.Status == status.Ready,
		NewlyReady: sum.Ready != nil && b.launch.ReadyAt == nil && len(fresh) > 0, OpenFatalAfterReady: facts.OpenFatalAfterReady,
		ExitCode: b.launch.ExitCode, ExitSignal: b.launch.ExitSignal, ExitRequested: b.launch.ExitRequested,
	}
	if f.NewlyReady && f.OpenFatalAfterReady > 0 && b.settleAt == nil {
		// Shown ready first (status.Facts.NewlyReady): the settler turns
		// it alarm at the settle bound if no batch does before.
		t := b.received.Add(b.settleAfter)
		b.settleAt, u.SettleAt = &t, &t
	}
	u.Status = status.Of(f)
	b.lastSeq, b.status = u.LastSeq, u.Status
	return b.tx.SaveLaunch(ctx, u)
}
