package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/corpustest"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

// TestUpsertPhasesStoresAsReportByReport: upserting the reports of a
// classification's batches at once (folded into one statement) stores the
// very rows that upserting every report on its own, in order, does, for
// the phases the whole corpus (read at run time) reports, fed as one
// launch in pieces, each piece onto a launch that holds the ones before.
func TestUpsertPhasesStoresAsReportByReport(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	var lines []classify.Line
	t0 := time.Date(2026, 4, 2, 9, 28, 0, 0, time.UTC)
	for _, log := range corpustest.Logs(t) {
		text := log.Lines
		if text[len(text)-1] == "" {
			text = text[:len(text)-1] // the file's last newline
		}
		for _, text := range text {
			at := t0.Add(time.Duration(len(lines)) * time.Second)
			lines = append(lines, classify.Line{Seq: int64(len(lines) + 1), Text: text, Time: at, Clock: at})
		}
	}
	state := classify.New("sglang")
	var pieces [][]classify.Phase
	// Ingest feeds a batch's lines in pieces (one per checkpoint) and
	// stores the phases they all reported: a phase that advances reports
	// once per piece.
	repeated := 0 // reports of a phase reported before in the same batch
	for i := 0; i < len(lines); i += 5000 {
		var ps []classify.Phase
		for j := i; j < min(i+5000, len(lines)); j += 250 {
			ps = append(ps, state.Feed(lines[j:min(j+250, i+5000, len(lines))]).Phases...)
		}
		seen := map[string]bool{}
		for _, p := range ps {
			k := fmt.Sprint(p.Name, p.BeginSeq)
			if seen[k] {
				repeated++
			}
			seen[k] = true
		}
		pieces = append(pieces, ps)
	}
	if repeated == 0 {
		t.Fatal("no piece reports a phase twice: the fold is not tested")
	}
	var rows [2]string
	for i, whole := range []bool{false, true} {
		id, err := st.EnsureLaunch(ctx, fmt.Sprintf("phases-%v", whole), launchid.Attrs{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ps := range pieces {
			err := st.WithTx(ctx, func(tx *store.Tx) error {
				if whole {
					return tx.UpsertPhases(ctx, id, ps)
				}
				for _, p := range ps {
					if err := tx.UpsertPhases(ctx, id, []classify.Phase{p}); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
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
		t.Errorf("batch by batch, the phases store as\n%s\nreport by report, as\n%s", rows[1], rows[0])
	}
}
