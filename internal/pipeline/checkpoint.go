package pipeline

import (
	"context"
	"fmt"

	"launchwatch/internal/classify"
	"launchwatch/internal/decode"
	"launchwatch/internal/store"
)

// checkpointEvery is how far apart, in seqs, the classifier state of a
// launch is saved (store.Checkpoint). A gap fill reclassifies from the
// checkpoint before the gap to (at least) the first one after it, so this
// bounds its work, at the price of a saved state every so many lines.
const checkpointEvery = 256

// comparedCheckpoints is how many checkpoints after a gap a fill compares
// its state with before it gives up converging and reclassifies to the end.
const comparedCheckpoints = 16

func checkpointBlock(seq int64) int64 { return seq / checkpointEvery }

// mergeResult adds r, the result of a later feed, to all.
func mergeResult(all *classify.Result, r classify.Result) {
	all.Lines = append(all.Lines, r.Lines...)
	mergeFindings(all, r)
}

// mergeFindings adds what r, the result of a later feed, found besides
// line verdicts (alarms, phases, configuration, readiness) to all.
func mergeFindings(all *classify.Result, r classify.Result) {
	all.Alarms = append(all.Alarms, r.Alarms...)
	all.Phases = append(all.Phases, r.Phases...)
	for k, v := range r.Config {
		if all.Config == nil {
			all.Config = map[string]string{}
		}
		all.Config[k] = v
	}
	if r.Unready != nil {
		all.Unready = r.Unready
		if all.Ready != nil && all.Ready.Seq == r.Unready.Seq {
			all.Ready = nil
		}
	}
	if r.Ready != nil {
		all.Ready = r.Ready
	}
}

// refeed reclassifies the launch after fresh lines (written already,
// without verdicts) filled a gap: from the checkpoint before the first of
// them, or from the first line when scratch (the saved state is unusable)
// or no checkpoint precedes. At each later checkpoint it compares its state
// with the saved one (classify.State.Equivalent: equal but for the lines
// counted); when they are and the state holds nothing of the fresh lines
// any more, every later verdict is what it was, and it stops: the launch's
// saved state stands. It writes the verdicts that changed and the
// checkpoints, and returns the state and the result whose alarms and phases
// the batch stores.
func (b *batch) refeed(ctx context.Context, server string, saved *classify.State, fresh []decode.Line, scratch bool) (*classify.State, classify.Result, error) {
	id := b.launch.ID
	state := classify.New(server, b.taught.opts()...)
	from := int64(0)
	var later []store.Checkpoint
	if !scratch {
		cp, after, err := b.tx.CheckpointsAround(ctx, id, fresh[0].Seq, comparedCheckpoints)
		if err != nil {
			return nil, classify.Result{}, err
		}
		later = after
		if cp != nil {
			if st, err := classify.Restore(cp.State, b.taught.opts()...); err == nil {
				state, from = st, cp.Seq
			} else {
				later = nil // an older classifier's: reclassify from the first line
			}
		}
	}
	stops := make([]int64, len(later))
	for i, c := range later {
		stops[i] = c.Seq
	}
	lastFresh := int64(0)
	if len(fresh) > 0 {
		lastFresh = fresh[len(fresh)-1].Seq
	}
	r := replay{state: state, lastFresh: lastFresh, later: later, lastCheckpoint: from,
		stored: map[int64]store.StoredVerdict{}}
	if err := b.tx.ScanLinesAfter(ctx, id, from, stops, r.chunk); err != nil {
		return nil, classify.Result{}, err
	}
	if r.err != nil {
		return nil, classify.Result{}, r.err
	}
	b.replayFrom, b.converged = from, r.converged != nil
	res := r.res
	// The checkpoints it passed are rewritten; any other between its start
	// and where it stopped (all, if it did not) no longer describe the lines.
	switch {
	case r.converged == nil:
		if err := b.tx.DeleteCheckpoints(ctx, id, from, 0); err != nil {
			return nil, classify.Result{}, err
		}
	case r.passed > 0:
		if err := b.tx.DeleteCheckpoints(ctx, id, from, r.converged.Seq); err != nil {
			return nil, classify.Result{}, err
		}
	}
	if r.converged != nil {
		// The rest of the launch classifies as it did: its saved state
		// stands (it counted fewer lines, which changes nothing: lines are
		// only counted relative to each other), and so do the checkpoints
		// from here on. What the state at the checkpoint still holds,
		// later lines revised already: keep it as stored.
		state = saved
		res = r.keepHeld(res)
	}
	if err := b.tx.SaveCheckpoints(ctx, id, r.rewritten); err != nil {
		return nil, classify.Result{}, err
	}
	if err := b.tx.UpdateVerdicts(ctx, id, r.changed(res.Lines)); err != nil {
		return nil, classify.Result{}, err
	}
	return state, res, nil
}

