package pipeline

import (
	"context"
	"fmt"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
)

// ProcessAck is the answer to a heartbeat, health result or exit report.
type ProcessAck struct {
	Launch string `json:"launch"`
	Status string `json:"status"`
}

// Heartbeat records that the launch's shipper is alive. The launch is
// created if this is the first the server hears of it, so `launchwatch
// wait` can see a launch that has not printed anything yet.
func (p *Pipeline) Heartbeat(ctx context.Context, key string, attrs launchid.Attrs) (ProcessAck, error) {
	id, err := p.store.EnsureLaunch(ctx, key, attrs)
	if err != nil {
		return ProcessAck{}, err
	}
	err = p.store.WithTx(ctx, func(tx *store.Tx) error {
		first, err := tx.Heartbeat(ctx, id, p.now().UTC())
		if err != nil || !first {
			return err
		}
		// A launch created by its heartbeat is news to the launch list and
		// to anyone waiting for it; later heartbeats only move a time.
		return tx.Notify(ctx, key)
	})
	if err != nil {
		return ProcessAck{}, err
	}
	l, err := p.store.LaunchByKey(ctx, key)
	if err != nil {
		return ProcessAck{}, err
	}
	return ProcessAck{Launch: key, Status: l.Status}, nil
}

// Health records a health probe result that ran age ago (a result that
// waited in the shipper's spool is older than its delivery). The first
// passing probe makes the launch ready, definitively; the event log keeps
// every change between passing and failing (a pass after a pass is no
// news). Neither hides what the log says: a fatal alarm still makes the
// status alarm or crashed, and an unsettled one holds the readiness back
// until it settled (status.Facts). A pass after a fatal alarm said the
// engine died is recorded on that alarm (store.Tx.HealthAfterDeath): a
// health endpoint that answers for a dead engine is a failure of its own.
func (p *Pipeline) Health(ctx context.Context, key string, ok bool, detail string, age time.Duration) (ProcessAck, error) {
	id, err := p.store.EnsureLaunch(ctx, key, launchid.Attrs{})
	if err != nil {
		return ProcessAck{}, err
	}
	kind := store.EventHealthFail
	if ok {
		kind = store.EventHealthOK
	}
	e := store.Event{Kind: kind, Detail: detail, At: p.now().UTC().Add(-age)}
	ack := ProcessAck{Launch: key}
	err = p.store.WithTx(ctx, func(tx *store.Tx) error {
		l, err := tx.LockLaunch(ctx, id)
		if err != nil {
			return err
		}
		news := true
		if ok {
			passed, err := tx.HealthPassed(ctx, id)
			if err != nil {
				return err
			}
			news = !passed
		}
		if news {
			if err := tx.AddEvent(ctx, id, e); err != nil {
				return err
			}
		}
		if ok {
			if err := tx.MarkReadyByProbe(ctx, id, e.At); err != nil {
				return err
			}
			marked, err := tx.HealthAfterDeath(ctx, id, e.At, age, detail)
			if err != nil {
				return err
			}
			news = news || marked > 0
		}
		if ack.Status, err = tx.RecomputeStatus(ctx, id); err != nil {
			return err
		}
		if !news && ack.Status == l.Status {
			return nil // a probe still passing: nobody needs to hear of it
		}
		return tx.Notify(ctx, key)
	})
	return ack, err
}

// Exit records how the launch's process ended: code, or the signal that
// killed it ("" if none). This is definitive: exited for code 0 or when the
// operator asked the process to stop (requested), crashed otherwise.
func (p *Pipeline) Exit(ctx context.Context, key string, code *int, signal string, requested bool) (ProcessAck, error) {
	if (code == nil) == (signal == "") {
		return ProcessAck{}, decode.BadRequest(`an exit report needs either "code" or "signal"`)
	}
	detail := signal
	var sig *string
	if code != nil {
		detail = fmt.Sprintf("exit code %d", *code)
	} else {
		sig = &signal
	}
	if requested {
		detail += ", stop requested by the operator"
	}
	return p.processEvent(ctx, key, store.Event{Kind: store.EventExit, Detail: detail}, func(tx *store.Tx, l *store.LaunchForUpdate, at time.Time) error {
		if l.LastSeq > 0 {
			// The process ended: no line can change its events any more,
			// so they settle now rather than at the deadline.
			b := batch{tx: tx, launch: l, received: at, settleAfter: p.settleAfter, clock: l.Clock, cache: p.sigs, log: p.log}
			if err := b.settle(ctx, classify.SettleExit); err != nil {
				return err
			}
		}
		return tx.SetExit(ctx, l.ID, code, sig, requested, at)
	})
}

// processEvent stores one process event and its effect on the launch, and
// recomputes the status, in one transaction.
func (p *Pipeline) processEvent(ctx context.Context, key string, e store.Event, apply func(*store.Tx, *store.LaunchForUpdate, time.Time) error) (ProcessAck, error) {
	id, err := p.store.EnsureLaunch(ctx, key, launchid.Attrs{})
	if err != nil {
		return ProcessAck{}, err
	}
	e.At = p.now().UTC()
	ack := ProcessAck{Launch: key}
	err = p.store.WithTx(ctx, func(tx *store.Tx) error {
		l, err := tx.LockLaunch(ctx, id)
		if err != nil {
			return err
		}
		if err := tx.AddEvent(ctx, id, e); err != nil {
			return err
		}
		if err := apply(tx, l, e.At); err != nil {
			return err
		}
		if ack.Status, err = tx.RecomputeStatus(ctx, id); err != nil {
			return err
		}
		return tx.Notify(ctx, key)
	})
	return ack, err
}
