package store_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestAlarmFirstLineTime: an alarm's FirstTS is its first line's time
// whether that line is a row (an alarm's own lines are) or lies in a
// block (a first line without the alarm's number, compacted), and nil
// when the line is not stored.
func TestAlarmFirstLineTime(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	at := func(seq int64) time.Time { return t0.Add(time.Duration(seq) * time.Second) }
	var lines []store.Line
	for seq := int64(1); seq <= 2000; seq++ {
		l := store.Line{Seq: seq, TS: at(seq), ReceivedAt: t0, Kind: "plain", Text: fmt.Sprintf("line %d", seq)}
		if seq == 700 {
			no := 1
			l.Kind, l.Level, l.AlarmNo = "error", "ERROR", &no // kept a row
		}
		lines = append(lines, l)
	}
	id, err := st.EnsureLaunch(ctx, "first-ts", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.LockLaunch(ctx, id); err != nil {
			return err
		}
		if err := tx.CopyLines(ctx, id, lines); err != nil {
			return err
		}
		return tx.UpsertAlarms(ctx, id, []classify.Alarm{
			{ID: 1, FirstSeq: 700, LastSeq: 705, Kind: "error", Headline: "row"},
			{ID: 2, FirstSeq: 1300, LastSeq: 1310, Kind: "error", Headline: "in a block"},
			{ID: 3, FirstSeq: 5000, LastSeq: 5001, Kind: "error", Headline: "not stored"},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE launches SET last_seq = 2000, last_line_at = $2 WHERE id = $1`, id, t0); err != nil {
		t.Fatal(err)
	}
	for more := true; more; {
		if _, more, _, err = st.CompactLines(ctx, id, math.MaxInt64); err != nil {
			t.Fatal(err)
		}
	}
	var inBlock bool
	if err := pool.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM lines WHERE launch_id = $1 AND seq = 1300)`, id).Scan(&inBlock); err != nil || !inBlock {
		t.Fatalf("line 1300 is still a row (%v)", err)
	}
	alarms, err := st.Alarms(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(alarms) != 3 {
		t.Fatalf("%d alarms", len(alarms))
	}
	for i, want := range []*time.Time{ptr(at(700)), ptr(at(1300)), nil} {
		got := alarms[i].FirstTS
		if (got == nil) != (want == nil) || got != nil && !got.Equal(*want) {
			t.Errorf("alarm %d (%s): first line at %v, want %v", alarms[i].No, alarms[i].Headline, got, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
