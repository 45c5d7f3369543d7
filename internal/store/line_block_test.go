package store_test

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/classify"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
	"launchwatch/internal/upkeep"
)

// TestCompactedLinesReadAsRows holds every read of lines to the same answer
// whether the lines are rows or compacted blocks: two launches get the same
// lines and the same writes, one is compacted (and thawed, and compacted
// again) between them, and every reader's answer is compared after each
// step.
func TestCompactedLinesReadAsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	rows, err := st.EnsureLaunch(ctx, "rows", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := st.EnsureLaunch(ctx, "blocks", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	write := func(ls []store.Line) {
		t.Helper()
		for _, id := range []int64{rows, blocks} {
			err := st.WithTx(ctx, func(tx *store.Tx) error {
				if _, err := tx.LockLaunch(ctx, id); err != nil {
					return err
				}
				if err := tx.ThawLines(ctx, id, ls[0].Seq, ls[len(ls)-1].Seq); err != nil {
					return err
				}
				return tx.CopyLines(ctx, id, ls)
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
	// 2000 seqs (four blocks of 512) with holes (every 7th is missing
	// until a gap fill), of every kind, with and without a log time, a
	// pause of a minute at 500.
	var first, holes []store.Line
	for seq := int64(1); seq <= 2000; seq++ {
		ts := t0.Add(time.Duration(seq) * time.Second)
		if seq > 500 {
			ts = ts.Add(time.Minute)
		}
		l := store.Line{Seq: seq, TS: ts, ReceivedAt: t0.Add(time.Duration(seq/100) * time.Second), Kind: "plain",
			Text: fmt.Sprintf("worker %d loaded shard %d of the weights", seq%4, seq)}
		switch {
		case seq == 900:
			l.Kind, l.Text = "ready", "Uvicorn running on http://0.0.0.0:8000"
		case seq%97 == 0:
			no := int(seq / 97)
			l.Kind, l.Level, l.AlarmNo, l.Text = "error", "ERROR", &no, fmt.Sprintf("RuntimeError: CUDA error at step %d", seq)
		case seq%50 == 0:
			l.Kind, l.Level, l.Text = "warning", "WARNING", fmt.Sprintf("slow allreduce took %d ms", seq)
		case seq%61 == 0:
			l.Kind, l.Text = "config", fmt.Sprintf("server_args=ServerArgs(port=%d, tp_size=2)", seq)
		case seq%3 == 0:
			l.Level, l.Stream = "INFO", "stderr"
			logged := ts.Add(-time.Second)
			l.LoggedAt = &logged
		}
		if seq%7 == 0 {
			holes = append(holes, l)
			continue
		}
		first = append(first, l)
	}
	write(first)

	compact := func() {
		t.Helper()
		var moved int64
		for more := true; more; {
			n, m, busy, err := st.CompactLines(ctx, blocks, math.MaxInt64)
			if err != nil || busy {
				t.Fatalf("compact: busy %v, %v", busy, err)
			}
			moved, more = moved+n, m
		}
		if moved == 0 {
			t.Fatal("compaction moved no line")
		}
	}
	check := func(step string) {
		t.Helper()
		want, got := readAll(t, st, rows), readAll(t, st, blocks)
		if want != got {
			t.Fatalf("%s: reads differ:\n%s", step, firstDiff(want, got))
		}
	}
	check("rows alone")
	// What a shipper is told it holds: the runs between the holes.
	if runs, err := st.SeqRuns(ctx, blocks, 10, 3); err != nil || !slices.Equal(runs, []store.SeqRun{{11, 13}, {15, 20}, {22, 27}}) {
		t.Fatalf("seq runs after 10 = %v, %v; want 11-13, 15-20, 22-27", runs, err)
	}
	if dump := readAll(t, st, rows); strings.Count(dump, "\n") < 2000 || strings.Contains(dump, "window contains: 0 lines") {
		t.Fatalf("the reads compared hold too little:\n%s", dump)
	}
	if dump := readAll(t, st, rows); !strings.Contains(dump, fmt.Sprintf("by 30s: %d lines", len(first))) {
		t.Fatalf("the line volume does not count each of the %d lines once:\n%s", len(first), dump)
	}
	compact()
	var stored, kept int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM line_blocks WHERE launch_id = $1), (SELECT count(*) FROM lines WHERE launch_id = $1)`,
		blocks).Scan(&stored, &kept); err != nil {
		t.Fatal(err)
	}
	// Every block of seqs is there; what stayed a row is what an index of
	// lines serves: errors and alarms (18 lines, 2 more are holes) and
	// the ready line.
	if stored != 2000/512+1 || kept != 19 {
		t.Fatalf("after compaction: %d blocks, %d rows", stored, kept)
	}
	check("compacted")

	// A gap fill thaws the blocks it lands in; the worker compacts them
	// again.
	write(holes[:5])
	var thawed bool
	if err := pool.QueryRow(ctx, `SELECT thawed FROM launches WHERE id = $1`, blocks).Scan(&thawed); err != nil || !thawed {
		t.Fatalf("a gap fill into blocks left the launch thawed %v (%v)", thawed, err)
	}
	check("gap fill into blocks")
	compact()
	check("compacted again")
	write(holes[5:])
	check("every hole filled")
	if runs, err := st.SeqRuns(ctx, blocks, 0, 3); err != nil || !slices.Equal(runs, []store.SeqRun{{1, 2000}}) {
		t.Fatalf("seq runs with every hole filled = %v, %v; want 1-2000", runs, err)
	}

	// Writes that rewrite lines: revised verdicts, a shifted clock, lines
	// retimed from their first logged neighbour.
	compact()
	for _, id := range []int64{rows, blocks} {
		err := st.WithTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.LockLaunch(ctx, id); err != nil {
				return err
			}
			if err := tx.UpdateVerdicts(ctx, id, []classify.LineVerdict{{Seq: 10, Kind: "warning"}, {Seq: 200, Kind: "error", Level: "ERROR", Alarm: 50},
				{Seq: 201, Kind: "warning"}, {Seq: 1950, Kind: "progress", Level: "INFO"}}); err != nil {
				return err
			}
			if err := tx.ShiftClock(ctx, id, 90*time.Second); err != nil {
				return err
			}
			return tx.RetimeBefore(ctx, id, 40, t0)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	check("rewritten")
	// Revised verdicts far apart thaw their own blocks (0 and 3; the
	// retimed lines are in block 0), not the ones between them.
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM line_blocks WHERE launch_id = $1`, blocks).Scan(&stored); err != nil || stored != 2000/512+1-2 {
		t.Fatalf("after the rewrites %d blocks are left (%v), want %d", stored, err, 2000/512+1-2)
	}
	compact()
	check("rewritten and compacted")
}

// readAll is every read of a launch's lines, as text.
func readAll(t *testing.T, st *store.Store, id int64) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	line := func(l store.Line) string {
		alarm := "-"
		if l.AlarmNo != nil {
			alarm = fmt.Sprint(*l.AlarmNo)
		}
		return fmt.Sprintf("%d %s %s %q %s %q %q %s %q", l.Seq, l.TS.UTC().Format(time.RFC3339Nano), l.ReceivedAt.UTC().Format(time.RFC3339),
			l.Stream, l.Kind, l.Level, l.Rank, alarm, l.Text)
	}
	put := func(name string, ls []store.Line, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fmt.Fprintf(&b, "%s: %d lines\n", name, len(ls))
		for _, l := range ls {
			b.WriteString("  " + line(l) + "\n")
		}
	}
	ls, err := st.Lines(ctx, id, 0, 5000)
	put("lines", ls, err)
	ls, err = st.Lines(ctx, id, 130, 17)
	put("lines after 130", ls, err)
	ls, err = st.LinesBetween(ctx, id, 60, 140, 50)
	put("between", ls, err)
	ls, err = st.ReadyLines(ctx, id, 5)
	put("ready", ls, err)
	// LinesInRanges answers each range as LinesBetween does, in one
	// statement (an empty range, one past the end and overlapping ones too).
	ranges := [][2]int64{{60, 140}, {1, 3}, {990, 1200}, {500, 400}, {130, 200}, {2000, 3000}}
	in, err := st.LinesInRanges(ctx, id, ranges, 50)
	if err != nil || len(in) != len(ranges) {
		t.Fatalf("lines in ranges: %d ranges, %v", len(in), err)
	}
	text := func(ls []store.Line) string {
		var out []string
		for _, l := range ls {
			out = append(out, line(l))
		}
		return strings.Join(out, "\n")
	}
	for i, r := range ranges {
		one, err := st.LinesBetween(ctx, id, r[0], r[1], 50)
		if err != nil {
			t.Fatal(err)
		}
		if text(in[i]) != text(one) {
			t.Errorf("lines in range %d-%d: %d lines, LinesBetween %d", r[0], r[1], len(in[i]), len(one))
		}
		put(fmt.Sprintf("in range %d-%d", r[0], r[1]), in[i], nil)
	}
	filters := map[string]store.LineFilter{
		"all":               {Limit: 100},
		"after":             {After: 300, Limit: 40},
		"before":            {Before: 700, Limit: 40},
		"last":              {Before: math.MaxInt64 >> 1, Limit: 30},
		"errors":            {ErrorsOnly: true, Limit: 100},
		"errors before":     {ErrorsOnly: true, Before: 600, Limit: 3},
		"no config":         {HideConfig: true, After: 100, Limit: 80},
		"warnings":          {Kind: "warning", Limit: 100, ScanLimit: 400},
		"info on stderr":    {Level: "INFO", Stream: "stderr", After: 10, Limit: 20, ScanLimit: 300},
		"contains":          {Contains: "SHARD 12", Limit: 100, ScanLimit: 1000},
		"contains backward": {Contains: "allreduce", Before: 900, Limit: 5, ScanLimit: 1000},
		"regexp":            {Match: regexp.MustCompile(`shard \d*5 of`), Limit: 10, ScanLimit: 1000},
		"short word":        {Contains: "of", Limit: 10, ScanLimit: 100},
		"in range":          {InRange: true, MinSeq: 250, MaxSeq: 380, Limit: 200},
	}
	for _, name := range sortedKeys(filters) {
		w, err := st.FilteredWindow(ctx, id, filters[name], 1000)
		put("window "+name, w.Lines, err)
		fmt.Fprintf(&b, "  more %v cursor %d scanned %d-%d\n", w.More, w.Cursor, w.ScannedFrom, w.ScannedTo)
	}
	first, last, err := st.LineSpan(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "span %s %s\n", first.UTC(), last.UTC())
	// The line-volume histogram, over the whole span and over a part of it.
	for _, w := range []struct {
		from  time.Time
		width time.Duration
		n     int
	}{{first, 30 * time.Second, int(last.Sub(first)/(30*time.Second)) + 1}, {first.Add(400 * time.Second), 7 * time.Second, 30}} {
		vol, err := st.LineVolume(ctx, id, w.from, w.width, w.n)
		if err != nil {
			t.Fatal(err)
		}
		var lines int64
		for _, v := range vol {
			lines += v.Lines
		}
		fmt.Fprintf(&b, "volume from %s by %s: %d lines %v\n", w.from.UTC(), w.width, lines, vol)
	}
	for _, after := range []int64{0, 64, 500} {
		runs, err := st.SeqRuns(ctx, id, after, 20)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "seq runs after %d %v\n", after, runs)
	}
	gaps, err := st.Gaps(ctx, id, 30*time.Second, 10)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "gaps %+v\n", gaps)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	lo, hi, err := st.SeqRange(ctx, id, t0.Add(400*time.Second), t0.Add(600*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "seq range %d-%d\n", lo, hi)
	ex, err := st.AlarmExcerpt(ctx, id, store.Alarm{No: 3, FirstSeq: 291, LastSeq: 291}, 4, 10)
	if err != nil {
		t.Fatal(err)
	}
	put("excerpt before", ex.Before, nil)
	put("excerpt own", ex.Own, nil)
	put("excerpt after", ex.After, nil)
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		existing, err := tx.ExistingSeqs(ctx, id, []int64{1, 7, 64, 65, 128, 500, 999, 1000, 1001})
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "existing %v\n", existing)
		before, err := tx.LineTimeBefore(ctx, id, 129)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "time before 129 %s\n", before.UTC())
		var scanned []string
		err = tx.ScanLines(ctx, id, func(ls []classify.Line) {
			for _, l := range ls {
				scanned = append(scanned, fmt.Sprintf("%d %s %q", l.Seq, l.Time.UTC().Format(time.RFC3339), l.Text))
			}
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "scan %d\n  %s\n", len(scanned), strings.Join(scanned, "\n  "))
		var after []string
		err = tx.ScanLinesAfter(ctx, id, 600, []int64{640, 700}, func(ls []classify.Line, vs []store.StoredVerdict) bool {
			after = append(after, fmt.Sprintf("chunk %d-%d", ls[0].Seq, ls[len(ls)-1].Seq))
			for i, l := range ls {
				after = append(after, fmt.Sprintf("%d %+v", l.Seq, vs[i]))
			}
			return ls[len(ls)-1].Seq < 800
		})
		fmt.Fprintf(&b, "scan after 600\n  %s\n", strings.Join(after, "\n  "))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// firstDiff shows where two dumps part.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			lo := max(0, i-3)
			return fmt.Sprintf("line %d:\nrows:   %s\nblocks: %s\n(context before: %s)", i, w[i], g[i], strings.Join(w[lo:i], " | "))
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(w), len(g))
}

