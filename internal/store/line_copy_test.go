package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestCopyLineStream: lines handed over in pieces are stored as they were
// given, with the template summary and search index of them all; an error
// from the source aborts the COPY with that error and stores nothing.
func TestCopyLineStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	id, err := st.EnsureLaunch(ctx, "stream", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 4, 2, 9, 28, 0, 0, time.UTC)
	var lines []store.Line
	for i := 1; i <= 3000; i++ {
		l := store.Line{Seq: int64(i), TS: base.Add(time.Duration(i) * time.Millisecond), ReceivedAt: base.Add(time.Hour),
			Stream: "stdout", Kind: "plain", Text: fmt.Sprintf("[TP%d] step %d of the made-up warmup, naïve ✓", i%4, i)}
		if i%100 == 0 {
			logged := l.TS.Add(-time.Minute)
			no := i / 100
			l.LoggedAt, l.Kind, l.Level, l.AlarmNo = &logged, "error", "ERROR", &no
			l.Text = fmt.Sprintf("RuntimeError: made-up failure %d", i)
		}
		lines = append(lines, l)
	}
	pieces := [][]store.Line{lines[:1], lines[1:1000], {}, lines[1000:2999], lines[2999:]}
	index := store.NewLineIndex()
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		return tx.CopyLineStream(ctx, id, index, func() ([]store.Line, error) {
			if len(pieces) == 0 {
				return nil, nil
			}
			p := pieces[0]
			pieces = pieces[1:]
			index.Add(p)
			return p, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Lines(ctx, id, 0, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(lines) {
		t.Fatalf("stored %d lines, want %d", len(got), len(lines))
	}
	for i, g := range got {
		w := lines[i]
		if g.Seq != w.Seq || !g.TS.Equal(w.TS) || !g.ReceivedAt.Equal(w.ReceivedAt) || g.Stream != w.Stream || g.Kind != w.Kind ||
			g.Level != w.Level || g.Rank != w.Rank || g.Text != w.Text || (g.AlarmNo == nil) != (w.AlarmNo == nil) ||
			g.AlarmNo != nil && *g.AlarmNo != *w.AlarmNo {
			t.Fatalf("line %d stored as %+v, want %+v", i+1, g, w)
		}
	}
	var logged int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM lines WHERE launch_id = $1 AND logged_at = ts - interval '1 minute'`, id).Scan(&logged); err != nil {
		t.Fatal(err)
	}
	if logged != 30 {
		t.Errorf("%d lines have their log time, want 30", logged)
	}
	sum, err := st.LineTemplates(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var counted int64
	for _, tm := range sum.Templates {
		counted += tm.Count
	}
	if counted != int64(len(lines)) {
		t.Errorf("the template summary counts %d lines, want %d", counted, len(lines))
	}
	var chunks int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM line_chunks WHERE launch_id = $1`, id).Scan(&chunks); err != nil {
		t.Fatal(err)
	}
	if want := 3000/64 + 1; chunks != want {
		t.Errorf("%d search chunks, want %d", chunks, want)
	}

	// A source that fails half-way: its error, and nothing stored.
	other, err := st.EnsureLaunch(ctx, "stream-failed", launchid.Attrs{})
	if err != nil {
		t.Fatal(err)
	}
	broken := errors.New("the classifier gave up")
	calls := 0
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		return tx.CopyLineStream(ctx, other, store.NewLineIndex(), func() ([]store.Line, error) {
			calls++
			if calls == 1 {
				return lines[:500], nil
			}
			return nil, broken
		})
	})
	if !errors.Is(err, broken) {
		t.Fatalf("a failed source gave %v, want its error", err)
	}
	if got, err := st.Lines(ctx, other, 0, 10); err != nil || len(got) != 0 {
		t.Fatalf("a failed COPY stored %d lines (%v)", len(got), err)
	}
}
