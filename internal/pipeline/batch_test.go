package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/corpustest"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestLatestPhases: the reports of one phase fold into its last one with
// its first begin time, in the order the phases first appeared.
func TestLatestPhases(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 4, 2, 9, 28, 0, 0, time.UTC)
	in := []classify.Phase{
		{Name: "weights", BeginSeq: 10, Begin: t0, Done: 1, Total: 4},
		{Name: "init", BeginSeq: 2, Begin: t0.Add(-time.Minute), EndSeq: 9, End: t0},
		{Name: "weights", BeginSeq: 10, Begin: t0.Add(time.Second), Done: 2, Total: 4},
		{Name: "weights", BeginSeq: 40, Begin: t0.Add(time.Hour), Done: 1, Total: 2}, // the same name again, later: another phase
		{Name: "weights", BeginSeq: 10, Begin: t0.Add(2 * time.Second), Done: 4, Total: 4, EndSeq: 30, End: t0.Add(3 * time.Second)},
	}
	want := []classify.Phase{
		{Name: "weights", BeginSeq: 10, Begin: t0, Done: 4, Total: 4, EndSeq: 30, End: t0.Add(3 * time.Second)},
		in[1], in[3],
	}
	if got := latestPhases(in); !reflect.DeepEqual(got, want) {
		t.Errorf("latestPhases =\n%+v\nwant\n%+v", got, want)
	}
}

// TestLatestPhasesStoreAsAllReports: upserting the folded reports of a
// classification stores the very rows that upserting every report in
// order does, for the phases the whole corpus (read at run time) reports,
// fed as one launch, in pieces, onto a launch that holds some of them.
func TestLatestPhasesStoreAsAllReports(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "*.log"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus logs: %v", err)
	}
	slices.Sort(files)
	var lines []classify.Line
	t0 := time.Date(2026, 4, 2, 9, 28, 0, 0, time.UTC)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			at := t0.Add(time.Duration(len(lines)) * time.Second)
			lines = append(lines, classify.Line{Seq: int64(len(lines) + 1), Text: text, Time: at, Clock: at})
		}
	}
	state := classify.New("sglang")
	var pieces [][]classify.Phase
	for i := 0; i < len(lines); i += 700 {
		pieces = append(pieces, state.Feed(lines[i:min(i+700, len(lines))]).Phases)
	}
	var rows [2]string
	for i, fold := range []bool{false, true} {
		id, err := st.EnsureLaunch(ctx, fmt.Sprintf("phases-%v", fold), store.LaunchAttrs{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range pieces {
			if fold {
				ps = latestPhases(ps)
			}
			if err := st.WithTx(ctx, func(tx *store.Tx) error { return tx.UpsertPhases(ctx, id, ps) }); err != nil {
				t.Fatal(err)
			}
		}
		phases, err := st.Phases(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(phases) == 0 {
			t.Fatal("the corpus reported no phase")
		}
		var out strings.Builder
		for _, p := range phases {
			fmt.Fprintf(&out, "%s %d %s %d/%d", p.Name, p.BeginSeq, p.Begin, p.Done, p.Total)
			if p.EndSeq != nil {
				fmt.Fprintf(&out, " ended %d %s", *p.EndSeq, *p.End)
			}
			out.WriteByte('\n')
		}
		rows[i] = out.String()
	}
	if rows[0] != rows[1] {
		t.Errorf("folded, the phases store as\n%s\nreport by report, as\n%s", rows[1], rows[0])
	}
}
