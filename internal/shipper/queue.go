package shipper

import (
	"sync"

	"launchwatch/internal/client"
)

// Queue holds lines waiting to be sent. Push never blocks, so a server's
// output is never held up by a slow or absent Launchwatch server; the lines
// wait in memory until they are accepted.
type Queue struct {
	mu     sync.Mutex
	lines  []client.Line
	bytes  int
	closed bool
	hurry  bool          // send what waits now, without waiting for a batch to fill
	ready  chan struct{} // signalled when lines arrive or the queue closes
}

// NewQueue returns an empty queue.
func NewQueue() *Queue { return &Queue{ready: make(chan struct{}, 1)} }

// Push adds lines to the end of the queue.
func (q *Queue) Push(lines ...client.Line) {
	q.mu.Lock()
	q.lines = append(q.lines, lines...)
	for _, l := range lines {
		q.bytes += len(l.Text)
	}
	q.mu.Unlock()
	q.signal()
}

// Close says no more lines will come; the sender flushes and stops.
func (q *Queue) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

// Hurry has what waits sent at once, without waiting for its batch to
// fill: the writer waits for it to be acknowledged.
func (q *Queue) Hurry() {
	q.mu.Lock()
	q.hurry = true
	q.mu.Unlock()
	q.signal()
}

// Renumber adds delta to the seq of every waiting line, for a writer that
// learns only later where its numbering starts. Call it before a Sender
// reads the queue.
func (q *Queue) Renumber(delta int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.lines {
		q.lines[i].Seq += delta
	}
}

// Len is the number of lines waiting.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.lines)
}

// Lines returns a copy of the lines waiting, oldest first: what a stopped
// sender left unacknowledged.
func (q *Queue) Lines() []client.Line {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]client.Line(nil), q.lines...)
}

func (q *Queue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// peek returns up to maxLines lines (and about maxBytes) from the front
// without removing them, the number of lines waiting, and whether the
// queue is closed.
func (q *Queue) peek(maxLines, maxBytes int) (batch []client.Line, waiting int, closed, hurry bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	size := 0
	n := 0
	for n < len(q.lines) && n < maxLines {
		size += len(q.lines[n].Text) + 64
		if n > 0 && size > maxBytes {
			break
		}
		n++
	}
	return q.lines[:n:n], len(q.lines), q.closed, q.hurry
}

// drop removes the first n lines, once they were accepted.
func (q *Queue) drop(n int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, l := range q.lines[:n] {
		q.bytes -= len(l.Text)
	}
	q.lines = append(q.lines[:0:0], q.lines[n:]...)
}
