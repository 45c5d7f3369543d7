package pipeline

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"launchwatch/internal/clock"
	"launchwatch/internal/corpustest"
	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestStreamedBatchStoresWhatAWholeOneDoes: a batch whose lines are handed
// to the COPY as soon as the classifier no longer holds them stores
// exactly what it stores when every line waits for the whole batch's
// classification (the piece size of the old, serial ingest), and when its
// blocks are written by two COPYs (the first with the search filters of
// its lines and the checkpoints so far) as by one: the same
// lines with the same verdicts, the same template summary, the same
// alarms. Every corpus log (read at run time) goes in as one batch, with
// its first seq at several offsets so the checkpoint blocks, where the
// stream may hand lines on, fall at different lines; so does the whole
// corpus as one launch, which crosses a dozen of them.
func TestStreamedBatchStoresWhatAWholeOneDoes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	start := time.Date(2026, 4, 2, 9, 30, 0, 0, time.UTC)
	streamed := New(st, log, WithClock(clock.NewFake(start)))
	streamed.piece = 1      // hand on whatever the classifier lets go, at every block
	streamed.cutFrom = 1024 // and write a batch of 1024 lines or more in two COPYs
	whole := New(st, log, WithClock(clock.NewFake(start)))
	whole.piece, whole.cutFrom = math.MaxInt, math.MaxInt

	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus logs: %v", err)
	}
	slices.Sort(files)
	type batch struct {
		name, server string
		body         []byte
	}
	var batches []batch
	var all []byte
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".log")
		batches = append(batches, batch{name, strings.Split(name, "-")[0], body})
		all = append(all, body...)
	}
	batches = append(batches, batch{"all", "sglang", all}, batch{"all-unknown", "", all})

	for _, b := range batches {
		for _, first := range []int64{1, 97, 230} {
			var got [2]launchContent
			for i, p := range []*Pipeline{streamed, whole} {
				key := fmt.Sprintf("%s-%d-%d", b.name, first, i)
				lines, err := decode.Text(b.body, first, decode.DefaultMaxLineBytes)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := p.Ingest(ctx, key, launchid.Attrs{Server: b.server}, lines); err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				got[i] = readLaunch(t, pool, st, key)
			}
			if got[0] != got[1] {
				t.Errorf("%s from seq %d: streamed, the batch stores\n%s\nwhole, it stores\n%s", b.name, first, got[0], got[1])
			}
		}
	}
}

// launchContent is what a launch's lines left in the database, as text.
type launchContent string

func readLaunch(t *testing.T, pool *pgxpool.Pool, st *store.Store, key string) launchContent {
	t.Helper()
	ctx := context.Background()
	l, err := st.LaunchByKey(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	// Every line, row or block: which of them a batch writes as blocks
	// follows from the verdicts (a revised one thaws its block).
	lines, err := st.EveryLine(ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range lines {
		var logged, alarm any
		if x.LoggedAt != nil {
			logged = x.LoggedAt.UTC()
		}
		if x.AlarmNo != nil {
			alarm = *x.AlarmNo
		}
		fmt.Fprintln(&out, x.Seq, x.TS.UTC(), logged, x.Stream, x.Kind, x.Level, x.Rank, alarm, x.Text)
	}
	for _, q := range []string{
		`SELECT hash, template, severity, noise, first_seq, line_count, sample FROM line_templates WHERE launch_id = $1 ORDER BY hash`,
		`SELECT chunk, bloom FROM line_chunks WHERE launch_id = $1 ORDER BY chunk`,
		`SELECT alarm_no, first_seq, last_seq, kind, fatal, headline, headline_seq, fingerprint, ranks, withdrawn, settled, cause_no
			FROM alarms WHERE launch_id = $1 ORDER BY alarm_no`,
		`SELECT name, begin_seq, end_seq FROM launch_phases WHERE launch_id = $1 ORDER BY begin_seq, name`,
		`SELECT seq, state FROM classifier_checkpoints WHERE launch_id = $1 ORDER BY seq`,
		`SELECT status, phase, phase_done, phase_total, line_count, last_seq, ready_seq, classifier_state, pending_runs, templates_evicted
			FROM launches WHERE id = $1`,
	} {
		rows, err := pool.Query(ctx, q, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		vals, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			fmt.Fprintln(&out, v...)
		}
	}
	return launchContent(out.String())
}
