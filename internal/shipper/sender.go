// Package shipper sends the lines of a launch to a Launchwatch server and
// never drops one: lines are batched by count, bytes and time, retried with
// exponential backoff and jitter while the server cannot be reached or asks
// to wait (429, 5xx, honouring Retry-After), and only forgotten once the
// server has acknowledged them (or, keeping some, later: repair.go). A
// heartbeat tells the server the shipper is alive while the launch prints
// nothing.
package shipper

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"sync/atomic"
	"time"

	"launchwatch/internal/client"
)

// SenderConfig sets how lines are batched and sent.
type SenderConfig struct {
	Launch    string
	Attrs     url.Values    // server, host, name, label.K
	MaxLines  int           // lines per batch; default 1000
	MaxBytes  int           // bytes per batch, roughly; default 1 MiB
	MaxDelay  time.Duration // how long a line may wait for its batch to fill; default 250ms
	Heartbeat time.Duration // heartbeat period while idle; default 5s
	// RetryFor is how long a batch is retried while the server does not
	// take it before Run gives up with a *GaveUpError; 0 retries forever.
	RetryFor time.Duration
	// OnAck is called after the server stored a batch, with its last seq,
	// its number of lines and the server's answer.
	OnAck func(lastSeq int64, lines int, ack client.Ack)
	// OnSuspect is called, from Run, when the server may have lost lines it
	// acknowledged: a request failed and the server answers again, or the
	// history of its database changed (client.History).
	OnSuspect func()
	// Keep is how many bytes of acknowledged lines are kept to be sent
	// again if the server turns out to have lost them (`run`: its child's
	// output is nowhere else); Run then checks what the server holds when
	// it is suspect and before it returns. 0 keeps none (`ship`: the file
	// has them).
	Keep int
	Log  *slog.Logger
}

func (c *SenderConfig) defaults() {
	if c.MaxLines <= 0 {
		c.MaxLines = 1000
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 1 << 20
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = 250 * time.Millisecond
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = 5 * time.Second
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// Sender sends the lines of a Queue.
type Sender struct {
	c      *client.Client
	q      *Queue
	cfg    SenderConfig
	outage *outage
	// failed is set when a request fails; the next answer makes the
	// sender suspect the server lost what it acknowledged.
	failed atomic.Bool
	// changes is how many history changes of the server's database the
	// sender has seen (client.History).
	changes uint64
	// kept are acknowledged lines kept to be sent again (cfg.Keep), oldest
	// first, keptBytes their size, and since the first seq a repair checks
	// (the first Run sent, until lines before the kept ones were found
	// lost and said). Only Run uses them.
	kept      []client.Line
	keptBytes int
	since     int64
	resent    atomic.Int64 // lines sent again
}

// NewSender returns a sender of q's lines to c.
func NewSender(c *client.Client, q *Queue, cfg SenderConfig) *Sender {
	cfg.defaults()
	s := &Sender{c: c, q: q, cfg: cfg, outage: &outage{limit: cfg.RetryFor}}
	_, s.changes = c.History()
	return s
}

// Resent is how many lines were sent again because the server had lost
// them.
func (s *Sender) Resent() int64 { return s.resent.Load() }

// Run sends batches until the queue is closed and empty (nil), the server
// refuses a batch for good (an error; the batch stays queued), or ctx ends.
func (s *Sender) Run(ctx context.Context) error {
	lastContact := time.Now()
	var fillSince time.Time // when the oldest waiting line was first seen
	for {
		batch, waiting, closed, hurry := s.q.peek(s.cfg.MaxLines, s.cfg.MaxBytes)
		full := len(batch) > 0 && (len(batch) < waiting || len(batch) == s.cfg.MaxLines)
		if len(batch) > 0 && fillSince.IsZero() {
			fillSince = time.Now()
		}
		due := len(batch) > 0 && (full || closed || hurry || time.Since(fillSince) >= s.cfg.MaxDelay)
		if due {
			if err := s.send(ctx, batch); err != nil {
				return err
			}
			s.q.drop(len(batch))
			s.keep(batch)
			lastContact, fillSince = time.Now(), time.Time{}
			if err := s.checkSuspect(ctx); err != nil {
				return err
			}
			continue
		}
		if closed && len(batch) == 0 {
			if s.cfg.Keep > 0 {
				// Done only when the server holds what it acknowledged.
				return s.repair(ctx)
			}
			return nil
		}
		if time.Since(lastContact) >= s.cfg.Heartbeat {
			if _, err := s.c.Heartbeat(ctx, s.cfg.Launch, s.cfg.Attrs); err != nil && ctx.Err() == nil {
				if suspicious(err) {
					s.failed.Store(true)
				}
				s.cfg.Log.Warn("heartbeat failed", slog.String("error", err.Error()))
			} else if err == nil {
				if err := s.checkSuspect(ctx); err != nil {
					return err
				}
			}
			lastContact = time.Now()
		}
		wait := s.cfg.Heartbeat - time.Since(lastContact)
		if len(batch) > 0 {
			wait = min(wait, s.cfg.MaxDelay-time.Since(fillSince))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.q.ready:
		case <-time.After(max(wait, time.Millisecond)):
		}
	}
}

// send posts one batch of the queue, retrying while the failure is
// temporary, and reports its acknowledgement.
func (s *Sender) send(ctx context.Context, batch []client.Line) error {
	ack, err := s.post(ctx, batch)
	if err != nil {
		return err
	}
	if s.cfg.OnAck != nil {
		s.cfg.OnAck(batch[len(batch)-1].Seq, len(batch), ack)
	}
	s.cfg.Log.Debug("batch stored", slog.Int("accepted", ack.Accepted), slog.Int("duplicates", ack.Duplicates),
		slog.Int64("last_seq", ack.LastSeq), slog.String("status", ack.Status))
	return nil
}

// post posts one batch, retrying while the failure is temporary.
func (s *Sender) post(ctx context.Context, batch []client.Line) (client.Ack, error) {
	body := client.EncodeLines(batch)
	backoff := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		ack, err := s.c.PostLines(ctx, s.cfg.Launch, s.cfg.Attrs, body)
		if err == nil {
			s.outage.ok()
			return ack, nil
		}
		if ctx.Err() != nil {
			return client.Ack{}, ctx.Err()
		}
		if suspicious(err) {
			s.failed.Store(true)
		}
		if !client.Retryable(err) {
			return client.Ack{}, err
		}
		if s.outage.fail() {
			return client.Ack{}, &GaveUpError{After: s.cfg.RetryFor, Err: err}
		}
		wait := jitter(backoff)
		var ae *client.APIError
		if errors.As(err, &ae) && ae.RetryAfter > wait {
			wait = ae.RetryAfter
		}
		wait = s.outage.cap(wait)
		s.cfg.Log.Warn("batch not stored yet, will retry", slog.String("error", err.Error()),
			slog.Int("attempt", attempt), slog.Duration("retry_in", wait), slog.Int("waiting_lines", s.q.Len()))
		select {
		case <-ctx.Done():
			return client.Ack{}, ctx.Err()
		case <-time.After(wait):
		}
		backoff = min(backoff*2, 30*time.Second)
	}
}

// jitter spreads d over [d/2, 3d/2) so shippers that lost the server
// together do not all come back at the same instant.
func jitter(d time.Duration) time.Duration {
	return d/2 + time.Duration(rand.Int64N(int64(d)))
}
