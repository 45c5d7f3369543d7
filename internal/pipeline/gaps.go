package pipeline

import (
	"context"

	"launchwatch/internal/decode"
	"launchwatch/internal/store"
)

// noteGaps keeps the launch's gap summary (store.Gaps reads it) with the
// batch's fresh lines (sorted by seq) on the launch clock: a batch that
// continues the launch adds its stretches to it; one that fills a gap
// cuts it back to before its first line, and the compaction worker
// repairs it once the launch is quiet.
func (b *batch) noteGaps(ctx context.Context, fresh []decode.Line, times []lineTime) error {
	if len(fresh) == 0 {
		return nil
	}
	if fresh[0].Seq <= b.launch.LastSeq {
		return b.tx.CutGaps(ctx, b.launch.ID, fresh[0].Seq-1)
	}
	var run store.GapRun
	for i := range fresh {
		run.Add(fresh[i].Seq, times[i].ts)
	}
	return b.tx.ExtendGaps(ctx, b.launch.ID, b.launch.LastSeq, &run)
}