// TestPackRetiredPartitions compacts a launch of a block of launch ids
// that is used up, and the worker's pass rewrites that block's partition
// of lines to what it still holds; the partition new launches go to is
// left alone.
func TestPackRetiredPartitions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	old, err := st.EnsureLaunch(ctx, "old", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	lines := make([]store.Line, 40_000)
	for i := range lines {
		lines[i] = store.Line{Seq: int64(i + 1), TS: t0, ReceivedAt: t0, Kind: "plain",
			Text: fmt.Sprintf("rank %d finished step %d of the warmup, all reduce took %d us and nothing else happened", i%8, i, i%977)}
	}
	if err := st.WithTx(ctx, func(tx *store.Tx) error { return tx.CopyLines(ctx, old, lines) }); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE launches SET last_seq = 40000, last_line_at = $2 WHERE id = $1`, old, t0); err != nil {
		t.Fatal(err)
	}
	size := func() int64 {
		var n int64
		if err := pool.QueryRow(ctx, `SELECT pg_total_relation_size('lines_p000000')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if packed, err := st.PackRetiredPartitions(ctx); err != nil || len(packed) != 0 {
		t.Fatalf("before its block was used up: packed %v, %v", packed, err)
	}
	if moved, err := upkeep.CompactOnce(ctx, st, t0.Add(time.Hour), upkeep.CompactTail); err != nil || moved != 40_000 {
		t.Fatalf("compacted %d lines, %v", moved, err)
	}
	if packed, err := st.PackRetiredPartitions(ctx); err != nil || len(packed) != 0 {
		t.Fatalf("while new launches still go to its block: packed %v, %v", packed, err)
	}
	// The next launch id is in the next block: the first is used up.
	if _, err := pool.Exec(ctx, `SELECT setval(pg_get_serial_sequence('launches', 'id'), $1)`, store.LaunchesPerPartition); err != nil {
		t.Fatal(err)
	}
	if _, err := st.EnsureLaunch(ctx, "new", launchid.Attrs{}); err != nil {
		t.Fatal(err)
	}
	waitNoOlderSnapshot(t, pool)
	before := size()
	packed, err := st.PackRetiredPartitions(ctx)
	if err != nil || fmt.Sprint(packed) != "[lines_p000000]" {
		t.Fatalf("packed %v, %v", packed, err)
	}
	if after := size(); after*4 > before {
		t.Fatalf("the retired partition took %d bytes before and %d after", before, after)
	}
	if packed, err := st.PackRetiredPartitions(ctx); err != nil || len(packed) != 0 {
		t.Fatalf("a packed partition was packed again: %v, %v", packed, err)
	}
	got, err := st.LinesBetween(ctx, old, 39_990, 40_000, 100)
	if err != nil || len(got) != 11 || got[10].Text != lines[39_999].Text {
		t.Fatalf("lines read back after packing: %d, %v", len(got), err)
	}
}

