package pipeline

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
	"launchwatch/internal/upkeep"
)

// TestIngestKeepsTheGapSummary: in-order batches keep the launch's gap
// summary through their last line (the page then reads no line for its
// gaps), from lines without a log time retimed by the first that has one,
// and stretches across batches; a gap fill cuts it back and a lost range
// too, Gaps reading the lines after the cut meanwhile; the compaction
// worker's pass repairs it. At every step Gaps is what every pair of
// consecutive stored lines says.
func TestIngestKeepsTheGapSummary(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	now := time.Date(2026, 4, 2, 9, 30, 0, 0, time.UTC)
	p := New(st, slog.New(slog.NewTextHandler(io.Discard, nil)), WithClock(clock.NewFake(now)))
	rnd := rand.New(rand.NewPCG(42, 5))
	const n = 9000
	texts := make([]string, n+1)
	ts := time.Date(2026, 3, 30, 8, 0, 0, 0, time.UTC)
	for seq := 1; seq <= n; seq++ {
		switch r := rnd.IntN(1000); {
		case seq == 1701 || seq == 7001:
			ts = ts.Add(5 * time.Minute) // a stretch from one batch to the next
		case seq == 5005:
			ts = ts.Add(10 * time.Minute) // a stretch in the lines that come late
		case seq <= 40 || r < 30:
			texts[seq] = fmt.Sprintf("    continuation of the line before, %d", seq) // no log time of its own
			continue
		case r < 45:
			ts = ts.Add(time.Duration(25+rnd.IntN(300)) * time.Second)
		case r < 50:
			ts = ts.Add(-time.Duration(rnd.IntN(3000)) * time.Second)
		default:
			ts = ts.Add(time.Duration(rnd.IntN(2)) * time.Second)
		}
		texts[seq] = fmt.Sprintf("[%s TP%d] Decode batch. #running-req: %d", ts.Format(time.DateTime), seq%4, seq)
	}
	batch := func(seqs ...int) []decode.Line {
		var ls []decode.Line
		for _, s := range seqs {
			ls = append(ls, decode.Line{Seq: int64(s), Text: texts[s]})
		}
		return ls
	}
	span := func(lo, hi int) []int {
		var s []int
		for i := lo; i <= hi; i++ {
			if i < 5000 || i > 5020 { // 5000–5020 come late
				s = append(s, i)
			}
		}
		return s
	}
	ingest := func(ls []decode.Line) {
		t.Helper()
		if _, err := p.Ingest(ctx, "gaps", launchid.Attrs{Server: "sglang"}, ls); err != nil {
			t.Fatal(err)
		}
	}
	id, err := st.EnsureLaunch(ctx, "gaps", launchid.Attrs{Server: "sglang"})
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b store.Gap) bool {
		return a.From.Equal(b.From) && a.To.Equal(b.To) && a.AfterSeq == b.AfterSeq && a.ToSeq == b.ToSeq
	}
	// check holds Gaps to every stored pair, and says whether the
	// summary holds every line.
	check := func(step string, whole bool) {
		t.Helper()
		lines, err := st.EveryLine(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var every []store.Gap
		for i := 1; i < len(lines); i++ {
			if lines[i].TS.Sub(lines[i-1].TS) > store.GapFloor {
				every = append(every, store.Gap{From: lines[i-1].TS, To: lines[i].TS, AfterSeq: lines[i-1].Seq, ToSeq: lines[i].Seq})
			}
		}
		if len(every) < 20 {
			t.Fatalf("%s: only %d stretches over 30 s", step, len(every))
		}
		for _, min := range []time.Duration{store.GapFloor, 45 * time.Second, 2 * time.Minute, 4 * time.Minute} {
			for _, limit := range []int{5, 10_000} {
				var want []store.Gap
				for _, g := range every {
					if g.To.Sub(g.From) > min && len(want) < limit {
						want = append(want, g)
					}
				}
				got, err := st.Gaps(ctx, id, min, limit)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(got, want, same) {
					t.Errorf("%s: gaps over %s (at most %d) = %d %v, want %d %v", step, min, limit, len(got), got, len(want), want)
				}
			}
		}
		var through, last int64
		var kept int
		if err := pool.QueryRow(ctx, `SELECT gaps_through, last_seq, (SELECT count(*) FROM launch_gaps WHERE launch_id = $1) FROM launches WHERE id = $1`,
			id).Scan(&through, &last, &kept); err != nil {
			t.Fatal(err)
		}
		if whole && (through != last || kept != len(every)) {
			t.Errorf("%s: the summary holds through %d of %d with %d stretches, want all with %d", step, through, last, kept, len(every))
		}
		if !whole && through >= last {
			t.Errorf("%s: the summary holds through %d, the launch's last seq", step, through)
		}
	}
	ingest(batch(span(1, 30)...)) // no log time yet: retimed by the next batch
	ingest(batch(span(31, 1700)...))
	ingest(batch(span(1701, 2000)...))
	ingest(batch(span(2001, 7000)...))
	check("in order", true)
	ingest(batch(span(7001, n)...))
	check("in order, more", true)
	ingest(batch(5000, 5001, 5002, 5003, 5004, 5005, 5006, 5007, 5008, 5009, 5010))
	check("a gap filled", false)
	ingest(batch(5011, 5012, 5013, 5014, 5015, 5016, 5017, 5018, 5019, 5020))
	check("the rest of it", false)
	if _, err := upkeep.CompactOnce(ctx, st, now.Add(time.Hour), 0); err != nil {
		t.Fatal(err)
	}
	check("the worker's pass", true)
	if err := storetest.LoseLines(ctx, pool, id, 3000, 3400); err != nil {
		t.Fatal(err)
	}
	check("lines lost", false)
	if n, err := upkeep.RepairGaps(ctx, st, now.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("repaired %d launches (%v), want 1", n, err)
	}
	check("repaired", true)
}
