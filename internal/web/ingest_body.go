package web

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"launchwatch/internal/decode"
)

// Defaults of the ingest body deadline: a body gets DefaultIngestBodyGrace,
// plus a second for every DefaultIngestBodyMinRate bytes it delivered. A
// 16 MiB batch may take half an hour at that rate; a client that sends
// headers and a few bytes and then stalls is gone after ten seconds.
const (
	DefaultIngestBodyGrace   = 10 * time.Second
	DefaultIngestBodyMinRate = 8 << 10 // bytes per second
)

// deadlineSetter is what http.ResponseController offers to move the
// connection's deadlines.
type deadlineSetter interface {
	SetReadDeadline(time.Time) error
	SetWriteDeadline(time.Time) error
}

// answerTime is how long after its body's read deadline a request may
// still take to be stored and answered: the server's write timeout counts
// from the request's start, and a body that arrives slowly but in time
// must not lose its answer to it.
const answerTime = 2 * time.Minute

// deadlineBody reads a request body under a read deadline that moves as
// the bytes arrive: start + grace + read/minRate. A body that falls behind
// fails with a 408 InputError instead of holding its connection, its
// goroutine and its buffer for the server's whole read timeout.
type deadlineBody struct {
	r        io.ReadCloser
	rc       deadlineSetter
	start    time.Time
	grace    time.Duration
	minRate  int64
	read     int64
	deadline time.Time // the last deadline set
	off      bool      // the connection cannot take deadlines
}

func newDeadlineBody(r io.ReadCloser, rc deadlineSetter, grace time.Duration, minRate int64) *deadlineBody {
	b := &deadlineBody{r: r, rc: rc, start: time.Now(), grace: grace, minRate: minRate}
	b.move()
	return b
}

// move sets the deadline the bytes read so far earned, when it is later
// than the one set by at least a tenth of a second (a syscall per read
// would cost more than it protects).
func (b *deadlineBody) move() {
	if b.off {
		return
	}
	d := b.start.Add(b.grace + time.Duration(float64(b.read)/float64(b.minRate)*float64(time.Second)))
	if !b.deadline.IsZero() && d.Sub(b.deadline) < 100*time.Millisecond {
		return
	}
	if err := b.rc.SetReadDeadline(d); err != nil {
		// Not a net/http connection (a test recorder, HTTP/2 without
		// support): the server's own read timeout is all there is.
		b.off = errors.Is(err, http.ErrNotSupported)
		return
	}
	b.deadline = d
	_ = b.rc.SetWriteDeadline(d.Add(answerTime)) // supported where the read deadline is
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read += int64(n)
	if n > 0 {
		b.move()
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		return n, &decode.InputError{Status: http.StatusRequestTimeout, Message: fmt.Sprintf(
			"the body arrived too slowly: %d bytes in %s, below the %d bytes a second (after %s) the server waits for",
			b.read, time.Since(b.start).Round(time.Millisecond), b.minRate, b.grace)}
	}
	return n, err
}

func (b *deadlineBody) Close() error { return b.r.Close() }
