package pipeline

import (
	"context"
	"log/slog"
	"time"
)

// settleBatch is how many due launches the settler reads at a time.
const settleBatch = 64

// settleRetry is how long the settler waits after a failure (the database
// is down, say) before trying again.
const settleRetry = time.Second

// wakeSettler tells this process's settler that a deadline was set.
func (p *Pipeline) wakeSettler() {
	select {
	case p.deadlines <- struct{}{}:
	default: // a wake is pending already
	}
}

// RunSettler settles launches whose settle deadline passed, until ctx ends:
// one goroutine per web process. It sleeps until the earliest deadline,
// wakes at once when this process sets a deadline, and looks again at least
// every settle bound for deadlines that other web processes set (one that
// stopped before settling its launches, say). With several web processes
// each settler may pick the same launch; settleLaunch takes the row lock and
// re-reads the deadline, so one settles it and the others find nothing to do.
func (p *Pipeline) RunSettler(ctx context.Context) {
	for {
		next, err := p.settleDue(ctx)
		if err != nil && ctx.Err() == nil {
			p.log.Warn("settling verdicts", slog.String("error", err.Error()))
			next = p.now().Add(settleRetry)
		}
		if poll := p.now().Add(p.settleAfter); next.IsZero() || next.After(poll) {
			next = poll
		}
		at := p.clock.At(next)
		select {
		case <-ctx.Done():
			return
		case <-p.deadlines:
		case <-at:
		}
	}
}

// settleDue settles every launch whose deadline passed and returns the
// earliest deadline still ahead (zero if none).
func (p *Pipeline) settleDue(ctx context.Context) (time.Time, error) {
	for {
		due, err := p.store.NextSettles(ctx, settleBatch, p.streamEndAfter)
		if err != nil {
			return time.Time{}, err
		}
		now := p.now()
		for _, d := range due {
			if d.At.After(now) {
				return d.At, nil
			}
			if _, err := p.settleLaunch(ctx, d.ID, d.Key, settleDue); err != nil {
				return time.Time{}, err
			}
		}
		if len(due) < settleBatch {
			return time.Time{}, nil
		}
		// A full page, all due and settled now: read the next one.
	}
}
