package web_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
)

func TestIngestConcurrentPostsToOneLaunch(t *testing.T) {
	t.Parallel()

	t.Run("UnnumberedBatchesGetContiguousSeqs", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		const writers, batches, perBatch = 8, 15, 20
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for n := range batches {
					var body strings.Builder
					for i := range perBatch {
						fmt.Fprintf(&body, "w%d b%d l%d\n", w, n, i)
					}
					b.postText("/api/v1/launches/one/lines", body.String())
				}
			})
		}
		wg.Wait()
		lines := b.lines("one")
		if len(lines) != writers*batches*perBatch {
			t.Fatalf("%d lines stored, want %d", len(lines), writers*batches*perBatch)
		}
		seen := map[string]bool{}
		for i, l := range lines {
			if l.Seq != int64(i+1) {
				t.Fatalf("line %d has seq %d: seqs are not contiguous", i, l.Seq)
			}
			if seen[l.Text] {
				t.Fatalf("line %q stored twice", l.Text)
			}
			seen[l.Text] = true
		}
		// Each batch stays together, in order.
		for i := 0; i < len(lines); i += perBatch {
			prefix := lines[i].Text[:strings.LastIndex(lines[i].Text, " ")]
			for j := range perBatch {
				if want := fmt.Sprintf("%s l%d", prefix, j); lines[i+j].Text != want {
					t.Fatalf("seq %d = %q, want %q", lines[i+j].Seq, lines[i+j].Text, want)
				}
			}
		}
		if l := b.launch("one"); l.Counts.Lines != int64(len(lines)) || l.LastSeq != int64(len(lines)) {
			t.Errorf("launch counts = %+v, last_seq = %d", l.Counts, l.LastSeq)
		}
	})

	t.Run("NumberedBatchesOutOfOrderWithRetries", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// A launch log of 600 lines with a traceback that crosses batch
		// boundaries; shippers post its batches in random order, some twice.
		const total, perBatch = 600, 25
		text := make([]string, total+1)
		for i := 1; i <= total; i++ {
			text[i] = fmt.Sprintf("[2026-04-02 09:28:25] line %d", i)
		}
		text[290] = "Traceback (most recent call last):"
		text[291] = `  File "x.py", line 1, in <module>`
		text[292] = "    main()"
		text[293] = "KeyError: 'missing'"
		type batch struct{ from, to int }
		var batches []batch
		for from := 1; from <= total; from += perBatch {
			batches = append(batches, batch{from, from + perBatch - 1})
		}
		batches = append(batches, batches[3], batches[11], batches[12]) // retries
		rand.Shuffle(len(batches), func(i, j int) { batches[i], batches[j] = batches[j], batches[i] })
		work := make(chan batch)
		var wg sync.WaitGroup
		for range 6 {
			wg.Go(func() {
				for bt := range work {
					var body strings.Builder
					for s := bt.from; s <= bt.to; s++ {
						fmt.Fprintf(&body, `{"seq": %d, "line": %q}`+"\n", s, text[s])
					}
					b.postNDJSON("/api/v1/launches/shuffled/lines", body.String())
				}
			})
		}
		for _, bt := range batches {
			work <- bt
		}
		close(work)
		wg.Wait()

		lines := b.lines("shuffled")
		if len(lines) != total {
			t.Fatalf("%d lines stored, want %d", len(lines), total)
		}
		for i, l := range lines {
			if l.Seq != int64(i+1) || l.Text != text[i+1] {
				t.Fatalf("line %d = seq %d %q", i+1, l.Seq, l.Text)
			}
		}
		// The classification is that of an in-order arrival: one alarm for
		// the traceback, covering exactly its lines.
		l := b.launch("shuffled")
		if l.Counts.Lines != total || l.Counts.Alarms != 1 {
			t.Errorf("counts = %+v, want %d lines and 1 alarm", l.Counts, total)
		}
		for _, ln := range lines {
			inTraceback := ln.Seq >= 290 && ln.Seq <= 293
			if inTraceback != (ln.Alarm != nil) {
				t.Errorf("line %d %q: alarm = %v", ln.Seq, ln.Text, ln.Alarm)
			}
		}
	})
}

func TestIngestConcurrentPostsToManyLaunches(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const launches, batches, perBatch = 24, 6, 50
	var wg sync.WaitGroup
	for k := range launches {
		wg.Go(func() {
			key := fmt.Sprintf("many-%02d", k)
			for n := range batches {
				var body strings.Builder
				for i := range perBatch {
					fmt.Fprintf(&body, "%s %d\n", key, n*perBatch+i+1)
				}
				b.postText(fmt.Sprintf("/api/v1/launches/%s/lines?seq=%d&server=sglang", key, n*perBatch+1), body.String())
			}
		})
	}
	wg.Wait()
	for k := range launches {
		key := fmt.Sprintf("many-%02d", k)
		lines := b.lines(key)
		if len(lines) != batches*perBatch {
			t.Fatalf("%s: %d lines, want %d", key, len(lines), batches*perBatch)
		}
		for i, l := range lines {
			if want := fmt.Sprintf("%s %d", key, i+1); l.Text != want || l.Seq != int64(i+1) {
				t.Fatalf("%s line %d = seq %d %q, want %q", key, i+1, l.Seq, l.Text, want)
			}
		}
	}
}
