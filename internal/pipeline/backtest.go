package pipeline

import (
	"context"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/store"
)

// Backtesting a signature before it is saved: the most recent stored
// launches in its scope are read (within a time budget), the lines it
// matches found, and each launch with one is judged twice, as a
// reclassification would judge it, with the taught signatures in force and
// with them and the draft: what would change is the difference. Nothing is
// written and no launch is locked.

// Default bounds of a backtest.
const (
	DefaultBacktestBudget = 5 * time.Second
	DefaultBacktestLimit  = 200
	maxMatchedLines       = 20 // matched lines kept per launch
)

// BacktestOptions bound a backtest: the most recent Limit launches in
// scope, read for at most Budget of wall time.
type BacktestOptions struct {
	Budget time.Duration
	Limit  int
}

// MatchedLine is a stored line the draft matches.
type MatchedLine struct {
	Seq  int64
	Text string
	// Alarm is the stored alarm the line belongs to, nil if none.
	Alarm *store.Alarm
}

// BacktestLaunch is one launch in which the draft matches lines.
type BacktestLaunch struct {
	ID       int64
	Key      string
	From, To string        // its verdict without and with the draft (verdictOf)
	Lines    int           // lines the draft matches
	Matched  []MatchedLine // the first of them
	Alarms   []store.Alarm // its stored alarms, with people's decisions
	ReadySeq *int64        // the ready line with the draft, nil if none
}

// Changed reports whether the draft changes the launch's verdict.
func (l *BacktestLaunch) Changed() bool { return l.From != l.To }

// Backtest is what a draft signature would change among stored launches.
type Backtest struct {
	Launches     []BacktestLaunch // every launch with a matched line, newest first
	Scanned      int              // launches read
	LinesScanned int64            // their lines
	LinesMatched int              // lines the draft matches in them
	Truncated    bool             // more launches were in scope than the bounds read
	Budget       time.Duration
	Limit        int
}

// Backtest runs draft (unsaved; its scope selects the launches) over the
// most recent stored launches in its scope.
func (p *Pipeline) Backtest(ctx context.Context, draft store.Signature, o BacktestOptions) (*Backtest, error) {
	if o.Budget <= 0 {
		o.Budget = DefaultBacktestBudget
	}
	if o.Limit <= 0 {
		o.Limit = DefaultBacktestLimit
	}
	draft.ID = 0
	alone, err := classify.CompileSignatures([]classify.UserSignature{draft.Classify()})
	if err != nil {
		return nil, err
	}
	refs, err := p.store.RecentLaunches(ctx, draft.Scope, draft.ScopeValue, "", time.Time{}, o.Limit+1)
	if err != nil {
		return nil, err
	}
	bt := &Backtest{Budget: o.Budget, Limit: o.Limit}
	if len(refs) > o.Limit {
		refs, bt.Truncated = refs[:o.Limit], true
	}
	start := time.Now()
	for i, ref := range refs {
		if i > 0 && time.Since(start) > o.Budget {
			bt.Truncated = true
			break
		}
		bl, n, err := p.backtestLaunch(ctx, ref, draft, alone)
		if err != nil {
			return nil, err
		}
		bt.Scanned++
		bt.LinesScanned += n
		if bl != nil {
			bt.LinesMatched += bl.Lines
			bt.Launches = append(bt.Launches, *bl)
		}
	}
	return bt, nil
}

// backtestLaunch reads one launch and, when the draft matches any of its
// lines, judges it without and with the draft. It returns how many lines
// the launch has.
func (p *Pipeline) backtestLaunch(ctx context.Context, ref store.LaunchRef, draft store.Signature, alone *classify.Signatures) (*BacktestLaunch, int64, error) {
	var out *BacktestLaunch
	var n int64
	err := p.store.WithTx(ctx, func(tx *store.Tx) error {
		out, n = nil, 0
		l, err := tx.ReadLaunch(ctx, ref.ID)
		if err != nil {
			return err
		}
		var lines []classify.Line
		var alarmOf []int // the stored alarm of each matched line
		bl := &BacktestLaunch{ID: ref.ID, Key: ref.Key}
		err = tx.ScanLinesAfter(ctx, l.ID, 0, nil, func(chunk []classify.Line, vs []store.StoredVerdict) bool {
			for i := range chunk {
				if len(alone.Match(chunk[i].Text, l.Server)) == 0 {
					continue
				}
				bl.Lines++
				if len(bl.Matched) < maxMatchedLines {
					bl.Matched = append(bl.Matched, MatchedLine{Seq: chunk[i].Seq, Text: chunk[i].Text})
					alarmOf = append(alarmOf, vs[i].AlarmNo)
				}
			}
			lines = append(lines, chunk...)
			return true
		})
		if err != nil {
			return err
		}
		n = int64(len(lines))
		if bl.Lines == 0 {
			return nil
		}
		if bl.Alarms, err = tx.LaunchAlarms(ctx, l.ID); err != nil {
			return err
		}
		for i, no := range alarmOf {
			for k := range bl.Alarms {
				if bl.Alarms[k].No == no {
					bl.Matched[i].Alarm = &bl.Alarms[k]
				}
			}
		}
		current, err := tx.SignaturesFor(ctx, l.Server, l.Labels)
		if err != nil {
			return err
		}
		b := batch{tx: tx, launch: l, received: p.now().UTC()}
		rules, err := b.rulesInForce(ctx)
		if err != nil {
			return err
		}
		probed, err := tx.FirstHealthOK(ctx, l.ID)
		if err != nil {
			return err
		}
		mode, settle := p.settleModeFor(l, b.received)
		verdict := func(sigs []store.Signature) (string, *int64) {
			set := p.sigs.compile(sigs, p.log)
			state := classify.New(l.Server, taught{set: set}.opts()...)
			var all, fed classify.Result
			for i := 0; i < len(lines); i += scanChunk {
				state.FeedInto(&fed, lines[i:min(len(lines), i+scanChunk)])
				mergeFindings(&all, fed)
			}
			if settle {
				mergeFindings(&all, state.Settle(mode))
			}
			rec := reconcile(bl.Alarms, latestAlarms(all.Alarms), rules, l.Server, l.Labels)
			sum := state.Summary()
			var readySeq *int64
			if sum.Ready != nil {
				seq := sum.Ready.Seq
				readySeq = &seq
			}
			ready := readySeq != nil || probed != nil
			st := judgedStatus(l, rec, readySeq, ready, sum.Phase)
			return verdictOf(st, readySeq, ready, rec), readySeq
		}
		bl.From, _ = verdict(current)
		bl.To, bl.ReadySeq = verdict(append(current, draft))
		out = bl
		return nil
	})
	return out, n, err
}

// scanChunk is how many lines a backtest feeds at a time.
const scanChunk = 2048
