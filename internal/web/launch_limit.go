package web

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/store"
)

// DefaultMaxNewLaunchesPerMinute is how many launches one API token (or
// person) may create a minute when none is configured: far more than any
// fleet starts, far fewer than a shipper stuck in a loop of fresh keys.
const DefaultMaxNewLaunchesPerMinute = 600

// launchLimiter counts the launches each principal created in the last
// minute. It is kept in the memory of each web process: cheap (no query,
// no column), at the price that behind a load balancer of N processes a
// token may create up to N times the limit a minute. Every way a launch is
// created counts — a first batch of lines by any protocol, and a
// heartbeat, health report or exit report of a launch the server has not
// heard of (a heartbeat still creates its launch, so `launchwatch wait`
// sees a server that has printed nothing yet, but 5,000 heartbeats of
// fresh keys are refused after the first 600).
type launchLimiter struct {
	mu      sync.Mutex
	limit   int // 0: no limit
	window  time.Duration
	created map[string][]time.Time // by principal: creation times within the window, oldest first
	takes   int
}

func newLaunchLimiter(limit int) *launchLimiter {
	return &launchLimiter{limit: limit, window: time.Minute, created: map[string][]time.Time{}}
}

// take counts one new launch of who at now, or says how long until who may
// create one.
func (l *launchLimiter) take(who string, now time.Time) (retryAfter time.Duration, ok bool) {
	if l.limit <= 0 {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.takes++
	if l.takes%1024 == 0 {
		l.forgetIdle(now) // principals that stopped creating launches
	}
	times := l.recent(who, now)
	if len(times) >= l.limit {
		l.created[who] = times
		return times[0].Add(l.window).Sub(now), false
	}
	l.created[who] = append(times, now)
	return 0, true
}

// recent is who's creation times still inside the window at now.
func (l *launchLimiter) recent(who string, now time.Time) []time.Time {
	times := l.created[who]
	i := 0
	for i < len(times) && !times[i].After(now.Add(-l.window)) {
		i++
	}
	return times[i:]
}

func (l *launchLimiter) forgetIdle(now time.Time) {
	for who := range l.created {
		if len(l.recent(who, now)) == 0 {
			delete(l.created, who)
		}
	}
}

// limitNewLaunches puts on every authenticated request's context the gate
// store.EnsureLaunch asks before it creates a launch: a principal over its
// limit gets 429 with Retry-After, and nothing of its request is stored.
func (h *handler) limitNewLaunches(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p, ok := c.Get(principalKey).(principal)
		if m := c.Request().Method; !ok || h.launches.limit <= 0 || m == http.MethodGet || m == http.MethodHead {
			return next(c)
		}
		who := p.name
		switch {
		case p.tokenID != 0:
			who = "token#" + strconv.FormatInt(p.tokenID, 10) // two tokens may share a name
		case p.userID != 0:
			who = "user#" + strconv.FormatInt(p.userID, 10)
		}
		gate := func() error {
			wait, ok := h.launches.take(who, h.now())
			if ok {
				return nil
			}
			secs := max(1, int((wait+time.Second-1)/time.Second))
			c.Response().Header().Set(echo.HeaderRetryAfter, strconv.Itoa(secs))
			return echo.NewHTTPError(http.StatusTooManyRequests, fmt.Sprintf(
				"%s created %d launches in the last minute, the limit (--max-new-launches-per-minute): retry in %d s; lines of launches that exist are still accepted",
				p.name, h.launches.limit, secs))
		}
		r := c.Request()
		c.SetRequest(r.WithContext(store.WithLaunchGate(r.Context(), gate)))
		return next(c)
	}
}
