package pipeline

import (
	"context"
	"errors"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/clock"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
)

// DefaultSettleAfter bounds how long an unsettled fatal alarm waits after
// the launch's last batch for a line that could still change it (a retry
// that withdraws it, the rest of its traceback) before it counts.
const DefaultSettleAfter = 2 * time.Second

// DefaultStreamEndAfter is how long a launch whose verdict only its
// stream's end can decide (a trailing ERROR run, an undecided traceback:
// classify.Summary.PendingRuns) must go unheard, no line and no heartbeat,
// before the settler takes its stream to have ended and counts what waits
// (classify.SettleStreamEnd): the process went quiet after its failure. It
// is the web server's default silence threshold (2 minutes) less the
// settle bound, so such a launch is shown alarm rather than silent; cmd/web
// derives it from --silent-after.
const DefaultStreamEndAfter = 2*time.Minute - DefaultSettleAfter

// SettleAfter is the pipeline's settle bound.
func (p *Pipeline) SettleAfter() time.Duration { return p.settleAfter }

// Clock is the pipeline's time source.
func (p *Pipeline) Clock() clock.Clock { return p.clock }

// deadline is the launch's settle deadline after a batch whose classifier
// summary is sum: none when no fatal alarm or trailing ERROR run waits, the
// batch's arrival plus the bound when it brought lines (a new batch moves
// the deadline: its lines may be the ones that settle or withdraw the
// event), else unchanged. Once the settler has settled the launch, what
// only the stream's end decides (PendingRuns) waits for a reader
// (AwaitSettled) or more lines, not for the settler: a past deadline kept
// would have the settler settle the launch again every bound, for ever.
func (b *batch) deadline(sum classify.Summary, newLines bool) *time.Time {
	switch {
	case sum.PendingFatal == 0 && (sum.PendingRuns == 0 || b.idle):
		return nil
	case newLines || b.launch.SettleAt == nil:
		t := b.received.Add(b.settleAfter)
		return &t
	default:
		return b.launch.SettleAt
	}
}

// settleState settles the events of state as mode says, writes the line
// verdicts that revises and adds its alarms to res.
func (b *batch) settleState(ctx context.Context, state *classify.State, mode classify.SettleMode, res *classify.Result) error {
	r := state.Settle(mode)
	if err := b.tx.UpdateVerdicts(ctx, b.launch.ID, r.Lines); err != nil {
		return err
	}
	res.Alarms = append(res.Alarms, r.Alarms...) // latestAlarms keeps the last copy of each
	res.Phases = append(res.Phases, r.Phases...)
	return nil
}

// settle settles the launch's events in the transaction that holds its row
// lock: the classifier state is restored, settled as mode says, and its
// result applied exactly as a batch's (alarms, rules, status, state).
func (b *batch) settle(ctx context.Context, mode classify.SettleMode) error {
	if err := b.loadSignatures(ctx, b.launch.Server, nil); err != nil {
		return err
	}
	state, usable := b.restoreState(b.launch.GivenServer())
	var res classify.Result
	if !usable || state.LastSeq() != b.launch.LastSeq {
		// The saved state is unusable (an older classifier wrote it):
		// classify the stored lines again, as a batch would, then settle.
		var err error
		if state, res, err = b.refeed(ctx, b.launch.GivenServer(), state, nil, true); err != nil {
			return err
		}
		b.rebuilt = true
	}
	if err := b.settleState(ctx, state, mode, &res); err != nil {
		return err
	}
	return b.store(ctx, b.launch.GivenServer(), state, res, nil, launchid.Attrs{})
}

// settleMode says when settleLaunch may settle.
type settleMode int

const (
	settleDue   settleMode = iota // the settler: once the deadline passed, the alarms count (classify.SettleIdle)
	settleAsked                   // a reader after the deadline: the stream's end as it stands (classify.SettleStreamEnd)
)

// settleLaunch settles launch id under its row lock if mode allows, and
// reports whether it did. The deadline is read again under the lock: a
// batch may have moved it, or another web process settled it first.
func (p *Pipeline) settleLaunch(ctx context.Context, id int64, key string, mode settleMode) (bool, error) {
	done := false
	err := p.store.WithTx(ctx, func(tx *store.Tx) error {
		done = false
		l, err := tx.LockLaunch(ctx, id)
		if err != nil {
			return err
		}
		if l.SettleAt != nil && l.SettleAt.After(p.now()) {
			return nil // a batch moved the deadline
		}
		cm := classify.SettleIdle
		switch {
		case mode == settleDue && l.SettleAt == nil && p.streamEnded(l):
			cm = classify.SettleStreamEnd // unheard for the stream-end bound: the process went quiet
		case mode == settleDue && l.SettleAt == nil:
			return nil // settled by another process or a reader, or heard from since
		case mode == settleAsked && l.SettleAt == nil && !l.PendingRuns:
			return nil // nothing waits
		case mode == settleAsked:
			cm = classify.SettleStreamEnd
		}
		b := batch{tx: tx, launch: l, received: p.now().UTC(), settleAfter: p.settleAfter, clock: l.Clock,
			idle: cm == classify.SettleIdle, cache: p.sigs, log: p.log}
		if err := b.settle(ctx, cm); err != nil {
			return err
		}
		done = true
		return tx.Notify(ctx, key)
	})
	if errors.Is(err, store.ErrNotFound) {
		return false, nil // deleted meanwhile: nothing to settle
	}
	return done, err
}

// streamEnded reports whether launch l waits for its stream's end and has
// gone unheard (no line, no heartbeat) for the stream-end bound.
func (p *Pipeline) streamEnded(l *store.LaunchForUpdate) bool {
	return l.PendingRuns && l.LastHeard != nil && !l.LastHeard.Add(p.streamEndAfter).After(p.now())
}

// AwaitSettled waits until the verdict of launch l is settled and reports
// whether it still waits to settle. A reader asking right after the last
// batch must not be told a status that an unsettled fatal alarm is about to
// change: it waits for the deadline, at most the settle bound (a launch
// whose batches keep moving the deadline is answered as settling), then
// settles the launch itself if no settler did, by the settler's own path.
func (p *Pipeline) AwaitSettled(ctx context.Context, l *store.Launch) (*store.Launch, bool, error) {
	// What it settles it reads back: from the primary, whatever replica
	// the reader of l was given.
	ctx = store.FromPrimary(ctx)
	limit := p.now().Add(p.settleAfter)
	for l.SettleAt != nil {
		at := *l.SettleAt
		if at.After(limit) {
			return l, true, nil
		}
		select {
		case <-ctx.Done():
			return l, true, ctx.Err()
		case <-p.clock.At(at):
		}
		if _, err := p.settleLaunch(ctx, l.ID, l.Key, settleAsked); err != nil {
			return l, true, err
		}
		var err error
		if l, err = p.store.LaunchByKey(ctx, l.Key); err != nil {
			return nil, false, err
		}
	}
	if l.PendingRuns {
		// The settler settled the alarms but leaves a trailing ERROR run
		// alone; a reader after the bound is told the stream's end.
		if _, err := p.settleLaunch(ctx, l.ID, l.Key, settleAsked); err != nil {
			return l, true, err
		}
		var err error
		if l, err = p.store.LaunchByKey(ctx, l.Key); err != nil {
			return nil, false, err
		}
	}
	return l, false, nil
}
