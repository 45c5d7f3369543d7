package pipeline

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"sync"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/decode"
	"launchwatch/internal/store"
)

// The launch clock (design.md, "The launch clock"): a line's time is its
// own log time plus the launch's clock offset, which ingest estimates from
// lines received live: the median of received − logged over the freshest
// line of recent live batches. An offset near a whole or half hour is the
// host's time zone written without an offset, and is taken exactly; a
// shipper's --tz (?tz=) overrides the estimate.
const (
	// clockSamples bounds the samples a launch keeps (the most recent).
	clockSamples = 31
	// backfillAfter is how far past the live offset a line may arrive and
	// still be live: beyond it, a line was backfilled (`ship --once` of an
	// older log) and tells nothing about the host's clock.
	backfillAfter = 2 * time.Minute
	// zoneSnap is how close to a whole or half hour an offset must be to
	// be a time zone.
	zoneSnap = 2 * time.Minute
	// maxZone bounds a plausible host offset: time zones run from UTC−12
	// to UTC+14; farther is an old log, not a clock.
	maxZone = 14*time.Hour + backfillAfter
	// clockSteady is how far the estimate must move before the launch's
	// offset follows it (and its stored times are moved).
	clockSteady = 5 * time.Second
)

// Clock sources of a launch.
const (
	ClockNone      = ""          // no live line with a log time yet: offset 0
	ClockEstimated = "estimated" // from lines received live
	ClockTZ        = "tz"        // the shipper's --tz
)

// tzOffset is the clock offset a host in zone s has at t: a log time
// written in local wall time, read as UTC, is the zone's offset ahead of
// the true time.
func tzOffset(s string, t time.Time) (time.Duration, bool) {
	loc, err := decode.ParseTZ(s)
	if err != nil {
		return 0, false
	}
	_, off := t.In(loc).Zone()
	return -time.Duration(off) * time.Second, true
}

// logTime is the time in a line's own text, read as UTC, or zero. A time
// without a year (vLLM's "MM-DD hh:mm:ss") takes the received year, or
// the year before when that would put it well after it was received (a
// line logged on 31 December and received on 1 January).
func logTime(text string, received time.Time) time.Time {
	t := classify.ParsePrefix(text, received.Year()).Time
	if !t.IsZero() && t.Year() == received.Year() && t.Sub(received) > maxZone+24*time.Hour {
		if back := classify.ParsePrefix(text, received.Year()-1).Time; !back.IsZero() {
			t = back
		}
	}
	return t
}