// waitNoOlderSnapshot waits until VACUUM FULL may drop every row deleted
// so far. It must keep a row while any session of this database holds a
// snapshot taken before the row's deletion committed (autovacuum's ANALYZE
// of a freshly filled table is such a session on a busy machine), and its
// own snapshot counts too: a snapshot's xmin is the oldest transaction
// still running in the whole cluster, so a long transaction of another
// test's database, begun before the compaction, holds the rows back as
// well. The wait is for both to pass a transaction id assigned after the
// compaction; without it, the packed size would depend on their timing.
func waitNoOlderSnapshot(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	ctx := context.Background()
	var after string
	if err := pool.QueryRow(ctx, `SELECT pg_current_xact_id()::text`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		var older int
		var runningBefore bool
		err := pool.QueryRow(ctx, `
			SELECT (SELECT count(*) FROM pg_stat_activity
			        WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL
			          AND backend_xmin::text::bigint <= $1::bigint),
			       pg_snapshot_xmin(pg_current_snapshot())::text::bigint <= $1::bigint`, after).Scan(&older, &runningBefore)
		if err != nil {
			t.Fatal(err)
		}
		if older == 0 && !runningBefore {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("for two minutes, %d sessions of this database kept a snapshot older than the compaction (a transaction older than it still running in the cluster: %v)", older, runningBefore)
		}
		time.Sleep(20 * time.Millisecond) // polling other sessions' snapshots, with a deadline
	}
}

