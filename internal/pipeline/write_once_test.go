package pipeline

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestInOrderBatchesWriteBlocks: in-order batches store the blocks they
// complete straight into line_blocks (rows are left only for a batch's
// tail and for the lines an index serves); a resent batch stores nothing
// twice; a search over the launch finds every match in the blocks; a late
// line into a block (a gap fill) is stored and read in its place.
func TestInOrderBatchesWriteBlocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	p := New(st, slog.New(slog.NewTextHandler(io.Discard, nil)), WithClock(clock.NewFake(time.Date(2026, 4, 2, 9, 30, 0, 0, time.UTC))))
	p.cutFrom = 2048 // a batch of 2048 lines or more writes its blocks in two COPYs: the same blocks and rows
	text := func(seq int64) string {
		if seq%100 == 0 {
			return fmt.Sprintf("[2026-04-02 09:28:%02d TP0] Prefill batch. #new-seq: %d, cache hit shard-%d", seq%60, seq, seq)
		}
		return fmt.Sprintf("[2026-04-02 09:28:%02d TP%d] Decode batch. #running-req: %d, #token: %d", seq%60, seq%4, seq%33, seq*17)
	}
	batch := func(lo, hi int64) []decode.Line {
		var ls []decode.Line
		for s := lo; s <= hi; s++ {
			ls = append(ls, decode.Line{Seq: s, Text: text(s)})
		}
		return ls
	}
	ingest := func(ls []decode.Line, accepted, dups int) {
		t.Helper()
		ack, err := p.Ingest(ctx, "direct", launchid.Attrs{Server: "sglang"}, ls)
		if err != nil {
			t.Fatal(err)
		}
		if ack.Accepted != accepted || ack.Duplicates != dups {
			t.Fatalf("ack %+v, want %d accepted and %d duplicates", ack, accepted, dups)
		}
	}
	l, err := st.EnsureLaunch(ctx, "direct", launchid.Attrs{Server: "sglang"})
	if err != nil {
		t.Fatal(err)
	}
	stored := func(step string, wantBlocks, wantRows int) {
		t.Helper()
		var blocks, rows int
		if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM line_blocks WHERE launch_id = $1), (SELECT count(*) FROM lines WHERE launch_id = $1)`,
			l).Scan(&blocks, &rows); err != nil {
			t.Fatal(err)
		}
		if blocks != wantBlocks || rows != wantRows {
			t.Fatalf("%s: %d blocks and %d rows, want %d and %d", step, blocks, rows, wantBlocks, wantRows)
		}
	}
	// every checks that the launch reads back as seqs 1..last but for
	// missing, each with its text.
	every := func(step string, last int64, missing int64) {
		t.Helper()
		got, err := st.Lines(ctx, l, 0, 20_000)
		if err != nil {
			t.Fatal(err)
		}
		want := last
		if missing != 0 {
			want--
		}
		if int64(len(got)) != want {
			t.Fatalf("%s: %d lines read back, want %d", step, len(got), want)
		}
		seq := int64(1)
		for _, g := range got {
			if seq == missing {
				seq++
			}
			if g.Seq != seq || g.Text != text(seq) {
				t.Fatalf("%s: line %d read back as %d %q", step, seq, g.Seq, g.Text)
			}
			seq++
		}
	}

	// Blocks are 512 seqs (block 0 holds 1-511): 8000 lines are blocks
	// 0-14 (to 7679) and 321 rows.
	ingest(batch(1, 8000), 8000, 0)
	stored("one in-order batch", 15, 321)
	every("one in-order batch", 8000, 0)
	// The same batch again (a shipper retrying after a lost answer, or
	// failing over to another node): all duplicates, nothing stored.
	ingest(batch(1, 8000), 0, 8000)
	stored("the batch resent", 15, 321)
	// The next batch folds the tail rows into its first block: blocks to
	// 22 (11775), 224 rows. The one after leaves a hole at 12000: block 23
	// (11776-12287) is written without it, blocks to 30 (15871), 129 rows.
	ingest(batch(8001, 11999), 3999, 0)
	stored("the next batch", 23, 224)
	ingest(batch(12001, 16000), 4000, 0)
	stored("a batch after a hole", 31, 129)
	every("a batch after a hole", 16000, 12000)
	// A resent batch half stored: only its new lines are.
	ingest(batch(15201, 16800), 800, 800)
	stored("a batch half resent", 32, 417)
	every("a batch half resent", 16800, 12000)

	// A search reads the blocks' lines: every line of seq%100 == 0.
	w, err := st.FilteredWindow(ctx, l, store.LineFilter{Match: regexp.MustCompile(`shard-\d+00\b`), Limit: 200}, 16800)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Lines) != 167 {
		t.Fatalf("the search found %d lines, want 167", len(w.Lines))
	}
	w, err = st.FilteredWindow(ctx, l, store.LineFilter{Contains: "SHARD-1700", Limit: 100}, 16800)
	if err != nil || len(w.Lines) != 1 || w.Lines[0].Seq != 1700 {
		t.Fatalf("the substring search found %+v (%v), want line 1700", w.Lines, err)
	}

	// The late line thaws its block (11776-12287) into rows and takes its
	// place.
	ingest(batch(12000, 12000), 1, 0)
	stored("a late line into a block", 31, 417+512)
	every("a late line into a block", 16800, 0)
	ingest(batch(12000, 12000), 0, 1)
}
