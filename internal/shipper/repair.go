package shipper

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"launchwatch/internal/client"
)

// A server may lose lines it acknowledged: its database restored from an
// older copy, an asynchronous standby that lagged promoted after a
// failover. An acknowledgement is then no proof, so shippers check what the
// server holds (GET /api/v1/launches/{key}/seqs) when it may have lost
// some, and send again what it lacks: a follower from its file (repair
// below), a sender of a child's output (`run`) from the lines it keeps
// (Sender.Keep). The server keeps one line per seq, so a line sent again
// that it did hold is only counted as a duplicate.

// maxRepairRounds bounds how often one check sends lost lines again before
// it gives up on a server that keeps losing them.
const maxRepairRounds = 5

// suspicious reports whether a failed request may mean the server lost what
// it acknowledged: it was not reached, or failed (5xx: its database may be
// failing over). A server that asks to wait (429) or refuses a request is
// still the one it was.
func suspicious(err error) bool {
	var ue *client.UnreachableError
	var ae *client.APIError
	return errors.As(err, &ue) || errors.As(err, &ae) && ae.Status >= 500
}

// askRuns asks the server which seqs after after it holds for the launch,
// retrying while it cannot be reached like a batch (o bounds it). A server
// too old to say answers client.ErrNoSeqRuns; its last seq is then taken
// as holding every line up to it.
func askRuns(ctx context.Context, c *client.Client, key string, after int64, o *outage) ([]client.SeqRun, int64, error) {
	backoff := 200 * time.Millisecond
	for {
		runs, last, err := c.SeqRuns(ctx, key, after)
		if errors.Is(err, client.ErrNoSeqRuns) {
			if last, err = c.LastSeq(ctx, key); err == nil {
				o.ok()
				if last > after {
					return []client.SeqRun{{From: 1, To: last}}, last, client.ErrNoSeqRuns
				}
				return nil, last, client.ErrNoSeqRuns
			}
		}
		if err == nil {
			o.ok()
			return runs, last, nil
		}
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		if !client.Retryable(err) {
			return nil, 0, err
		}
		if o.fail() {
			return nil, 0, &GaveUpError{After: o.limit, Err: err}
		}
		if !sleep(ctx, o.cap(jitter(backoff))) {
			return nil, 0, ctx.Err()
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}

// describe lists runs of seqs for a message: the first few, and how many more.
func describe(runs []client.SeqRun) string {
	var parts []string
	for i, r := range runs {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more runs", len(runs)-i))
			break
		}
		if r.From == r.To {
			parts = append(parts, fmt.Sprint(r.From))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r.From, r.To))
		}
	}
	return strings.Join(parts, ", ")
}

// resend posts lines the server had lost, in batches, retried like any.
func (s *Sender) resend(ctx context.Context, lines []client.Line) error {
	for len(lines) > 0 {
		n, size := 0, 0
		for n < len(lines) && n < s.cfg.MaxLines {
			size += len(lines[n].Text) + 64
			if n > 0 && size > s.cfg.MaxBytes {
				break
			}
			n++
		}
		if _, err := s.post(ctx, lines[:n]); err != nil {
			return err
		}
		s.resent.Add(int64(n))
		lines = lines[n:]
	}
	return nil
}

// checkSuspect looks whether the server may have lost what it acknowledged
// since the last look (a request failed, its database's history changed)
// and if so says so (OnSuspect) and, keeping lines, repairs.
func (s *Sender) checkSuspect(ctx context.Context) error {
	_, changes := s.c.History()
	changed := changes != s.changes
	s.changes = changes
	if !s.failed.Swap(false) && !changed {
		return nil
	}
	if changed {
		s.cfg.Log.Warn("the server's database is another history now (restored, or failed over): checking it still holds every line")
	}
	if s.cfg.OnSuspect != nil {
		s.cfg.OnSuspect()
	}
	if s.cfg.Keep > 0 {
		return s.repair(ctx)
	}
	return nil
}

// keep remembers an acknowledged batch, within cfg.Keep bytes.
func (s *Sender) keep(batch []client.Line) {
	if s.cfg.Keep <= 0 || len(batch) == 0 {
		return
	}
	if s.since == 0 {
		s.since = batch[0].Seq
	}
	for _, l := range batch {
		s.kept = append(s.kept, l)
		s.keptBytes += len(l.Text) + 64
	}
	drop := 0
	for s.keptBytes > s.cfg.Keep && drop < len(s.kept)-1 {
		s.keptBytes -= len(s.kept[drop].Text) + 64
		drop++
	}
	if drop > 0 {
		s.kept = append(s.kept[:0:0], s.kept[drop:]...)
	}
}