// TestCompactionThinsCheckpointsOfAQuietLaunch: once a quiet launch is
// compacted to its end, it keeps the last checkpoint of every 4096 seqs
// (the launch's latest among them); a launch compacted only up to its tail
// (live) keeps them all.
func TestCompactionThinsCheckpointsOfAQuietLaunch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const n = 10_000
	launch := func(key string) int64 {
		t.Helper()
		id, err := st.EnsureLaunch(ctx, key, launchid.Attrs{})
		if err != nil {
			t.Fatal(err)
		}
		var ls []store.Line
		var cps []store.Checkpoint
		for seq := int64(1); seq <= n; seq++ {
			ls = append(ls, store.Line{Seq: seq, TS: t0, ReceivedAt: t0, Kind: "plain", Text: fmt.Sprintf("line %d", seq)})
			if seq%256 == 0 || seq == n {
				cps = append(cps, store.Checkpoint{Seq: seq, State: []byte(fmt.Sprint(seq))})
			}
		}
		err = st.WithTx(ctx, func(tx *store.Tx) error {
			if _, err := tx.LockLaunch(ctx, id); err != nil {
				return err
			}
			if err := tx.CopyLines(ctx, id, ls); err != nil {
				return err
			}
			return tx.SaveCheckpoints(ctx, id, cps)
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, `UPDATE launches SET last_seq = $2, last_line_at = $3 WHERE id = $1`, id, n, t0); err != nil {
			t.Fatal(err)
		}
		return id
	}
	seqs := func(id int64) []int64 {
		t.Helper()
		var out []int64
		if err := pool.QueryRow(ctx, `SELECT array_agg(seq ORDER BY seq) FROM classifier_checkpoints WHERE launch_id = $1`, id).Scan(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	compact := func(id, through int64) {
		t.Helper()
		for more := true; more; {
			var err error
			if _, more, _, err = st.CompactLines(ctx, id, through); err != nil {
				t.Fatal(err)
			}
		}
	}
	quiet, live := launch("quiet"), launch("live")
	before := seqs(live)
	compact(quiet, n+1)
	compact(live, n-1000)
	if got, want := seqs(quiet), []int64{3840, 7936, 10000}; !slices.Equal(got, want) {
		t.Errorf("the quiet launch kept checkpoints %v, want %v", got, want)
	}
	if got := seqs(live); !slices.Equal(got, before) {
		t.Errorf("the live launch kept checkpoints %v, want all %d", got, len(before))
	}
}

// Blocks written before migration 00041 (64 seqs, the texts an SQL array)
// become rows again, their launch starts over at compacted_through 0, and
// the worker writes them into the new blocks: every line reads the same
// before, between and after.
func TestMigrationTurnsOldBlocksIntoRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	if err := store.MigrateDownTo(ctx, pool, 40); err != nil {
		t.Fatal(err)
	}
	id, err := st.EnsureLaunch(ctx, "old", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	// Lines 1-300 in blocks of 64 as compaction wrote them then, but for
	// line 100 (an error, a row).
	for _, q := range []string{
		`INSERT INTO lines (launch_id, seq, ts, received_at, kind, level, text) VALUES ($1, 100, '2026-03-01 12:01:40Z', '2026-03-01 12:00:00Z', 'error', 'ERROR', 'RuntimeError: CUDA error')`,
		`INSERT INTO line_blocks (launch_id, block, min_ts, max_ts, n, seq, ts, received_at, logged_at, stream, kind, level, rank, alarm_no, text)
			SELECT $1, s >> 6, min(t), max(t), count(*), array_agg(s ORDER BY s), array_agg(t ORDER BY s), array_agg(timestamptz '2026-03-01 12:00:00Z' ORDER BY s),
				array_agg(NULL::timestamptz ORDER BY s), array_agg(''::text ORDER BY s), array_agg('plain'::text ORDER BY s), array_agg(''::text ORDER BY s),
				array_agg(''::text ORDER BY s), array_agg(NULL::integer ORDER BY s), array_agg('worker loaded shard ' || s ORDER BY s)
			FROM generate_series(1, 300) s CROSS JOIN LATERAL (SELECT timestamptz '2026-03-01 12:00:00Z' + s * interval '1 second') x(t)
			WHERE s <> 100 GROUP BY s >> 6`,
		`UPDATE launches SET last_seq = 300, last_line_at = '2026-03-01 12:05:00Z', compacted_through = 320 WHERE id = $1`,
	} {
		if _, err := pool.Exec(ctx, q, id); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	check := func(step string, wantBlocks int) {
		t.Helper()
		ls, err := st.Lines(ctx, id, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(ls) != 300 {
			t.Fatalf("%s: %d lines", step, len(ls))
		}
		for i, l := range ls {
			want := fmt.Sprintf("worker loaded shard %d", i+1)
			if l.Seq == 100 {
				want = "RuntimeError: CUDA error"
			}
			if l.Seq != int64(i+1) || l.Text != want {
				t.Fatalf("%s: line %d reads as %d %q", step, i+1, l.Seq, l.Text)
			}
		}
		var blocks int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM line_blocks WHERE launch_id = $1`, id).Scan(&blocks); err != nil || blocks != wantBlocks {
			t.Fatalf("%s: %d blocks (%v), want %d", step, blocks, err, wantBlocks)
		}
	}
	check("migrated", 0)
	var through int64
	if err := pool.QueryRow(ctx, `SELECT compacted_through FROM launches WHERE id = $1`, id).Scan(&through); err != nil || through != 0 {
		t.Fatalf("compacted through %d (%v), want 0", through, err)
	}
	if _, err := upkeep.CompactOnce(ctx, st, time.Now(), 0); err != nil {
		t.Fatal(err)
	}
	check("compacted", 1)
}