// logTimes is logTime of each line. A large batch is read in parallel
// parts: the database waits for its first rows meanwhile, so the other
// core is free (a 50,000-line batch took 8 ms on one).
func logTimes(lines []decode.Line, received time.Time) []time.Time {
	logged := make([]time.Time, len(lines))
	parts := 1
	if len(lines) >= parallelLogTimes {
		parts = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for p := range parts {
		from, to := p*len(lines)/parts, (p+1)*len(lines)/parts
		wg.Go(func() {
			for i := from; i < to; i++ {
				logged[i] = logTime(lines[i].Text, received)
			}
		})
	}
	wg.Wait()
	return logged
}

// parallelLogTimes is the batch size from which logTimes reads in parts:
// a goroutine costs about what a few lines do.
const parallelLogTimes = 4096

// clockState is a launch's clock as ingest keeps it between batches.
type clockState struct {
	Offset  time.Duration
	Source  string
	TZ      string
	Samples []int64 // received − logged, in nanoseconds, oldest first
}

// observe updates the clock with one batch received at received whose
// lines have the log times logged (zero for none), and with the batch's
// --tz. It keeps the batch's sample when the batch was received live.
func (c *clockState) observe(received time.Time, logged []time.Time, tz string) {
	if tz != "" {
		if off, ok := tzOffset(tz, received); ok {
			c.TZ, c.Source, c.Offset = tz, ClockTZ, off
		}
	}
	var first, last time.Time
	for _, t := range logged {
		if t.IsZero() {
			continue
		}
		if first.IsZero() || t.Before(first) {
			first = t
		}
		if t.After(last) {
			last = t
		}
	}
	if last.IsZero() || last.Sub(first) > backfillAfter {
		// No log time, or a batch spanning minutes of log: a backlog
		// read at once, not lines received as they were written.
		return
	}
	d := received.Sub(last) // the freshest line is the one received soonest after it was written
	if d > maxZone || d < -maxZone {
		return
	}
	if len(c.Samples) > 0 && d-c.median() > backfillAfter {
		return // received long after it was logged: backfill
	}
	c.Samples = append(c.Samples, int64(d))
	if n := len(c.Samples); n > clockSamples {
		c.Samples = slices.Clone(c.Samples[n-clockSamples:])
	}
	if c.Source == ClockTZ {
		return
	}
	// A new offset moves every stored time of the launch: a host clock's
	// error is followed only when it moved by more than clockSteady.
	if next := snapZone(c.median()); c.Source == ClockNone || next-c.Offset > clockSteady || c.Offset-next > clockSteady {
		c.Offset, c.Source = next, ClockEstimated
	}
}

// median is the median of the samples (the lower one of an even count).
func (c *clockState) median() time.Duration {
	s := slices.Clone(c.Samples)
	slices.Sort(s)
	return time.Duration(s[(len(s)-1)/2])
}

// snapZone turns a measured offset into the launch's clock offset: a time
// zone (whole or half hour, zero included) when it is near one, else the
// measured host clock error to the second.
func snapZone(d time.Duration) time.Duration {
	z := d.Round(30 * time.Minute)
	if diff := d - z; diff <= zoneSnap && diff >= -zoneSnap {
		return z
	}
	return d.Round(time.Second)
}

// lineTime is a fresh line's time on the launch clock, and its own log time.
type lineTime struct {
	ts     time.Time
	logged *time.Time
}

// clockTimes updates the launch clock with the batch (moving the stored
// times when its offset changed) and puts each fresh line on it: its own
// log time plus the offset, else the time of the line before it, else (in
// a launch no line of which had a log time yet) the shipper's time or the
// receive time. The first line with a log time gives it to the lines
// before it too.
func (b *batch) clockTimes(ctx context.Context, fresh []decode.Line, tz string) ([]lineTime, error) {
	lc := b.launch.Clock
	c := clockState{Offset: lc.Offset, Source: lc.Source, TZ: lc.TZ, Samples: lc.Samples}
	logged := logTimes(fresh, b.received)
	c.observe(b.received, logged, tz)
	if delta := c.Offset - lc.Offset; delta != 0 && lc.Logged {
		if err := b.tx.ShiftClock(ctx, b.launch.ID, delta); err != nil {
			return nil, err
		}
	}
	out := make([]lineTime, len(fresh))
	anyLogged := lc.Logged
	var prev time.Time
	for i, l := range fresh {
		if t := logged[i]; !t.IsZero() {
			ts := t.Add(c.Offset)
			out[i] = lineTime{ts: ts, logged: &logged[i]}
			if !anyLogged {
				anyLogged = true
				for j := range i {
					out[j].ts = ts
				}
				if b.launch.LastSeq > 0 {
					if err := b.tx.RetimeBefore(ctx, b.launch.ID, l.Seq, ts); err != nil {
						return nil, err
					}
				}
			}
			prev = ts
			continue
		}
		if anyLogged && prev.IsZero() {
			var err error
			if prev, err = b.tx.LineTimeBefore(ctx, b.launch.ID, l.Seq); err != nil {
				return nil, err
			}
		}
		if anyLogged && !prev.IsZero() {
			out[i].ts = prev
			continue
		}
		out[i].ts = cmp.Or(l.TS, b.received)
	}
	b.clock = store.LaunchClock{Offset: c.Offset, Source: c.Source, TZ: c.TZ, Samples: c.Samples, Logged: anyLogged}
	return out, nil
}