// repair checks that the server holds every line this sender had
// acknowledged and sends again, from the kept lines, those it lost. Lost
// lines that are no longer kept are said, once.
func (s *Sender) repair(ctx context.Context) error {
	if len(s.kept) == 0 {
		return nil
	}
	through := s.kept[len(s.kept)-1].Seq
	for round := 1; ; round++ {
		runs, _, err := askRuns(ctx, s.c, s.cfg.Launch, s.since-1, s.outage)
		if err != nil && !errors.Is(err, client.ErrNoSeqRuns) {
			return err
		}
		missing := client.Missing(runs, s.since, through)
		if len(missing) == 0 {
			return nil
		}
		first := s.kept[0].Seq
		var again []client.Line
		var gone int64
		for _, m := range missing {
			for seq := m.From; seq <= m.To; seq++ {
				// The kept lines are consecutive seqs: run numbers every line.
				if i := seq - first; i >= 0 && i < int64(len(s.kept)) && s.kept[i].Seq == seq {
					again = append(again, s.kept[i])
				} else {
					gone++
				}
			}
		}
		s.cfg.Log.Warn("the server no longer holds lines it acknowledged; sending them again",
			slog.String("launch", s.cfg.Launch), slog.String("seqs", describe(missing)), slog.Int("kept", len(again)))
		if gone > 0 {
			s.since = first // said once
			s.cfg.Log.Error("lines the server lost are no longer kept to send again (run keeps the newest only): they are lost",
				slog.String("launch", s.cfg.Launch), slog.Int64("lines", gone), slog.Int("kept_bytes", s.cfg.Keep))
		}
		if len(again) == 0 {
			return nil
		}
		if err := s.resend(ctx, again); err != nil {
			return err
		}
		if round == maxRepairRounds {
			return fmt.Errorf("the server lost %d lines again after they were sent again %d times", len(again), round)
		}
	}
}

// repair checks that the server holds every line of the content being
// read that it acknowledged, and sends again from the file, in order,
// those it lost. It returns how many it sent again. Lines of earlier
// contents (rotated away, truncated) cannot be sent again.
func (f *follower) repair(ctx context.Context, of *openFile) (int64, error) {
	f.mu.Lock()
	st := f.state
	f.mu.Unlock()
	if st.Seq <= st.Base || st.Dev != of.dev || st.Ino != of.ino {
		return 0, nil
	}
	runs, _, err := askRuns(ctx, f.c, f.cfg.Sender.Launch, st.Base, f.outage)
	if errors.Is(err, client.ErrNoSeqRuns) {
		if !f.warnedNoRuns {
			f.warnedNoRuns = true
			f.cfg.Log.Warn(err.Error() + "; only lines after its last one can be found missing")
		}
	} else if err != nil {
		return 0, err
	}
	missing := client.Missing(runs, st.Base+1, st.Seq)
	if len(missing) == 0 {
		return 0, nil
	}
	if gone, err := of.replaced(); err != nil || gone {
		return 0, err // truncated meanwhile: the reader moves on; those lines are gone
	}
	n := client.Count(missing)
	f.cfg.Log.Warn("the server no longer holds lines it acknowledged; sending them again from the file",
		slog.String("seqs", describe(missing)), slog.Int64("lines", n))
	var batch []client.Line
	var sendErr error
	seq, now := st.Base, time.Now().UTC()
	next := 0 // the missing run the next line may be in
	want := func(text []byte) {
		seq++
		for next < len(missing) && missing[next].To < seq {
			next++
		}
		if sendErr != nil || next == len(missing) || seq < missing[next].From {
			return
		}
		batch = append(batch, client.Line{Seq: seq, Text: string(text), TS: now})
		if len(batch) == f.sender.cfg.MaxLines {
			sendErr = f.sender.resend(ctx, batch)
			batch = batch[:0]
		}
	}
	var c cutter
	buf := make([]byte, 256<<10)
	for off := int64(0); off < st.Offset && sendErr == nil && next < len(missing); {
		k, err := of.f.ReadAt(buf[:min(int64(len(buf)), st.Offset-off)], off)
		c.feed(buf[:k], func(text []byte, _ int64) { want(text) })
		off += int64(k)
		if err == io.EOF || k == 0 {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	c.flush(func(text []byte, _ int64) { want(text) })
	if sendErr == nil && len(batch) > 0 {
		sendErr = f.sender.resend(ctx, batch)
	}
	return n, sendErr
}

// confirm makes sure, before `ship --once` reports success, that the
// server holds every line of the file's content: it checks, sends again
// what is missing, and checks again.
func (f *follower) confirm(ctx context.Context, of *openFile) error {
	for round := 1; ; round++ {
		n, err := f.repair(ctx, of)
		if err != nil || n == 0 {
			return err
		}
		if round == maxRepairRounds {
			return fmt.Errorf("the server lost %d lines again after they were sent again %d times", n, round)
		}
	}
}
