package classify_test

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/corpustest"
)

// At a launch's settle deadline two parties may settle it, and scheduling
// alone says which comes first: the settler (classify.SettleIdle, then a
// reader's SettleStreamEnd only if something still waits for the stream's
// end) or a reader waiting for the verdict (GET /api/v1/launches/{key}:
// SettleStreamEnd, after which the settler finds nothing to do). Whoever
// wins, the verdict after every batch must be the same. Every log of the
// corpus and the families is replayed in random batches, with a deadline
// after each batch that leaves a fatal alarm or an ERROR run pending, as
// pipeline.batch.deadline sets one.
func TestVerdictDoesNotHangOnWhoSettlesFirst(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewSource(1))
	for _, log := range corpustest.Logs(t, "../../testdata/families") {
		text := log.Lines
		if text[len(text)-1] == "" {
			text = text[:len(text)-1]
		}
		lines := make([]classify.Line, len(text))
		for i, l := range text {
			lines[i] = classify.Line{Seq: int64(i + 1), Text: l}
		}
		for range 8 {
			var cuts []int
			for c := 1 + rnd.Intn(40); c < len(lines); c += 1 + rnd.Intn(40) {
				cuts = append(cuts, c)
			}
			cuts = append(cuts, len(lines))
			readerFirst := replaySettling(lines, cuts, false)
			settlerFirst := replaySettling(lines, cuts, true)
			for b := range cuts {
				if readerFirst[b] != settlerFirst[b] {
					t.Errorf("%s, batches ending at %v: after the batch ending at line %d,\nthe reader settling first gives  %s\nthe settler settling first gives %s",
						log.Name, cuts, cuts[b], readerFirst[b], settlerFirst[b])
					break
				}
			}
		}
	}
}

// replaySettling feeds lines in batches ending at cuts, settles each batch
// that leaves something pending as the settler and a reader would (settler
// says who comes first) and returns the verdict after each batch: the
// readiness and the live alarms.
func replaySettling(lines []classify.Line, cuts []int, settlerFirst bool) []string {
	st := classify.New("")
	alarms := map[int]classify.Alarm{}
	keep := func(r classify.Result) {
		for _, a := range r.Alarms {
			alarms[a.ID] = a
		}
	}
	var verdicts []string
	from := 0
	for _, to := range cuts {
		keep(st.Feed(lines[from:to]))
		from = to
		if sum := st.Summary(); sum.PendingFatal > 0 || sum.PendingRuns > 0 {
			if settlerFirst {
				keep(st.Settle(classify.SettleIdle))
			}
			if !settlerFirst || st.Summary().PendingRuns > 0 {
				keep(st.Settle(classify.SettleStreamEnd))
			}
		}
		var live []string
		for _, a := range alarms {
			if !a.Withdrawn {
				live = append(live, fmt.Sprintf("%d (fatal %v, lines %d-%d, settled %v): %s", a.ID, a.Fatal, a.FirstSeq, a.LastSeq, a.Settled, a.Headline))
			}
		}
		slices.Sort(live)
		ready := "not ready"
		if r := st.Summary().Ready; r != nil {
			ready = fmt.Sprintf("ready at %d", r.Seq)
		}
		verdicts = append(verdicts, ready+"; alarms: "+strings.Join(live, "; "))
	}
	return verdicts
}
