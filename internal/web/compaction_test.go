package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestCompactedLaunchIngestsAndReadsAsRows ships the same batches to two
// launches and compacts one of them into blocks between the batches: a gap
// fill that brings a traceback into compacted lines (which revises the
// verdicts of lines after it), then more lines after a quiet spell. The
// lines, the launch (status, alarms) and a search read the same on both.
func TestCompactedLaunchIngestsAndReadsAsRows(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	line := func(seq int) string {
		return fmt.Sprintf("INFO 03-01 12:%02d:%02d worker.py:88] step %d: loaded shard %d", seq/60%60, seq%60, seq, seq%13)
	}
	var gap strings.Builder
	gap.WriteString("Traceback (most recent call last):\n")
	gap.WriteString("  File \"/srv/engine/loader.py\", line 41, in load\n")
	gap.WriteString("    weights = fetch(name)\n")
	gap.WriteString("  File \"/srv/engine/store.py\", line 9, in fetch\n")
	gap.WriteString("    return table[name]\n")
	gap.WriteString("KeyError: 'lm_head.weight'\n")
	var later strings.Builder
	for seq := 601; seq <= 650; seq++ {
		fmt.Fprintln(&later, line(seq))
	}
	compact := func(key string) {
		t.Helper()
		l, err := b.store.LaunchByKey(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		var moved int64
		for more := true; more; {
			n, m, busy, err := b.store.CompactLines(ctx, l.ID, math.MaxInt64)
			if err != nil || busy {
				t.Fatalf("compact %s: busy %v, %v", key, busy, err)
			}
			moved, more = moved+n, m
		}
		if moved == 0 {
			t.Fatalf("compacting %s moved no line", key)
		}
	}
	for _, key := range []string{"as-rows", "as-blocks"} {
		var lo, hi strings.Builder
		for seq := 1; seq <= 600; seq++ {
			switch {
			case seq < 200:
				fmt.Fprintln(&lo, line(seq))
			case seq >= 206:
				fmt.Fprintln(&hi, line(seq))
			}
		}
		b.postText("/api/v1/launches/"+key+"/lines?server=vllm&seq=1", lo.String())
		b.postText("/api/v1/launches/"+key+"/lines?server=vllm&seq=206", hi.String())
	}
	compact("as-blocks")
	for _, key := range []string{"as-rows", "as-blocks"} {
		b.postText("/api/v1/launches/"+key+"/lines?server=vllm&seq=200", gap.String())
	}
	compact("as-blocks")
	for _, key := range []string{"as-rows", "as-blocks"} {
		b.postText("/api/v1/launches/"+key+"/lines?server=vllm&seq=601", later.String())
	}

	view := func(key string) string {
		var out strings.Builder
		lines := b.lines(key)
		for _, l := range lines {
			fmt.Fprintf(&out, "%d %s %s %v %q\n", l.Seq, l.Kind, l.Stream, l.Alarm != nil, l.Text)
		}
		raw := b.launchRaw(key)
		for _, k := range []string{"status", "alarms", "phase", "counts"} {
			fmt.Fprintf(&out, "%s: %s\n", k, jsonText(raw[k]))
		}
		r := b.do("GET", "/api/v1/launches/"+key+"/lines?limit=50&after=150", "", nil)
		var page linesPage
		if r.status != 200 || json.Unmarshal(r.body, &page) != nil {
			t.Fatalf("a page of %s: %d %.300s", key, r.status, r.body)
		}
		for _, l := range page.Lines {
			fmt.Fprintf(&out, "page %d %s %q\n", l.Seq, l.Kind, l.Text)
		}
		fmt.Fprintf(&out, "next %v\n", *page.NextAfter)
		return out.String()
	}
	rows, blocks := view("as-rows"), view("as-blocks")
	if !strings.Contains(rows, "KeyError: 'lm_head.weight'") || strings.Count(rows, "\n") < 650 {
		t.Fatalf("the launch read back holds too little:\n%s", rows)
	}
	if rows != blocks {
		w, g := strings.Split(rows, "\n"), strings.Split(blocks, "\n")
		for i := range min(len(w), len(g)) {
			if w[i] != g[i] {
				t.Fatalf("line %d of the reads differs:\nrows:   %.300s\nblocks: %.300s", i, w[i], g[i])
			}
		}
		t.Fatalf("the reads differ in length: %d and %d lines", len(w), len(g))
	}
}
