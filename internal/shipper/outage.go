package shipper

import (
	"fmt"
	"sync"
	"time"
)

// GaveUpError is returned when the server did not take a request for
// longer than the configured RetryFor: nothing more is tried.
type GaveUpError struct {
	After time.Duration // how long it was retried
	Err   error         // the last failure
}

func (e *GaveUpError) Error() string {
	return fmt.Sprintf("gave up after retrying for %s: %v", e.After, e.Err)
}

func (e *GaveUpError) Unwrap() error { return e.Err }

// outage tracks since when the server has failed every request, so a
// shipper with a retry limit gives up once it has failed for that long,
// however its attempts are spread. A zero limit never gives up.
type outage struct {
	limit time.Duration

	mu    sync.Mutex
	since time.Time // first failure of the current stretch; zero while the server answers
}

// fail records a failed request and reports whether the limit is reached.
func (o *outage) fail() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.since.IsZero() {
		o.since = time.Now()
	}
	return o.limit > 0 && time.Since(o.since) >= o.limit
}

// ok records an answer: the stretch of failures ends.
func (o *outage) ok() {
	o.mu.Lock()
	o.since = time.Time{}
	o.mu.Unlock()
}

// down reports whether the last request failed.
func (o *outage) down() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.since.IsZero()
}

// cap shortens a wait before the next attempt so that the last attempt is
// made when the limit is reached, not a backoff later.
func (o *outage) cap(wait time.Duration) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.limit <= 0 || o.since.IsZero() {
		return wait
	}
	return max(min(wait, o.limit-time.Since(o.since)), time.Millisecond)
}
