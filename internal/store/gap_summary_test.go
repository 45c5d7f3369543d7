package store_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestMigrationBackfillsGapSummaries: launches stored before migration
// 00042 get their gap summary from their lines, rows and blocks alike
// (every stretch over GapFloor, held through their last line), and the
// migration's Down removes it; a launch without lines holds an empty one.
func TestMigrationBackfillsGapSummaries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var lines []store.Line
	ts := t0
	for seq := int64(1); seq <= 3000; seq++ {
		switch {
		case seq%97 == 0:
			ts = ts.Add(time.Duration(seq%5+1) * 31 * time.Second) // a stretch over 30 s
		case seq%211 == 0:
			ts = ts.Add(-time.Hour) // another log's earlier times
		default:
			ts = ts.Add(time.Second)
		}
		l := store.Line{Seq: seq, TS: ts, ReceivedAt: t0, Kind: "plain", Text: fmt.Sprintf("line %d", seq)}
		if seq%50 == 0 {
			no := int(seq)
			l.Kind, l.Level, l.AlarmNo = "error", "ERROR", &no // kept a row when compacted
		}
		lines = append(lines, l)
	}
	var want []store.Gap
	for i := 1; i < len(lines); i++ {
		if lines[i].TS.Sub(lines[i-1].TS) > store.GapFloor {
			want = append(want, store.Gap{From: lines[i-1].TS, To: lines[i].TS, AfterSeq: lines[i-1].Seq, ToSeq: lines[i].Seq})
		}
	}
	id, err := st.EnsureLaunch(ctx, "old", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	empty, err := st.EnsureLaunch(ctx, "empty", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.LockLaunch(ctx, id); err != nil {
			return err
		}
		return tx.CopyLines(ctx, id, lines)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE launches SET last_seq = 3000, last_line_at = $2 WHERE id = $1`, id, t0); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := st.CompactLines(ctx, id, 2048); err != nil { // blocks up to 2048, rows after
		t.Fatal(err)
	}
	if err := store.MigrateDownTo(ctx, pool, 41); err != nil {
		t.Fatal(err)
	}
	var cols int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns WHERE table_name = 'launches' AND column_name LIKE 'gaps_%'`).Scan(&cols); err != nil || cols != 0 {
		t.Fatalf("after Down: %d gaps_ columns of launches (%v)", cols, err)
	}
	if err := store.Migrate(ctx, pool, slog.New(slog.DiscardHandler)); err != nil {
		t.Fatal(err)
	}
	summary := func(id int64) (through int64, lastSeq *int64, gaps []store.Gap) {
		t.Helper()
		if err := pool.QueryRow(ctx, `SELECT gaps_through, gaps_last_seq FROM launches WHERE id = $1`, id).Scan(&through, &lastSeq); err != nil {
			t.Fatal(err)
		}
		rows, err := pool.Query(ctx, `SELECT from_ts, to_ts, after_seq, to_seq FROM launch_gaps WHERE launch_id = $1 ORDER BY after_seq`, id)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var g store.Gap
			if err := rows.Scan(&g.From, &g.To, &g.AfterSeq, &g.ToSeq); err != nil {
				t.Fatal(err)
			}
			gaps = append(gaps, g)
		}
		return through, lastSeq, gaps
	}
	same := func(a, b store.Gap) bool {
		return a.From.Equal(b.From) && a.To.Equal(b.To) && a.AfterSeq == b.AfterSeq && a.ToSeq == b.ToSeq
	}
	through, lastSeq, got := summary(id)
	if through != 3000 || lastSeq == nil || *lastSeq != 3000 || !slices.EqualFunc(got, want, same) {
		t.Errorf("backfilled summary through %d, last line %v, %d stretches %v; want through 3000 with %d %v", through, lastSeq, len(got), got, len(want), want)
	}
	if len(want) < 20 {
		t.Fatalf("only %d stretches to backfill", len(want))
	}
	if gaps, err := st.Gaps(ctx, id, 2*time.Minute, 1000); err != nil || !slices.EqualFunc(gaps, slices.DeleteFunc(slices.Clone(want), func(g store.Gap) bool {
		return g.To.Sub(g.From) <= 2*time.Minute
	}), same) {
		t.Errorf("gaps over 2 min from the backfilled summary: %v (%v)", gaps, err)
	}
	if through, lastSeq, got := summary(empty); through != 0 || lastSeq != nil || len(got) != 0 {
		t.Errorf("the launch without lines: summary through %d, last line %v, %v", through, lastSeq, got)
	}
}
