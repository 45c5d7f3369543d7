package web

import (
	"context"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
)

// HistoryHeader names the identity of the database's history (its
// cluster, timeline and OID: store.History) on every answer to a signed-in
// client. A shipper that sees it change knows the server may have lost
// lines it acknowledged (a database restored from an older copy, a lagging
// standby promoted) and checks what the server holds.
const HistoryHeader = "Launchwatch-History"

// historyTTL is how long a read of the history is used; a failover shows
// in the header at most this long after the server reaches the new
// database.
const historyTTL = time.Second

// historyCache keeps the last read of the database's history. One request
// at a time reads it again when it is older than historyTTL; the others
// meanwhile use the last read.
type historyCache struct {
	mu      sync.Mutex
	value   string
	at      time.Time
	reading bool
}

func (hc *historyCache) get(ctx context.Context, read func(context.Context) (string, error)) string {
	hc.mu.Lock()
	if time.Since(hc.at) < historyTTL || hc.reading {
		v := hc.value
		hc.mu.Unlock()
		return v
	}
	hc.reading = true
	hc.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 500*time.Millisecond)
	v, err := read(ctx)
	cancel()
	hc.mu.Lock()
	defer hc.mu.Unlock()
	hc.reading = false
	if err != nil {
		// Unknown: say nothing rather than what may be the old history.
		// Tried again at the next request.
		hc.value = ""
		return ""
	}
	hc.value, hc.at = v, time.Now()
	return v
}

// reportHistory puts the history header on the answers to signed-in
// clients (the cluster's identifier is nobody else's business).
func (h *handler) reportHistory(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if principalOf(c).level > auth.Public {
			if v := h.history.get(c.Request().Context(), h.store.History); v != "" {
				c.Response().Header().Set(HistoryHeader, v)
			}
		}
		return next(c)
	}
}
