package store_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestCopyLineRun: runs of lines written by CopyLineRun read back exactly
// as the same lines written as rows, run after run (a run that completes
// no block, runs that start and end inside blocks, one after a hole);
// what stays a row is the incomplete tail and the lines an index serves;
// a late line into a block written at ingest thaws it, and the worker
// compacts it again.
func TestCopyLineRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	rows, err := st.EnsureLaunch(ctx, "rows", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := st.EnsureLaunch(ctx, "direct", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	line := func(seq int64) store.Line {
		l := store.Line{Seq: seq, TS: t0.Add(time.Duration(seq) * time.Second), ReceivedAt: t0.Add(time.Duration(seq/100) * time.Second),
			Kind: "plain", Text: fmt.Sprintf("worker %d loaded shard %d of the weights", seq%4, seq)}
		switch {
		case seq == 900:
			l.Kind, l.Text = "ready", "Uvicorn running on http://0.0.0.0:8000"
		case seq%97 == 0:
			no := int(seq / 97)
			l.Kind, l.Level, l.AlarmNo, l.Text = "error", "ERROR", &no, fmt.Sprintf("RuntimeError: CUDA error at step %d", seq)
		case seq%50 == 0:
			l.Kind, l.Level, l.Text = "warning", "WARNING", fmt.Sprintf("slow allreduce took %d ms", seq)
		case seq%3 == 0:
			l.Level, l.Stream = "INFO", "stderr"
			logged := l.TS.Add(-time.Second)
			l.LoggedAt = &logged
		}
		return l
	}
	span := func(lo, hi int64) []store.Line {
		var ls []store.Line
		for s := lo; s <= hi; s++ {
			ls = append(ls, line(s))
		}
		return ls
	}
	// write stores ls on both launches, as rows on one and as a run (or,
	// late, as rows after a thaw) on the other, as ingest does.
	write := func(ls []store.Line, run bool) {
		t.Helper()
		for _, id := range []int64{rows, direct} {
			err := st.WithTx(ctx, func(tx *store.Tx) error {
				if _, err := tx.LockLaunch(ctx, id); err != nil {
					return err
				}
				if err := tx.ThawLines(ctx, id, ls[0].Seq, ls[len(ls)-1].Seq); err != nil {
					return err
				}
				if id == rows || !run {
					return tx.CopyLines(ctx, id, ls)
				}
				index := store.NewLineIndex()
				pieces := [][]store.Line{ls[:len(ls)/3], ls[len(ls)/3:]} // handed over in pieces that end inside a block
				return tx.CopyLineRun(ctx, id, index, ls[0].Seq, ls[len(ls)-1].Seq, func() ([]store.Line, error) {
					if len(pieces) == 0 {
						return nil, nil
					}
					p := pieces[0]
					pieces = pieces[1:]
					index.Add(p)
					return p, nil
				})
			})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := pool.Exec(ctx, `UPDATE launches SET last_seq = GREATEST(last_seq, $2), last_line_at = $3 WHERE id = $1`,
				id, ls[len(ls)-1].Seq, t0); err != nil {
				t.Fatal(err)
			}
		}
	}
	check := func(step string, wantBlocks, wantRows int, wantThrough int64) {
		t.Helper()
		want, got := readAll(t, st, rows), readAll(t, st, direct)
		if want != got {
			t.Fatalf("%s: reads differ:\n%s", step, firstDiff(want, got))
		}
		var blocks, kept int
		var through int64
		if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM line_blocks WHERE launch_id = $1), (SELECT count(*) FROM lines WHERE launch_id = $1),
			(SELECT compacted_through FROM launches WHERE id = $1)`, direct).Scan(&blocks, &kept, &through); err != nil {
			t.Fatal(err)
		}
		if blocks != wantBlocks || kept != wantRows || through != wantThrough {
			t.Fatalf("%s: %d blocks, %d rows, compacted through %d; want %d, %d, %d", step, blocks, kept, through, wantBlocks, wantRows, wantThrough)
		}
	}
	// kept counts the lines of [lo, hi] an index of lines serves.
	kept := func(lo, hi int64) int {
		n := 0
		for s := lo; s <= hi; s++ {
			if l := line(s); l.Kind == "error" || l.Kind == "ready" || l.AlarmNo != nil {
				n++
			}
		}
		return n
	}

	// Blocks are 512 seqs (block = seq >> 9).
	write(span(1, 320), true) // completes no block: rows
	check("a run inside block 0", 0, 320, 0)
	write(span(321, 1600), true) // folds 1-320 into block 0, writes blocks 0-2, leaves 1536-1600
	check("a run across blocks", 3, kept(1, 1535)+65, 1536)
	write(span(1601, 2047), true) // ends on a block's last seq: block 3 written, no tail
	check("a run that ends a block", 4, kept(1, 2047), 2048)
	write(span(2048, 4800), true)
	check("a longer run", 9, kept(1, 4607)+193, 4608)
	// A hole at 4801: the run after it still folds 4608-4800 into block 9,
	// which lacks 4801.
	write(span(4802, 8000), true)
	check("a run after a hole", 15, kept(1, 7679)+321, 7680)

	// The late line thaws its block (9) into rows; the worker compacts the
	// launch's thawed block again.
	write(span(4801, 4801), false)
	check("a late line into a block", 14, kept(1, 7679)-kept(4608, 5119)+512+321, 7680)
	for more := true; more; {
		_, m, busy, err := st.CompactLines(ctx, direct, math.MaxInt64)
		if err != nil || busy {
			t.Fatalf("compact: busy %v, %v", busy, err)
		}
		more = m
	}
	check("compacted", 16, kept(1, 8000), 8192)
}
