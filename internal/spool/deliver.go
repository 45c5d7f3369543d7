package spool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"time"

	"launchwatch/internal/client"
	"launchwatch/internal/shipper"
)

// DeliverConfig sets how entries are delivered.
type DeliverConfig struct {
	// RetryFor is how long a request is retried while the server does not
	// answer before the delivery gives up (the entry stays, its progress
	// recorded); 0 retries until ctx ends.
	RetryFor time.Duration
	Log      *slog.Logger
}

// Report is what the delivery of one entry sent.
type Report struct {
	Server, Launch string
	Lines          int64 // lines acknowledged
	Stored         int64 // of those, lines the server did not hold yet
	Resent         int64 // lines sent again: the server lost them after acknowledging them
	Health         int   // health results sent
	Exit           bool  // the exit report was sent
	Done           bool  // the entry is delivered and gone
}

// Flush delivers every entry of the spool at dir that is meant for c's
// server, oldest first. It stops at the first entry that fails (the server
// is down again, or refused it) and returns what it sent with the error.
// An entry another process is delivering is skipped, and so are the later
// entries of its launch (their seqs may depend on it); that is an
// ErrBusy.
func Flush(ctx context.Context, c *client.Client, dir string, cfg DeliverConfig) ([]Report, error) {
	entries, err := List(dir)
	if err != nil {
		return nil, err
	}
	var reports []Report
	busy := map[string]bool{}
	for _, e := range entries {
		if e.Server != c.BaseURL() || busy[keyOf(e)] {
			continue
		}
		rep, err := Deliver(ctx, c, dir, e, cfg)
		if rep.Lines > 0 || rep.Health > 0 || rep.Exit || rep.Done {
			reports = append(reports, rep)
		}
		if errors.Is(err, ErrBusy) {
			busy[keyOf(e)] = true
			continue
		}
		if err != nil {
			return reports, err
		}
	}
	if len(busy) > 0 {
		return reports, ErrBusy
	}
	return reports, nil
}

// Deliver sends one entry to c's server: its lines (after what an earlier
// delivery got acknowledged), its health results, then its exit report,
// and removes it. The server stores a line once however often it is sent,
// so a delivery cut short anywhere loses and doubles nothing.
func Deliver(ctx context.Context, c *client.Client, dir string, e *Entry, cfg DeliverConfig) (Report, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	rep := Report{Server: e.Server, Launch: e.Launch}
	unlock, ok := e.lock()
	if !ok {
		return rep, ErrBusy
	}
	defer unlock()
	// Another process may have delivered some or all of it meanwhile.
	cur, err := load(e.dir)
	if errors.Is(err, os.ErrNotExist) {
		rep.Done = true
		return rep, nil
	}
	if err != nil {
		return rep, fmt.Errorf("spool: %w", err)
	}
	*e = *cur
	if e.Relative && !e.Resolved {
		var last int64
		if err := retry(ctx, cfg.RetryFor, func() (err error) {
			last, err = c.LastSeq(ctx, e.Launch)
			return err
		}); err != nil {
			return rep, err
		}
		// After every line the server holds and every line an older
		// entry of the launch will give it.
		reserved, _ := ReservedThrough(dir, e.Server, e.Launch)
		e.Base, e.Resolved = max(last, reserved), true
		if err := e.save(); err != nil {
			return rep, err
		}
	}
	var saveErr error
	if e.Pending() > 0 {
		offset := e.offset()
		err := e.readLines(e.LinesDone, 10000, func(chunk []client.Line) error {
			for i := range chunk {
				chunk[i].Seq += offset
			}
			q := shipper.NewQueue()
			q.Push(chunk...)
			q.Close()
			s := shipper.NewSender(c, q, shipper.SenderConfig{Launch: e.Launch, Attrs: e.Attrs, RetryFor: cfg.RetryFor, Log: cfg.Log,
				OnAck: func(_ int64, lines int, ack client.Ack) {
					e.LinesDone += int64(lines)
					rep.Lines += int64(lines)
					rep.Stored += int64(ack.Accepted)
					if err := e.save(); err != nil && saveErr == nil {
						saveErr = err
					}
				}})
			return s.Run(ctx)
		})
		if err != nil {
			return rep, err
		}
		if saveErr != nil {
			return rep, saveErr
		}
	}
	// An acknowledgement is no proof (a database restored or failed over
	// meanwhile): the entry goes only once the server holds its lines.
	if e.Lines > 0 {
		if err := confirm(ctx, c, e, cfg, &rep); err != nil {
			return rep, err
		}
	}
	for e.HealthDone < len(e.Health) {
		h := e.Health[e.HealthDone]
		if err := retry(ctx, cfg.RetryFor, func() error {
			_, err := c.Health(ctx, e.Launch, h.OK, h.Detail, h.Age())
			return err
		}); err != nil {
			return rep, err
		}
		e.HealthDone++
		rep.Health++
		if err := e.save(); err != nil {
			return rep, err
		}
	}
	if x := e.Exit; x != nil {
		if err := retry(ctx, cfg.RetryFor, func() error {
			_, err := c.Exit(ctx, e.Launch, x.Code, x.Signal, x.Requested)
			return err
		}); err != nil {
			return rep, err
		}
		rep.Exit = true
	}
	if err := os.RemoveAll(e.dir); err != nil {
		return rep, fmt.Errorf("spool: removing a delivered entry: %w", err)
	}
	rep.Done = true
	return rep, nil
}

