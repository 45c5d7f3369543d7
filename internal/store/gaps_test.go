package store_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestGapsMatchEveryLine holds Gaps, which reads the lines of only the
// 512-seq segments (blocks) whose time span can bound a gap, to the stretches found
// between every pair of consecutive lines: on a launch whose lines are
// rows, on the same lines compacted into blocks (with the error and
// alarm lines kept as rows between them), and on one compacted in part.
// The times pause at random, inside blocks, at their edges and beside
// the rows, and run backwards too (a concatenation of logs); seqs have
// holes.
func TestGapsMatchEveryLine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rnd := rand.New(rand.NewPCG(26, 5))
	var lines []store.Line
	ts := t0
	for seq := int64(1); seq <= 24000; seq++ { // some 47 blocks of 512 seqs
		if seq%11 == 0 && seq%3 == 0 {
			continue // a hole in the seqs
		}
		switch r := rnd.IntN(1000); {
		case r < 8:
			ts = ts.Add(time.Duration(20+rnd.IntN(200)) * time.Second) // a pause, often long enough
		case r < 10:
			ts = ts.Add(-time.Duration(rnd.IntN(600)) * time.Second) // another log's earlier times
		case seq%512 == 0 && r < 400:
			ts = ts.Add(45 * time.Second) // a pause at a block's edge
		default:
			ts = ts.Add(time.Duration(rnd.IntN(900)) * time.Millisecond)
		}
		l := store.Line{Seq: seq, TS: ts, ReceivedAt: t0, Kind: "plain", Text: fmt.Sprintf("line %d", seq)}
		if rnd.IntN(40) == 0 {
			no := int(seq)
			l.Kind, l.Level, l.AlarmNo = "error", "ERROR", &no // kept a row when compacted
		}
		lines = append(lines, l)
	}
	launch := func(key string, compactThrough int64) int64 {
		t.Helper()
		id, err := st.EnsureLaunch(ctx, key, launchid.Attrs{})
		if err != nil {
			t.Fatal(err)
		}
		err = st.WithTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.LockLaunch(ctx, id); err != nil {
				return err
			}
			return tx.CopyLines(ctx, id, lines)
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `UPDATE launches SET last_seq = $2, last_line_at = $3 WHERE id = $1`,
			id, lines[len(lines)-1].Seq, t0); err != nil {
			t.Fatal(err)
		}
		for more := compactThrough > 0; more; {
			_, m, busy, err := st.CompactLines(ctx, id, compactThrough)
			if err != nil || busy {
				t.Fatalf("compact: busy %v, %v", busy, err)
			}
			more = m
		}
		return id
	}
	ids := map[string]int64{
		"rows":    launch("rows", 0),
		"blocks":  launch("blocks", math.MaxInt64),
		"in part": launch("in-part", 13600),
	}
	var blocks int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM line_blocks WHERE launch_id = $1`, ids["blocks"]).Scan(&blocks); err != nil || blocks < 40 {
		t.Fatalf("the compacted launch holds %d blocks (%v)", blocks, err)
	}
	// What Gaps must answer: every stretch between consecutive lines.
	want := func(min time.Duration, limit int) []store.Gap {
		var out []store.Gap
		for i := 1; i < len(lines) && len(out) < limit; i++ {
			if prev, l := lines[i-1], lines[i]; l.TS.Sub(prev.TS) > min {
				out = append(out, store.Gap{From: prev.TS, To: l.TS, AfterSeq: prev.Seq, ToSeq: l.Seq})
			}
		}
		return out
	}
	same := func(a, b store.Gap) bool {
		return a.From.Equal(b.From) && a.To.Equal(b.To) && a.AfterSeq == b.AfterSeq && a.ToSeq == b.ToSeq
	}
	check := func(step string) {
		t.Helper()
		for _, min := range []time.Duration{time.Second, 30 * time.Second, 44 * time.Second, 90 * time.Second, 5 * time.Minute, time.Hour} {
			for _, limit := range []int{3, 1000} {
				w := want(min, limit)
				if min == 30*time.Second && limit == 1000 && len(w) < 10 {
					t.Fatalf("the made-up log has %d gaps over 30 s, too few to test", len(w))
				}
				for name, id := range ids {
					got, err := st.Gaps(ctx, id, min, limit)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.EqualFunc(got, w, same) {
						t.Errorf("%s, %s: gaps over %s (at most %d) = %d gaps %v, want %d %v", step, name, min, limit, len(got), got, len(w), w)
					}
				}
			}
		}
	}
	// The lines were written without the pipeline: no launch has a gap
	// summary, and Gaps reads the lines.
	check("no summary")
	// The worker's repair makes one: every stretch over GapFloor.
	for name, id := range ids {
		if busy, err := st.RepairGaps(ctx, id); err != nil || busy {
			t.Fatalf("%s: repair: busy %v, %v", name, busy, err)
		}
		var through, lastSeq int64
		var n int
		if err := pool.QueryRow(ctx, `SELECT gaps_through, gaps_last_seq, (SELECT count(*) FROM launch_gaps WHERE launch_id = $1) FROM launches WHERE id = $1`,
			id).Scan(&through, &lastSeq, &n); err != nil {
			t.Fatal(err)
		}
		if last := lines[len(lines)-1].Seq; through != last || lastSeq != last || n != len(want(store.GapFloor, math.MaxInt)) {
			t.Errorf("%s: repaired summary through %d (last line %d) with %d stretches, want through %d with %d", name, through, lastSeq, n, last, len(want(store.GapFloor, math.MaxInt)))
		}
	}
	check("summary")
	// Cut back (as a gap fill cuts it) inside a block, at a block's edge,
	// inside a stretch (which the lines after the cut must then find) and
	// to nothing: the summary up to the cut, the lines after it.
	w := want(30*time.Second, 1000)
	hole := slices.IndexFunc(w, func(g store.Gap) bool { return g.ToSeq-g.AfterSeq > 1 }) // a stretch across a hole in the seqs
	if hole < 0 {
		t.Fatal("no stretch over 30 s spans a hole in the seqs")
	}
	for _, cut := range []int64{13599, 10240, w[len(w)/3].AfterSeq, w[hole].AfterSeq + 1, 0} {
		for name, id := range ids {
			if err := st.WithTx(ctx, func(tx *store.Tx) error {
				if _, err := tx.LockLaunch(ctx, id); err != nil {
					return err
				}
				return tx.CutGaps(ctx, id, cut)
			}); err != nil {
				t.Fatalf("%s: cut: %v", name, err)
			}
		}
		check(fmt.Sprintf("summary cut to %d", cut))
		for _, id := range ids {
			if _, err := st.RepairGaps(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	check("repaired again")
}
