package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/classify"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
	"launchwatch/internal/templates"
)

func TestLineTemplates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	type testBundle struct {
		pool *pgxpool.Pool
		st   *store.Store
		id   int64
	}
	setup := func(t *testing.T) *testBundle {
		t.Helper()
		pool, _ := storetest.NewDB(t)
		st := store.New(pool)
		id, err := st.EnsureLaunch(ctx, "t", launchid.Attrs{})
		if err != nil {
			t.Fatal(err)
		}
		return &testBundle{pool: pool, st: st, id: id}
	}
	copyLines := func(t *testing.T, b *testBundle, lines []store.Line) {
		t.Helper()
		if err := b.st.WithTx(ctx, func(tx *store.Tx) error { return tx.CopyLines(ctx, b.id, lines) }); err != nil {
			t.Fatal(err)
		}
	}
	line := func(seq int64, kind, level, text string) store.Line {
		now := time.Now()
		return store.Line{Seq: seq, TS: now, ReceivedAt: now, Kind: kind, Level: level, Text: text}
	}
	byTemplate := func(t *testing.T, b *testBundle) (map[string]templates.LineTemplate, store.TemplateSummary) {
		t.Helper()
		sum, err := b.st.LineTemplates(ctx, b.id)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]templates.LineTemplate{}
		for _, tm := range sum.Templates {
			m[tm.Template] = tm
		}
		return m, sum
	}

	t.Run("KeptAtIngestAcrossBatches", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		copyLines(t, b, []store.Line{
			line(1, "plain", "INFO", "worker 1 started"),
			line(2, "plain", "INFO", "worker 2 started"),
			line(3, "config", "", "max_len: 4096"),
			line(4, "plain", "", "Tuning:  10%|█         | 1/10"),
		})
		copyLines(t, b, []store.Line{
			line(5, "plain", "INFO", "worker 3 started"),
			line(6, "error", "ERROR", "worker 4 failed: bad handshake"),
			line(7, "plain", "", "Tuning:  90%|█████████ | 9/10"),
		})
		got, _ := byTemplate(t, b)
		if w := got["worker <num> started"]; w.Count != 3 || w.FirstSeq != 1 || w.Sample != "worker 1 started" || w.Severity != templates.SeverityOther {
			t.Errorf("worker started: %+v", w)
		}
		if w := got["worker <num> failed: bad handshake"]; w.Severity != templates.SeverityError {
			t.Errorf("worker failed: %+v", w)
		}
		if w := got["Tuning: <progress>"]; !w.Noise || w.Count != 2 {
			t.Errorf("progress bar: %+v", w)
		}
		if len(got) != 3 {
			t.Errorf("templates %v: configuration lines are compared key by key, not kept", got)
		}
	})

	t.Run("RevisedVerdictRaisesSeverity", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		copyLines(t, b, []store.Line{line(1, "plain", "", "Traceback (most recent call last):")})
		err := b.st.WithTx(ctx, func(tx *store.Tx) error {
			return tx.UpdateVerdicts(ctx, b.id, []classify.LineVerdict{{Seq: 1, Kind: classify.KindError, Alarm: 1}})
		})
		if err != nil {
			t.Fatal(err)
		}
		got, _ := byTemplate(t, b)
		if w := got["Traceback (most recent call last):"]; w.Severity != templates.SeverityError {
			t.Errorf("revised line: %+v", w)
		}
	})

	t.Run("CapKeepsTheMostSevereAndEarliest", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		var lines []store.Line
		for i := range store.MaxLineTemplates + 50 {
			lines = append(lines, line(int64(i+1), "plain", "INFO", fmt.Sprintf("event kind_%c%c%c", 'a'+i%26, 'a'+i/26%26, 'a'+i/676)))
		}
		lines = append(lines, line(int64(len(lines)+1), "error", "ERROR", "fatal: out of widgets"))
		copyLines(t, b, lines[:500])
		copyLines(t, b, lines[500:])
		got, sum := byTemplate(t, b)
		if len(sum.Templates) != store.MaxLineTemplates || sum.Evicted != 51 {
			t.Errorf("%d templates, %d evicted; want %d and 51", len(sum.Templates), sum.Evicted, store.MaxLineTemplates)
		}
		if _, ok := got["fatal: out of widgets"]; !ok {
			t.Error("the error, the latest line, was evicted")
		}
		if _, ok := got["event kind_aaa"]; !ok {
			t.Error("the earliest line was evicted")
		}
	})

	t.Run("BuiltOnFirstUseWhenStale", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		copyLines(t, b, []store.Line{line(1, "plain", "", "hello 1"), line(2, "warning", "WARNING", "careful 2")})
		// As a launch stored before the summary existed.
		if _, err := b.pool.Exec(ctx, `DELETE FROM line_templates; UPDATE launches SET templates_built = false`); err != nil {
			t.Fatal(err)
		}
		got, _ := byTemplate(t, b)
		if got["hello <num>"].Count != 1 || got["careful <num>"].Severity != templates.SeverityWarning {
			t.Errorf("rebuilt summary %+v", got)
		}
		var built bool
		if err := b.pool.QueryRow(ctx, `SELECT templates_built FROM launches WHERE id = $1`, b.id).Scan(&built); err != nil || !built {
			t.Errorf("templates_built = %v (%v) after the build", built, err)
		}
	})
}
