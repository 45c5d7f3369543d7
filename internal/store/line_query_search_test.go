package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// asciiFold is how the test databases (locale C) compare text in ILIKE.
func asciiFold(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 32
		}
		return r
	}, s)
}

// TestIndexedSearchFindsEveryMatch searches a launch of made-up lines,
// spread over many chunks of the search index (seqs with holes, letters
// in both cases, characters that fold to ASCII letters), with substrings
// and RE2 expressions, and compares every page with what a scan of all
// lines finds in Go: the index may only skip lines that cannot match.
func TestIndexedSearchFindsEveryMatch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	id, err := st.EnsureLaunch(ctx, "s", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	words := []string{"Loading", "weights", "CUDA", "error", "out of memory", "KV cache", "ſtep", "İnit", "\u212Aelvin",
		"OOM", "NCCL timeout", "ValueError:", "rank", "TP3", "50%", "a_b", "tok/s", "ready", "café", "CAFÉ"}
	rng := rand.New(rand.NewPCG(7, 11))
	now := time.Now()
	var lines []store.Line
	seq := int64(0)
	for range 3000 {
		seq += 1 + int64(rng.IntN(3)) // holes: chunks of different fill
		var sb strings.Builder
		for range 1 + rng.IntN(6) {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
		}
		lines = append(lines, store.Line{Seq: seq, TS: now, ReceivedAt: now, Kind: "plain", Text: sb.String()})
	}
	// The lines arrive as a launch's do: in batches of any size, which
	// end in the middle of a chunk that the next one continues, and with
	// some lines held back and filled in last, into chunks stored long
	// before. Every chunk's filter must hold every line's trigrams.
	var inOrder, late []store.Line
	for _, l := range lines {
		if rng.IntN(10) == 0 {
			late = append(late, l)
		} else {
			inOrder = append(inOrder, l)
		}
	}
	for rest := inOrder; len(rest) > 0; {
		n := min(len(rest), 1+rng.IntN(300))
		if err := st.WithTx(ctx, func(tx *store.Tx) error { return tx.CopyLines(ctx, id, rest[:n]) }); err != nil {
			t.Fatal(err)
		}
		rest = rest[n:]
	}
	if err := st.WithTx(ctx, func(tx *store.Tx) error { return tx.CopyLines(ctx, id, late) }); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		q  string
		re bool
	}{
		{q: "out of memory"}, {q: "OUT OF MEMORY"}, {q: "cuda error"}, {q: "kelvin"}, {q: "step"}, {q: "init"},
		{q: "café"}, {q: "50%"}, {q: "a_b"}, {q: "tok/s"}, {q: "ValueError: rank"}, {q: "nothing like it"},
		{q: `CUDA (error|out of memory)`, re: true}, {q: `(?i)kelvin|step`, re: true}, {q: `(?i)cuda\s+ERROR`, re: true},
		{q: `TP[0-9] (ready|rank)`, re: true}, {q: `^Loading`, re: true}, {q: `(?i)İnit|CAFÉ`, re: true},
		{q: `(OOM|NCCL) (timeout|rank)?`, re: true}, {q: `weights.*KV cache`, re: true}, {q: `e{2,}`, re: true},
		{q: `caf[éE]|CAF[ÉE]`, re: true}, {q: `CUDA ((?i)ERROR)`, re: true}, {q: `[%_] `, re: true},
	} {
		t.Run(tc.q, func(t *testing.T) {
			t.Parallel()
			f := store.LineFilter{Limit: 40, Contains: tc.q}
			var want []int64
			match := func(s string) bool { return strings.Contains(asciiFold(s), asciiFold(tc.q)) }
			if tc.re {
				f.Contains, f.Match = "", regexp.MustCompile(tc.q)
				match = f.Match.MatchString
			}
			for _, l := range lines {
				if match(l.Text) {
					want = append(want, l.Seq)
				}
			}
			for _, back := range []bool{false, true} {
				var got []int64
				g := f
				if back {
					g.Before = seq + 1
				}
				for pages := 0; ; pages++ {
					w, err := st.FilteredWindow(ctx, id, g, seq)
					if err != nil {
						t.Fatal(err)
					}
					page := make([]int64, len(w.Lines))
					for i, l := range w.Lines {
						page[i] = l.Seq
					}
					if back {
						got = append(page, got...)
					} else {
						got = append(got, page...)
					}
					if !w.More || pages > 200 {
						break
					}
					if back {
						g.Before = w.Cursor
					} else {
						g.After = w.Cursor
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("back=%v: %d lines %v…, want %d %v…", back, len(got), got[:min(5, len(got))], len(want), want[:min(5, len(want))])
				}
			}
		})
	}
}

// TestSearchIndexBuiltOnFirstSearch: a launch stored before the search
// index existed (no filters, not marked indexed) is indexed by its first
// search, which finds every match over the whole launch.
func TestSearchIndexBuiltOnFirstSearch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	id, err := st.EnsureLaunch(ctx, "old", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	lines := make([]store.Line, 120_000)
	for i := range lines {
		lines[i] = store.Line{Seq: int64(i + 1), TS: now, ReceivedAt: now, Kind: "plain", Text: fmt.Sprintf("tick %d", i+1)}
		if (i+1)%40_000 == 0 {
			lines[i].Text = fmt.Sprintf("Watchdog caught collective operation timeout at %d", i+1)
		}
	}
	if err := st.WithTx(ctx, func(tx *store.Tx) error { return tx.CopyLines(ctx, id, lines) }); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM line_chunks WHERE launch_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE launches SET search_indexed = false WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	w, err := st.FilteredWindow(ctx, id, store.LineFilter{Contains: "collective operation", Limit: 500, ScanLimit: 10_000}, 120_000)
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, l := range w.Lines {
		got = append(got, l.Seq)
	}
	if fmt.Sprint(got) != "[40000 80000 120000]" || w.More || w.ScannedTo != 120_000 {
		t.Errorf("first search found %v (more %v, read to %d), want every match over the whole launch", got, w.More, w.ScannedTo)
	}
	var indexed bool
	var chunks int
	if err := pool.QueryRow(ctx, `SELECT search_indexed, (SELECT count(*) FROM line_chunks WHERE launch_id = $1) FROM launches WHERE id = $1`, id).
		Scan(&indexed, &chunks); err != nil {
		t.Fatal(err)
	}
	if !indexed || chunks != 120_000/64+1 {
		t.Errorf("after the first search: indexed %v, %d chunks", indexed, chunks)
	}
}
