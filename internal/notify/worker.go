// Package notify tells people about launches without their watching:
// webhook targets (generic JSON, Alertmanager's webhook payload, Slack's
// incoming-webhook text), an outbox of events in PostgreSQL written in the
// transaction of the change that causes each, and a delivery worker per
// web process that routes events to targets and sends them, retried with
// backoff, each by exactly one process.
//
// Where events come from: status changes are written into the outbox
// (table webhook_events) not by Go code but by the deferred constraint
// trigger launches_webhook_status, which runs the plpgsql function
// webhook_launch_status() at the commit of any transaction that changed a
// launch's status to alarm, crashed or ready (migrations/00017_webhooks.sql),
// and wakes the workers with NOTIFY launchwatch_webhook. A launch's status
// changes in several places (ingest, the settler, exit reports, decisions,
// rules); the trigger sees every one. Silences are found by the worker's
// scan, since silent is no stored status.
package notify

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/clock"
	"launchwatch/internal/live"
	"launchwatch/internal/store"
)

// Defaults of Config.
const (
	DefaultPoll    = 5 * time.Second  // look for work other processes queued without a wake
	DefaultTimeout = 10 * time.Second // one attempt's HTTP timeout
	routeBatch     = 100              // events routed per transaction
	senders        = 4                // deliveries sent at once by one process
	retryAfterFail = time.Second      // wait after a database failure
	silentScan     = 10 * time.Second // how often silences are looked for
)

// Config configures a Worker.
type Config struct {
	// PublicURL is where people reach the server (--public-url, else the
	// listen address), for the links in payloads; no trailing slash.
	PublicURL string
	// SilentAfter is --silent-after: a starting or loading launch not heard
	// from for this long is announced silent. 0 announces no silence.
	SilentAfter time.Duration
	Clock       clock.Clock // nil: the wall clock
	// Client sends the webhooks; nil is NewClient(DefaultTimeout,
	// AllowPrivate), which refuses loopback, link-local, private and
	// metadata addresses. A client given here is used as it is.
	Client *http.Client
	// AllowPrivate is --webhook-allow-private: the default client sends to
	// any address.
	AllowPrivate bool
	Log          *slog.Logger
	// Poll bounds how long the worker waits without a wake; 0 is DefaultPoll.
	Poll time.Duration
	// Pool, when set, is LISTENed on for events other processes queue, so
	// the worker wakes at once rather than at its next poll.
	Pool *pgxpool.Pool
	// Backoff is the wait after the nth failed attempt (n from 1); nil is
	// DefaultBackoff.
	Backoff func(n int) time.Duration
	// MaxAttempts is how many attempts a delivery gets before it is given
	// up as failed; 0 is DefaultMaxAttempts.
	MaxAttempts int
}

// Worker routes and delivers webhook events; one runs in every web process.
type Worker struct {
	cfg      Config
	store    *store.Store
	wake     chan struct{}
	nextScan time.Time
}

// New returns a Worker on st.
func New(st *store.Store, cfg Config) *Worker {
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Client == nil {
		cfg.Client = NewClient(DefaultTimeout, cfg.AllowPrivate)
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Backoff == nil {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = DefaultMaxAttempts
	}
	return &Worker{cfg: cfg, store: st, wake: make(chan struct{}, 1)}
}

// Wake makes the worker look for work now (a test event queued by this
// process, say). It never blocks.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run routes and delivers until ctx ends. It works whenever woken, when
// the earliest retry is due, and at least every Poll.
func (w *Worker) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	if w.cfg.Pool != nil {
		hub := live.NewHub()
		sub := hub.Subscribe(live.AllLaunches)
		wg.Add(2)
		go func() {
			defer wg.Done()
			live.Listen(ctx, w.cfg.Pool, store.WebhookChannel, hub, w.cfg.Log)
		}()
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case <-sub.Wake():
					w.Wake()
				}
			}
		}()
	}
	for {
		next, err := w.Work(ctx)
		now := w.cfg.Clock.Now()
		if err != nil && ctx.Err() == nil {
			w.cfg.Log.Warn("notify: delivering webhooks", slog.String("error", err.Error()))
			next = now.Add(retryAfterFail)
		}
		if poll := now.Add(w.cfg.Poll); next.IsZero() || next.After(poll) {
			next = poll
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-w.cfg.Clock.At(next):
		}
	}
}

// Work does what is due now: announces new silences, routes queued events,
// sends due deliveries. It returns when the next pending delivery is due
// (zero when none is).
func (w *Worker) Work(ctx context.Context) (time.Time, error) {
	now := w.cfg.Clock.Now()
	if w.cfg.SilentAfter > 0 && !now.Before(w.nextScan) {
		if _, err := w.store.AddSilentWebhookEvents(ctx, now, w.cfg.SilentAfter); err != nil {
			return time.Time{}, err
		}
		w.nextScan = now.Add(silentScan)
	}
	for {
		n, err := w.store.RouteWebhookEvents(ctx, now, routeBatch, w.route)
		if err != nil {
			return time.Time{}, err
		}
		if n < routeBatch {
			break
		}
	}
	if err := w.deliverDue(ctx, now); err != nil {
		return time.Time{}, err
	}
	return w.store.NextWebhookDue(ctx)
}

// attemptBound is how long one delivery may take from its row lock to its
// record: the HTTP client's timeout and time for the two statements.
func (w *Worker) attemptBound() time.Duration {
	t := w.cfg.Client.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	return t + 10*time.Second
}

// deliverDue sends every delivery due at now, a few at once.
func (w *Worker) deliverDue(ctx context.Context, now time.Time) error {
	var wg sync.WaitGroup
	errs := make(chan error, senders)
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				// A delivery once taken is sent and recorded even if ctx
				// ends meanwhile (the process is stopping): abandoned
				// after its POST reached the receiver, its transaction
				// rolled back, it stayed pending, and another process
				// sent it again. The attempt's own timeout bounds it.
				dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.attemptBound())
				found, err := w.store.DeliverNext(dctx, now, func(d store.WebhookDelivery) store.DeliveryResult {
					return w.attempt(dctx, d)
				})
				cancel()
				if err != nil {
					errs <- err
					return
				}
				if !found {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs // the first error, or nil
}
