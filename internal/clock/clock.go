// Package clock is the time source of the server's timed work (settling
// verdicts): the wall clock in production, a clock that tests move by hand
// so that nothing timed needs a sleep.
package clock

import (
	"sync"
	"time"
)

// Clock tells the time and wakes a waiter at a given time.
type Clock interface {
	Now() time.Time
	// At returns a channel that receives once the clock reaches t (at once
	// if it has). An absolute time, not a duration: a fake clock moved
	// between reading Now and calling At cannot lose the wake-up.
	At(t time.Time) <-chan time.Time
}

// Real is the wall clock.
type Real struct{}

// Now is time.Now.
func (Real) Now() time.Time { return time.Now() }

// At fires at t on the wall clock.
func (Real) At(t time.Time) <-chan time.Time { return time.After(time.Until(t)) }

// Fake is a clock that only moves when Advance is called. Safe for
// concurrent use.
type Fake struct {
	mu      sync.Mutex
	now     time.Time
	waiters []waiter
	waiting chan struct{} // closed and replaced whenever a waiter is added
}

type waiter struct {
	at time.Time
	ch chan time.Time
}

// NewFake returns a fake clock showing t.
func NewFake(t time.Time) *Fake { return &Fake{now: t, waiting: make(chan struct{})} }

// Now returns the fake time.
func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// At fires when Advance reaches t.
func (f *Fake) At(t time.Time) <-chan time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan time.Time, 1)
	if !t.After(f.now) {
		ch <- f.now
		return ch
	}
	f.waiters = append(f.waiters, waiter{at: t, ch: ch})
	close(f.waiting)
	f.waiting = make(chan struct{})
	return ch
}

// Advance moves the clock by d and fires every waiter it reached.
func (f *Fake) Advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
	kept := f.waiters[:0]
	for _, w := range f.waiters {
		if w.at.After(f.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- f.now
	}
	f.waiters = kept
}

// Waiting returns a channel closed when the next waiter is added, so a
// test can let a goroutine reach its wait before moving the clock.
func (f *Fake) Waiting() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting
}
