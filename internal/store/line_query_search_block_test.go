package store_test

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestSearchInBlocks pages through searches of a compacted launch (its
// lines in blocks, the errors and alarms kept as rows beside them) with
// every other filter a search may carry, in both directions, and holds
// every page to what a scan of all the lines finds in Go and to the
// windows of the read that takes each line where it is (the search's
// fallback when a block changes under it): the same lines, cursors,
// More and scanned ranges.
func TestSearchInBlocks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	byRows := store.New(pool)
	store.SearchByRows(byRows)
	id, err := st.EnsureLaunch(ctx, "search-blocks", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var lines []store.Line
	const last = 6000 // some twelve blocks of 512
	for seq := int64(1); seq <= last; seq++ {
		if seq%11 == 0 {
			continue // holes
		}
		l := store.Line{Seq: seq, TS: t0.Add(time.Duration(seq) * time.Second), ReceivedAt: t0, Kind: "plain", Stream: "stdout",
			Level: "INFO", Rank: fmt.Sprint(seq % 2), Text: fmt.Sprintf("worker %d loaded shard %d", seq%4, seq)}
		switch {
		case seq%293 == 0:
			no := int(seq / 293)
			l.Kind, l.Level, l.AlarmNo, l.Text = "error", "ERROR", &no, fmt.Sprintf("RuntimeError: CUDA error: out of memory at step %d", seq)
		case seq%37 == 0:
			l.Kind, l.Level, l.Text = "warning", "WARNING", fmt.Sprintf("CUDA out of memory, retrying step %d", seq)
		case seq%41 == 0:
			l.Kind, l.Text = "config", fmt.Sprintf("cuda_graph=True OUT OF MEMORY guard=%d", seq)
		case seq%13 == 0:
			l.Stream, l.Text = "stderr", fmt.Sprintf("CUDA error %d (out of memory)", seq)
		}
		lines = append(lines, l)
	}
	for rest := lines; len(rest) > 0; {
		n := min(len(rest), 700)
		if err := st.WithTx(ctx, func(tx *store.Tx) error { return tx.CopyLines(ctx, id, rest[:n]) }); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if _, err := pool.Exec(ctx, `UPDATE launches SET last_seq = $2 WHERE id = $1`, id, last); err != nil {
		t.Fatal(err)
	}
	for more := true; more; {
		_, m, busy, err := st.CompactLines(ctx, id, math.MaxInt64)
		if err != nil || busy {
			t.Fatalf("compact: busy %v, %v", busy, err)
		}
		more = m
	}
	var blocks int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM line_blocks WHERE launch_id = $1`, id).Scan(&blocks); err != nil || blocks < 10 {
		t.Fatalf("%d blocks, %v", blocks, err)
	}

	type filter struct {
		name string
		f    store.LineFilter
		keep func(store.Line) bool
	}
	filters := []filter{
		{"all", store.LineFilter{}, func(store.Line) bool { return true }},
		{"level", store.LineFilter{Level: "WARNING"}, func(l store.Line) bool { return l.Level == "WARNING" }},
		{"kind", store.LineFilter{Kind: "plain"}, func(l store.Line) bool { return l.Kind == "plain" }},
		{"stream", store.LineFilter{Stream: "stderr"}, func(l store.Line) bool { return l.Stream == "stderr" }},
		{"rank", store.LineFilter{Rank: "1"}, func(l store.Line) bool { return l.Rank == "1" }},
		{"hide config", store.LineFilter{HideConfig: true}, func(l store.Line) bool { return l.Kind != "config" }},
		{"errors only", store.LineFilter{ErrorsOnly: true}, func(l store.Line) bool { return l.Kind == "error" || l.AlarmNo != nil }},
		{"hide suppressed", store.LineFilter{HideSuppressed: true}, func(store.Line) bool { return true }},
		{"in range", store.LineFilter{InRange: true, MinSeq: 700, MaxSeq: 4100}, func(l store.Line) bool { return l.Seq >= 700 && l.Seq <= 4100 }},
	}
	searches := []struct {
		name  string
		set   func(*store.LineFilter)
		match func(string) bool
	}{
		{"contains", func(f *store.LineFilter) { f.Contains = "out of memory" },
			func(s string) bool { return strings.Contains(strings.ToLower(s), "out of memory") }},
		{"regexp", func(f *store.LineFilter) { f.Match = regexp.MustCompile(`CUDA (error|out of memory)`) },
			regexp.MustCompile(`CUDA (error|out of memory)`).MatchString},
		{"rare", func(f *store.LineFilter) { f.Contains = "shard 4321" },
			func(s string) bool { return strings.Contains(s, "shard 4321") }},
	}
	for _, fl := range filters {
		for _, sr := range searches {
			t.Run(fl.name+"/"+sr.name, func(t *testing.T) {
				t.Parallel()
				var want []int64
				for _, l := range lines {
					if fl.keep(l) && sr.match(l.Text) {
						want = append(want, l.Seq)
					}
				}
				for _, back := range []bool{false, true} {
					f := fl.f
					f.Limit = 23
					sr.set(&f)
					if back {
						f.Before = last + 1
					}
					var got []int64
					for pages := 0; ; pages++ {
						w, err := st.FilteredWindow(ctx, id, f, last)
						if err != nil {
							t.Fatal(err)
						}
						wr, err := byRows.FilteredWindow(ctx, id, f, last)
						if err != nil {
							t.Fatal(err)
						}
						if a, b := windowString(w), windowString(wr); a != b {
							t.Fatalf("back=%v page %d: %s\nread by rows: %s", back, pages, a, b)
						}
						page := make([]int64, len(w.Lines))
						for i, l := range w.Lines {
							page[i] = l.Seq
							if want := lines[0]; l.Text == "" || l.Kind == "" || l.TS.IsZero() {
								t.Fatalf("line %d read as %+v (first line %+v)", l.Seq, l, want)
							}
						}
						if back {
							got = append(page, got...)
						} else {
							got = append(got, page...)
						}
						if !w.More || pages > 500 {
							break
						}
						if back {
							f.Before = w.Cursor
						} else {
							f.After = w.Cursor
						}
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("back=%v: %d lines %v…, want %d %v…", back, len(got), got[:min(5, len(got))], len(want), want[:min(5, len(want))])
					}
				}
			})
		}
	}
}

// windowString is w in full, an alarm as its number.
func windowString(w store.LineWindow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "more=%v cursor=%d scanned=%d-%d", w.More, w.Cursor, w.ScannedFrom, w.ScannedTo)
	for _, l := range w.Lines {
		alarm := -1
		if l.AlarmNo != nil {
			alarm = *l.AlarmNo
		}
		fmt.Fprintf(&b, "\n%d %s %s %v %s %s %s %s %d %q", l.Seq, l.TS, l.ReceivedAt, l.LoggedAt, l.Stream, l.Kind, l.Level, l.Rank, alarm, l.Text)
	}
	return b.String()
}