// replay is the state of a refeed while the stored lines stream through.
type replay struct {
	state          *classify.State
	res            classify.Result
	fed            classify.Result // the last chunk's, whose memory the next reuses
	lastFresh      int64
	later          []store.Checkpoint // saved checkpoints after the start, in seq order
	lastCheckpoint int64              // the seq of the last checkpoint passed or taken
	rewritten      []store.Checkpoint
	stored         map[int64]store.StoredVerdict // the stored verdicts of the lines fed
	converged      *store.Checkpoint
	passed         int           // saved checkpoints passed before it converged
	held           classify.Held // what the state held where it converged
	err            error
}

// chunk feeds one chunk of stored lines; it returns false to stop.
func (r *replay) chunk(lines []classify.Line, vs []store.StoredVerdict) bool {
	r.state.FeedInto(&r.fed, lines)
	mergeResult(&r.res, r.fed)
	for i, l := range lines {
		r.stored[l.Seq] = vs[i]
	}
	last := lines[len(lines)-1].Seq
	for len(r.later) > 0 && r.later[0].Seq < last {
		r.later = r.later[1:] // passed without a look: past a page boundary
		r.passed++
	}
	atSaved := len(r.later) > 0 && r.later[0].Seq == last
	if !atSaved && (len(r.later) > 0 || checkpointBlock(last) <= checkpointBlock(r.lastCheckpoint)) {
		return true
	}
	now, err := r.state.MarshalBinary()
	if err != nil {
		r.err = fmt.Errorf("ingest: save checkpoint: %w", err)
		return false
	}
	if atSaved {
		cp := r.later[0]
		r.later = r.later[1:]
		if last >= r.lastFresh && r.same(cp) {
			if held := r.state.Held(); held.FromSeq == 0 || held.FromSeq > r.lastFresh {
				r.converged, r.held = &cp, held
				return false
			}
		}
	}
	r.rewritten = append(r.rewritten, store.Checkpoint{Seq: last, State: now})
	r.lastCheckpoint = last
	if atSaved {
		r.passed++
	}
	return true
}

// same reports whether the state equals checkpoint cp but for the lines
// it was fed more.
func (r *replay) same(cp store.Checkpoint) bool {
	old, err := classify.Restore(cp.State)
	return err == nil && r.state.Equivalent(old)
}

// keepHeld drops from res the alarms and phases the state still held where
// it converged: their stored rows are final, later lines revised them.
func (r *replay) keepHeld(res classify.Result) classify.Result {
	out := res
	out.Alarms, out.Phases = nil, nil
	for _, a := range res.Alarms {
		if !r.held.Alarms[a.ID] {
			out.Alarms = append(out.Alarms, a)
		}
	}
	for _, p := range res.Phases {
		if !r.held.Phases[classify.PhaseKey{Name: p.Name, BeginSeq: p.BeginSeq}] {
			out.Phases = append(out.Phases, p)
		}
	}
	return out
}

// changed returns the latest verdict of each line in vs that differs from
// the stored one; after convergence, lines the state still held keep
// theirs (later lines revised them already).
func (r *replay) changed(vs []classify.LineVerdict) []classify.LineVerdict {
	latest := make(map[int64]classify.LineVerdict, len(vs))
	for _, v := range vs {
		latest[v.Seq] = v
	}
	var out []classify.LineVerdict
	for seq, v := range latest {
		if r.converged != nil && r.held.FromSeq != 0 && seq >= r.held.FromSeq {
			continue
		}
		if s, ok := r.stored[seq]; ok && s.Same(v) {
			continue
		}
		out = append(out, v)
	}
	return out
}
