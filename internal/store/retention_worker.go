package store

import (
	"context"
	"log/slog"
	"time"

	"launchwatch/internal/clock"
)

// DefaultRetentionEvery is how often the retention worker runs.
const DefaultRetentionEvery = 10 * time.Minute

// RunRetention removes, at start and then every `every` on clk until ctx
// ends, the launches that expired keep ago (ApplyRetention). One worker
// runs in every web process; two passes at once are harmless (row locks,
// SKIP LOCKED, DROP TABLE IF EXISTS), so they need no coordination.
func (s *Store) RunRetention(ctx context.Context, clk clock.Clock, keep, every time.Duration, log *slog.Logger) {
	for {
		now := clk.Now()
		res, err := s.ApplyRetention(ctx, now.Add(-keep))
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("retention", slog.String("error", err.Error()))
		case res.Launches > 0 || res.Skipped > 0:
			log.Info("retention removed old launches", slog.Int("launches", res.Launches), slog.Int64("lines", res.Lines),
				slog.Any("partitions", res.Partitions), slog.Int("partitions_skipped", res.Skipped),
				slog.Duration("retention", keep))
		}
		select {
		case <-ctx.Done():
			return
		case <-clk.At(now.Add(every)):
		}
	}
}
