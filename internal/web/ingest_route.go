package web

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/ingest"
	"launchwatch/internal/store"
)

// DefaultMaxConcurrentIngest is how many ingest requests a process serves
// at once when none is configured.
const DefaultMaxConcurrentIngest = 64

// overloadRetryAfterSeconds is what a client told 429 is asked to wait.
const overloadRetryAfterSeconds = "1"

// ingestRecord is what an ingest handler reports for the metrics.
type ingestRecord struct {
	bodyBytes  int
	lines      int
	duplicates int
}

// ingestFunc is an ingest handler: it fills rec as it goes.
type ingestFunc func(c echo.Context, rec *ingestRecord) error

// ingestRoute wraps an ingest handler of a protocol: it refuses the request
// with 429 when too many are in flight, and counts it in /metrics.
func (h *handler) ingestRoute(protocol string, fn ingestFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		var rec ingestRecord
		err := h.withIngestSlot(func() error { return fn(c, &rec) })
		if err != nil {
			h.metrics.Rejected(protocol, rejectReason(err), time.Since(start))
			return err
		}
		h.metrics.Stored(protocol, time.Since(start), rec.bodyBytes, rec.lines, rec.duplicates)
		return nil
	}
}

func (h *handler) withIngestSlot(fn func() error) error {
	select {
	case h.ingestSlots <- struct{}{}:
	default:
		return &ingest.InputError{Status: http.StatusTooManyRequests, Message: "too many ingest requests at once, retry later"}
	}
	defer func() { <-h.ingestSlots }()
	return fn()
}

// rejectReason is the metrics label of a refused ingest request.
func rejectReason(err error) string {
	var inputErr *ingest.InputError
	switch {
	case errors.As(err, &inputErr):
		switch inputErr.Status {
		case http.StatusRequestEntityTooLarge:
			return "too_large"
		case http.StatusUnsupportedMediaType:
			return "unsupported"
		case http.StatusTooManyRequests:
			return "overloaded"
		}
		return "invalid"
	case store.IsUnavailable(err):
		return "unavailable"
	}
	return "error"
}

// storeBatches stores the launches of a shipper request one after another.
// Decoding checked the whole request first, so a client mistake stores
// nothing; if storing fails half way (the database went away) the client's
// retry stores the rest, and the duplicate keys keep the first half once.
func (h *handler) storeBatches(ctx context.Context, batches []ingest.Batch, rec *ingestRecord) error {
	for _, b := range batches {
		ack, err := h.pipe.Ingest(ctx, b.Key, b.Attrs, b.Lines)
		if err != nil {
			return err
		}
		rec.lines += ack.Accepted
		rec.duplicates += ack.Duplicates
	}
	return nil
}
