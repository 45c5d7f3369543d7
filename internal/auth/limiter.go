package auth

import (
	"sync"
	"time"
)

// LoginLimiter slows password guessing: each key (a client address, a user
// name) may fail Burst times, then once per Every. It is per process; with
// several web processes an attacker gets their number times the rate,
// still far too slow to guess a password.
type LoginLimiter struct {
	Burst int
	Every time.Duration

	mu   sync.Mutex
	keys map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// maxKeys bounds the limiter's memory under a flood of distinct keys: when
// full, buckets that have refilled are dropped.
const maxKeys = 100_000

// NewLoginLimiter allows burst failures per key, then one per every.
func NewLoginLimiter(burst int, every time.Duration) *LoginLimiter {
	return &LoginLimiter{Burst: burst, Every: every, keys: map[string]*bucket{}}
}

// Wait returns how long key must wait before its next attempt (0: now).
func (l *LoginLimiter) Wait(key string, now time.Time) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.refill(key, now)
	if b == nil || b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) * float64(l.Every))
}

// Fail records a failed attempt of key.
func (l *LoginLimiter) Fail(key string, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.refill(key, now)
	if b == nil {
		if len(l.keys) >= maxKeys {
			l.sweep(now)
		}
		b = &bucket{tokens: float64(l.Burst), at: now}
		l.keys[key] = b
	}
	b.tokens--
	if b.tokens < 0 {
		b.tokens = 0
	}
}

// Succeed forgets key's failures.
func (l *LoginLimiter) Succeed(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.keys, key)
}

func (l *LoginLimiter) refill(key string, now time.Time) *bucket {
	b := l.keys[key]
	if b == nil {
		return nil
	}
	if now.After(b.at) {
		b.tokens += float64(now.Sub(b.at)) / float64(l.Every)
		if b.tokens > float64(l.Burst) {
			b.tokens = float64(l.Burst)
		}
		b.at = now
	}
	return b
}

func (l *LoginLimiter) sweep(now time.Time) {
	for k := range l.keys {
		if b := l.refill(k, now); b.tokens >= float64(l.Burst) {
			delete(l.keys, k)
		}
	}
}
