package review

import (
	"context"
	"log/slog"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/store"
)

// expiryRecheck bounds how long the expiry worker sleeps: a rule made or
// changed by another process while it waits is seen within this time.
const expiryRecheck = time.Minute

// RunExpiry gives back the alarms of rules as they expire, until ctx
// ends: it re-opens what expired rules hold, then sleeps on clk until the
// next rule's expiry (at most expiryRecheck). It is the only place rule
// expiry writes; pages only read. Every web process runs one; their
// transactions lock the alarms they re-open, so two at once are safe.
func RunExpiry(ctx context.Context, st *store.Store, clk clock.Clock, log *slog.Logger) {
	for {
		now := clk.Now()
		wake := now.Add(expiryRecheck)
		if err := ReopenExpired(ctx, st, now); err != nil && ctx.Err() == nil {
			log.Warn("re-opening the alarms of expired rules", slog.String("error", err.Error()))
		}
		if next, err := st.NextRuleExpiry(ctx, now); err == nil && next != nil && next.Before(wake) {
			wake = *next
		}
		select {
		case <-ctx.Done():
			return
		case <-clk.At(wake):
		}
	}
}