// confirm asks which of the entry's lines the server holds and sends again
// those it lost, until it holds them all.
func confirm(ctx context.Context, c *client.Client, e *Entry, cfg DeliverConfig, rep *Report) error {
	offset := e.offset()
	var first int64
	if err := e.readLines(0, 1, func(ls []client.Line) error {
		first = ls[0].Seq + offset
		return errStop
	}); err != nil && !errors.Is(err, errStop) {
		return err
	}
	for round := 1; ; round++ {
		var runs []client.SeqRun
		err := retry(ctx, cfg.RetryFor, func() (err error) {
			runs, _, err = c.SeqRuns(ctx, e.Launch, first-1)
			return err
		})
		if errors.Is(err, client.ErrNoSeqRuns) {
			return nil // an older server cannot say
		}
		if err != nil {
			return err
		}
		at, again := 0, int64(0)
		err = e.readLines(0, 10000, func(chunk []client.Line) error {
			var lost []client.Line
			for _, l := range chunk {
				l.Seq += offset
				for at < len(runs) && runs[at].To < l.Seq {
					at++
				}
				if at == len(runs) || runs[at].From > l.Seq {
					lost = append(lost, l)
				}
			}
			if len(lost) == 0 {
				return nil
			}
			cfg.Log.Warn("the server no longer holds spooled lines it acknowledged; sending them again",
				slog.String("launch", e.Launch), slog.Int("lines", len(lost)))
			q := shipper.NewQueue()
			q.Push(lost...)
			q.Close()
			if err := shipper.NewSender(c, q, shipper.SenderConfig{Launch: e.Launch, Attrs: e.Attrs, RetryFor: cfg.RetryFor, Log: cfg.Log}).Run(ctx); err != nil {
				return err
			}
			again += int64(len(lost))
			return nil
		})
		if err != nil {
			return err
		}
		rep.Resent += again
		if again == 0 {
			return nil
		}
		if round == 5 {
			return fmt.Errorf("spool: the server lost %d lines of launch %s again after they were sent again %d times", again, e.Launch, round)
		}
	}
}

var errStop = errors.New("stop")

// retry calls fn until it succeeds, fails for good, ctx ends or it has
// failed for retryFor (0: no limit), with backoff and jitter, honouring
// Retry-After.
func retry(ctx context.Context, retryFor time.Duration, fn func() error) error {
	start := time.Now()
	backoff := 200 * time.Millisecond
	for {
		err := fn()
		if err == nil || !client.Retryable(err) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if retryFor > 0 && time.Since(start) >= retryFor {
			return &shipper.GaveUpError{After: retryFor, Err: err}
		}
		wait := backoff/2 + rand.N(backoff)
		var ae *client.APIError
		if errors.As(err, &ae) && ae.RetryAfter > wait {
			wait = ae.RetryAfter
		}
		if retryFor > 0 {
			wait = max(min(wait, retryFor-time.Since(start)), time.Millisecond)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}
