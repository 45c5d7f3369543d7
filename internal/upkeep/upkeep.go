// Package upkeep runs the database's housekeeping in every web process:
// compaction of lines at rest into blocks and rewriting of retired
// partitions (CompactOnce over store.CompactLines, store.PackRetiredPartitions), and the
// retention of old launches (store.ApplyRetention). The store holds the
// SQL; this package holds the loops and their schedule. Two web processes
// running them at once are harmless: each pass takes its rows with SKIP
// LOCKED and drops partitions IF EXISTS.
package upkeep

import (
	"context"
	"log/slog"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/store"
)

// Compaction defaults: a launch with no line for CompactQuietAfter is
// compacted to its end; a live one up to CompactTail seqs before its last
// line (its tail is still revised by the classifier and read by live
// followers).
const (
	CompactQuietAfter = time.Minute
	CompactTail       = 16384
)

// CompactEvery is how often RunCompaction runs by default.
const CompactEvery = 30 * time.Second

// DefaultRetentionEvery is how often the retention worker runs.
const DefaultRetentionEvery = 10 * time.Minute

// RunCompaction compacts lines at rest (CompactOnce) and rewrites the
// retired partitions it emptied (PackRetiredPartitions) at start and then
// every `every` on clk until ctx ends.
func RunCompaction(ctx context.Context, st *store.Store, clk clock.Clock, every time.Duration, log *slog.Logger) {
	for {
		now := clk.Now()
		n, err := CompactOnce(ctx, st, now.Add(-CompactQuietAfter), CompactTail)
		var packed []string
		if err == nil {
			packed, err = st.PackRetiredPartitions(ctx)
		}
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("compaction", slog.String("error", err.Error()))
		case len(packed) > 0:
			log.Info("compacted lines and rewrote retired line partitions", slog.Int64("lines", n), slog.Any("partitions", packed))
		case n > 0:
			log.Debug("compacted lines", slog.Int64("lines", n))
		}
		select {
		case <-ctx.Done():
			return
		case <-clk.At(now.Add(every)):
		}
	}
}

// RunRetention removes, at start and then every `every` on clk until ctx
// ends, the launches that expired keep ago (ApplyRetention).
func RunRetention(ctx context.Context, st *store.Store, clk clock.Clock, keep, every time.Duration, log *slog.Logger) {
	for {
		now := clk.Now()
		res, err := st.ApplyRetention(ctx, now.Add(-keep))
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
