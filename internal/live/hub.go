// Package live tells connected clients (browsers, `launchwatch wait`) about
// changes to launches as they happen, across any number of web processes:
// every change is a PostgreSQL NOTIFY (see store.Notify), every process
// LISTENs, and its Hub wakes the subscribers of that launch.
//
// A subscriber is woken, never sent data. Wakes coalesce, so a slow
// subscriber costs nothing to the publisher and can never make ingest wait.
// The clients following one launch are not subscribers each: the launch's
// feed (feed.go) is, and it reads each change once for all of them.
package live

import (
	"sync"
	"sync/atomic"
)

// AllLaunches is the key a subscriber uses to hear about every launch (the
// launch list).
const AllLaunches = "*"

// maxPending bounds the keys remembered for one all-launches subscriber
// between two reads; beyond it the subscriber is told to resync everything.
const maxPending = 1024

// Hub fans wake-ups out to subscribers. Its zero value is not usable; call
// NewHub.
type Hub struct {
	mu     sync.Mutex
	subs   map[string]map[*Sub]struct{}
	closed bool
	// followers counts the clients of the feeds (Feeds.Follow), whose
	// own subscriptions are the feeds' (internal).
	followers atomic.Int64
}

// NewHub returns an empty hub.
func NewHub() *Hub {
	return &Hub{subs: map[string]map[*Sub]struct{}{}}
}

// Sub is one subscription. Wake is signalled (never closed by Publish)
// whenever something the subscriber follows changed; Done is closed when the
// hub shuts down.
type Sub struct {
	key      string
	wake     chan struct{}
	done     chan struct{}
	internal bool // a feed's: not counted as a client

	mu       sync.Mutex
	pending  map[string]struct{} // changed launch keys, for AllLaunches subscribers
	overflow bool
}

// Wake is signalled when the subscription has news.
func (s *Sub) Wake() <-chan struct{} { return s.wake }

// Done is closed when the hub closes.
func (s *Sub) Done() <-chan struct{} { return s.done }

// Changed returns the launch keys that changed since the last call, and
// whether too many changed to list (then every launch must be re-read).
func (s *Sub) Changed() (keys []string, resync bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.pending {
		keys = append(keys, k)
	}
	resync = s.overflow
	s.pending, s.overflow = nil, false
	return keys, resync
}

func (s *Sub) note(key string) {
	s.mu.Lock()
	if len(s.pending) >= maxPending {
		s.overflow = true
	} else {
		if s.pending == nil {
			s.pending = map[string]struct{}{}
		}
		s.pending[key] = struct{}{}
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default: // already woken and not yet read: the wakes coalesce
	}
}

// Subscribe follows launch key, or every launch with AllLaunches. Call
// Unsubscribe when done.
func (h *Hub) Subscribe(key string) *Sub { return h.subscribe(key, false) }

func (h *Hub) subscribe(key string, internal bool) *Sub {
	s := &Sub{key: key, wake: make(chan struct{}, 1), done: make(chan struct{}), internal: internal}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		close(s.done)
		return s
	}
	if h.subs[key] == nil {
		h.subs[key] = map[*Sub]struct{}{}
	}
	h.subs[key][s] = struct{}{}
	return s
}

// Unsubscribe removes s. It is safe to call more than once.
func (h *Hub) Unsubscribe(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if set := h.subs[s.key]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(h.subs, s.key)
		}
	}
}

// Publish wakes the subscribers of launch key and of all launches. It never
// blocks.
func (h *Hub) Publish(key string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[key] {
		s.note(key)
	}
	if key != AllLaunches {
		for s := range h.subs[AllLaunches] {
			s.note(key)
		}
	}
}

// WakeAll wakes every subscriber with a resync, e.g. after the LISTEN
// connection was lost and notifications may have been missed.
func (h *Hub) WakeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, set := range h.subs {
		for s := range set {
			s.mu.Lock()
			s.overflow = true
			s.mu.Unlock()
			select {
			case s.wake <- struct{}{}:
			default:
			}
		}
	}
}

// Subscribers counts the clients this process serves: subscriptions, and
// the followers of its feeds; for metrics and tests.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := int(h.followers.Load())
	for _, set := range h.subs {
		for s := range set {
			if !s.internal {
				n++
			}
		}
	}
	return n
}

// Close ends every subscription (their Done channels close) and refuses new
// ones. Wake channels are never closed, so a concurrent Publish cannot panic.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	for _, set := range h.subs {
		for s := range set {
			close(s.done)
		}
	}
	h.subs = map[string]map[*Sub]struct{}{}
}
