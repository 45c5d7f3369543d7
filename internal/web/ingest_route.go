package web

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/store"
)

// DefaultMaxConcurrentIngest is how many ingest requests a process serves
// at once when none is configured.
const DefaultMaxConcurrentIngest = 64

// bodyReadersPerSlot is how many ingest bodies may be read at once per
// ingest slot: bodies wait for no slot, but their memory is bounded too.
const bodyReadersPerSlot = 4

// DefaultDatabaseProbeAfter is when ingest asks whether a slow database
// answers at all, unless configured.
const DefaultDatabaseProbeAfter = 5 * time.Second

// overloadRetryAfterSeconds is what a client told 429 is asked to wait.
const overloadRetryAfterSeconds = "1"

// ingestRecord is what an ingest handler reports for the metrics, and its
// way into the ingest slots.
type ingestRecord struct {
	bodyBytes  int
	lines      int
	duplicates int
	// enter takes an ingest slot, once the body is read, and returns the
	// context the database work runs under (see enterIngest).
	enter func() (context.Context, error)
}

// ingestFunc is an ingest handler: it reads its body, calls rec.enter, then
// decodes and stores; it fills rec as it goes.
type ingestFunc func(c echo.Context, rec *ingestRecord) error

// ingestRoute wraps an ingest handler of a protocol. The body is read under
// a deadline that moves with a minimum rate (ingest_body.go) and before
// the request takes one of the slots that bound decoding and storing, so
// clients that send slowly hold no slot: while they trickle, other shippers
// are served, and past the deadline they get 408. The number of bodies read
// at once is bounded too (a multiple of the slots), which bounds memory.
// Past either bound the answer is 429 with Retry-After. It counts the
// request in /metrics.
func (h *handler) ingestRoute(protocol string, fn ingestFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		rec := ingestRecord{}
		err := h.serveIngest(c, &rec, fn)
		if err != nil {
			h.metrics.Rejected(protocol, rejectReason(err), time.Since(start))
			return err
		}
		h.metrics.Stored(protocol, time.Since(start), rec.bodyBytes, rec.lines, rec.duplicates)
		return nil
	}
}

func (h *handler) serveIngest(c echo.Context, rec *ingestRecord, fn ingestFunc) error {
	// One credential holds at most its share of the body slots
	// (ingest_credential.go), asked first so that a credential past it
	// takes no slot of the others even for a moment.
	release, err := h.credSlots.take(credentialKey(principalOf(c)))
	if err != nil {
		return err
	}
	defer release()
	select {
	case h.bodySlots <- struct{}{}:
	default:
		return overloaded()
	}
	reading := true
	defer func() {
		if reading {
			<-h.bodySlots
		}
	}()
	req := c.Request()
	req.Body = newDeadlineBody(req.Body, http.NewResponseController(c.Response()), h.cfg.IngestBodyGrace, h.cfg.IngestBodyMinRate)

	var stop func()
	rec.enter = func() (context.Context, error) {
		if stop != nil {
			panic("web: ingest handler entered twice")
		}
		select {
		case h.ingestSlots <- struct{}{}:
		default:
			return nil, overloaded()
		}
		<-h.bodySlots // the body is read: its place goes to the next reader
		reading = false
		release()
		ctx, cancel := h.databaseDeadline(req.Context())
		stop = func() { cancel(); <-h.ingestSlots }
		return ctx, nil
	}
	err = fn(c, rec)
	if stop != nil {
		stop()
	}
	return err
}

func overloaded() error {
	return &decode.InputError{Status: http.StatusTooManyRequests, Message: "too many ingest requests at once, retry later"}
}

// errDatabaseHung is why an ingest request's database work is cancelled
// when the database stopped answering.
var errDatabaseHung = errors.New("the database does not answer")

// databaseDeadline returns the context an ingest request's database work
// runs under. Work that takes longer than cfg.DatabaseProbeAfter is not
// cut short for that alone (filling a gap of a large launch may take a
// while): a fresh connection asks the database whether it answers, and
// only if it does not is the work cancelled, so a hung database (stopped,
// unreachable) answers 503 within about ProbeAfter plus the probe's own
// bound, while a busy one finishes its work.
func (h *handler) databaseDeadline(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	done := make(chan struct{})
	go func() {
		t := time.NewTimer(h.cfg.DatabaseProbeAfter)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			pctx, pcancel := context.WithTimeout(ctx, databaseProbeTimeout)
			err := h.store.Probe(pctx)
			pcancel()
			if err != nil && ctx.Err() == nil {
				h.log.Warn("ingest cancelled: the database does not answer", "error", err.Error())
				cancel(errDatabaseHung)
				return
			}
			t.Reset(h.cfg.DatabaseProbeAfter)
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// databaseProbeTimeout bounds the question whether the database answers.
const databaseProbeTimeout = 2 * time.Second

// storeError turns the error of database work under ctx into what the
// client is told: a request cancelled because the database hung is a 503.
func storeError(ctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(ctx), errDatabaseHung) {
		return errors.Join(store.ErrUnavailable, errDatabaseHung, err)
	}
	return err
}

// rejectReason is the metrics label of a refused ingest request.
func rejectReason(err error) string {
	var inputErr *decode.InputError
	switch {
	case errors.As(err, &inputErr):
		switch inputErr.Status {
		case http.StatusRequestEntityTooLarge:
			return "too_large"
		case http.StatusUnsupportedMediaType:
			return "unsupported"
		case http.StatusTooManyRequests:
			return "overloaded"
		case http.StatusRequestTimeout:
			return "slow"
		}
		return "invalid"
	case store.IsUnavailable(err):
		return "unavailable"
	}
	var httpErr *echo.HTTPError
	if errors.As(err, &httpErr) && httpErr.Code == http.StatusTooManyRequests {
		return "overloaded" // the new-launch limit
	}
	return "error"
}

// storeBatches stores the launches of a shipper request in one transaction
// (Pipeline.IngestAll): decoding checked the whole request first, so a
// client mistake stores nothing, and a failure while storing (the database
// went away, one launch's labels conflict) stores nothing either.
func (h *handler) storeBatches(ctx context.Context, batches []decode.Batch, rec *ingestRecord) error {
	acks, err := h.pipe.IngestAll(ctx, batches)
	if err != nil {
		return storeError(ctx, err)
	}
	for _, ack := range acks {
		rec.lines += ack.Accepted
		rec.duplicates += ack.Duplicates
	}
	return nil
}
