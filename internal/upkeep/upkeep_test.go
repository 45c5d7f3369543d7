package upkeep_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
	"launchwatch/internal/upkeep"
)

// TestRetentionWorkerRunsOnItsClock: the worker's first pass keeps a fresh
// launch, and the hourly passes of the next day on its clock delete it.
func TestRetentionWorkerRunsOnItsClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	pipe := pipeline.New(st, slog.New(slog.DiscardHandler))
	if _, err := pipe.Ingest(ctx, "worker-1", launchid.Attrs{Server: "vllm"},
		[]decode.Line{{Seq: 1, Text: "INFO step 1 of the made-up warmup"}, {Seq: 2, Text: "INFO step 2 of the made-up warmup"}}); err != nil {
		t.Fatal(err)
	}
	exists := func() bool {
		_, err := st.LaunchByKey(ctx, "worker-1")
		return err == nil
	}
	clk := clock.NewFake(time.Now())
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	waiting := clk.Waiting()
	go func() {
		defer close(done)
		upkeep.RunRetention(wctx, st, clk, 24*time.Hour, time.Hour, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() { cancel(); <-done })
	<-waiting // the first pass ran, and kept the fresh launch
	if !exists() {
		t.Fatal("the first pass deleted a fresh launch")
	}
	for range 25 { // a day and an hour later, one hourly pass after another
		waiting = clk.Waiting()
		clk.Advance(time.Hour)
		<-waiting
	}
	if exists() {
		t.Fatal("a launch a day old is still there after the passes of the next day")
	}
}

// TestCompactionWorkerCompactsAQuietLaunch: the worker's pass on its clock
// compacts a launch that went quiet, and the lines read back the same.
func TestCompactionWorkerCompactsAQuietLaunch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	start := time.Now()
	pipe := pipeline.New(st, slog.New(slog.DiscardHandler), pipeline.WithClock(clock.NewFake(start)))
	var lines []decode.Line
	for i := range 100 {
		lines = append(lines, decode.Line{Seq: int64(i + 1), Text: "INFO a quiet made-up line"})
	}
	if _, err := pipe.Ingest(ctx, "quiet-1", launchid.Attrs{}, lines); err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(start.Add(time.Hour)) // the launch is an hour quiet
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	waiting := clk.Waiting()
	go func() {
		defer close(done)
		upkeep.RunCompaction(wctx, st, clk, time.Minute, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() { cancel(); <-done })
	<-waiting // the first pass ran
	var rows int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM lines l JOIN launches x ON x.id = l.launch_id WHERE x.key = 'quiet-1'`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Errorf("%d rows left after the worker's pass, want the launch compacted", rows)
	}
	l, err := st.LaunchByKey(ctx, "quiet-1")
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.LinesBetween(ctx, l.ID, 1, 100, 200)
	if err != nil || len(got) != 100 {
		t.Fatalf("lines read back after compaction: %d, %v", len(got), err)
	}
}
