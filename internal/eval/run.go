package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"

	"launchwatch/internal/classify"
)

// Run is the classifier's final view of one launch after applying every
// Result the way ingest does: the latest verdict per seq, the latest copy of
// each alarm ID.
type Run struct {
	Verdicts  []classify.LineVerdict // Verdicts[i] is line i+1
	Alarms    []classify.Alarm       // alarms that were not withdrawn, by ID
	Withdrawn int                    // alarms created and later withdrawn
	Ready     *classify.Marker
	Phases    []classify.Phase
	Config    map[string]string
}

// BatchFunc returns the size of the next batch.
type BatchFunc func() int

// LineByLine feeds one line per call.
func LineByLine() int { return 1 }

// RandomBatches returns seeded batch sizes between 1 and 200, sometimes the
// whole rest of the log.
func RandomBatches(seed uint64) BatchFunc {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return func() int {
		switch r.IntN(10) {
		case 0:
			return 1 << 30
		case 1, 2, 3:
			return 1 + r.IntN(3)
		default:
			return 1 + r.IntN(200)
		}
	}
}

// Feed classifies lines (seq = line number) in batches. With roundTrip the
// state is saved and restored between batches, as when consecutive batches
// reach different processes.
func Feed(lines []string, server string, next BatchFunc, roundTrip bool) (Run, error) {
	st := classify.New(server)
	verdicts := make([]classify.LineVerdict, len(lines))
	alarms := map[int]classify.Alarm{}
	phases := map[string]classify.Phase{}
	run := Run{Config: map[string]string{}}
	for i := 0; i < len(lines); {
		n := next()
		if n < 1 {
			n = 1
		}
		end := min(len(lines), i+n)
		batch := make([]classify.Line, 0, end-i)
		for j := i; j < end; j++ {
			batch = append(batch, classify.Line{Seq: int64(j + 1), Text: lines[j]})
		}
		res := st.Feed(batch)
		for _, v := range res.Lines {
			if v.Seq < 1 || v.Seq > int64(len(lines)) {
				return Run{}, fmt.Errorf("eval: verdict for unknown line %d", v.Seq)
			}
			verdicts[v.Seq-1] = v
		}
		for _, a := range res.Alarms {
			alarms[a.ID] = a
		}
		for _, p := range res.Phases {
			phases[fmt.Sprintf("%s/%d", p.Name, p.BeginSeq)] = p
		}
		for k, v := range res.Config {
			run.Config[k] = v
		}
		if res.Ready != nil && run.Ready == nil {
			m := *res.Ready
			run.Ready = &m
		}
		if roundTrip {
			b, err := st.MarshalBinary()
			if err != nil {
				return Run{}, err
			}
			if st, err = classify.Restore(b); err != nil {
				return Run{}, err
			}
		}
		i = end
	}
	run.Verdicts = verdicts
	ids := make([]int, 0, len(alarms))
	for id := range alarms {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		if a := alarms[id]; a.Withdrawn {
			run.Withdrawn++
		} else {
			run.Alarms = append(run.Alarms, a)
		}
	}
	keys := make([]string, 0, len(phases))
	for k := range phases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		run.Phases = append(run.Phases, phases[k])
	}
	return run, nil
}

// Diff describes the first difference between two runs, "" if they agree.
func Diff(a, b Run) string {
	for i := range a.Verdicts {
		if i >= len(b.Verdicts) {
			break
		}
		if ja, jb := jsonOf(a.Verdicts[i]), jsonOf(b.Verdicts[i]); !bytes.Equal(ja, jb) {
			return fmt.Sprintf("line %d: %s vs %s", i+1, ja, jb)
		}
	}
	if ja, jb := jsonOf(a.Alarms), jsonOf(b.Alarms); !bytes.Equal(ja, jb) {
		return fmt.Sprintf("alarms: %s vs %s", ja, jb)
	}
	if ja, jb := jsonOf(a.Ready), jsonOf(b.Ready); !bytes.Equal(ja, jb) {
		return fmt.Sprintf("ready: %s vs %s", ja, jb)
	}
	if ja, jb := jsonOf(a.Phases), jsonOf(b.Phases); !bytes.Equal(ja, jb) {
		return fmt.Sprintf("phases: %s vs %s", ja, jb)
	}
	if ja, jb := jsonOf(a.Config), jsonOf(b.Config); !bytes.Equal(ja, jb) {
		return "config differs"
	}
	return ""
}

func jsonOf(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// Outcome is the launch verdict of a set of alarms and a readiness marker:
// ready_then_crashed when a fatal alarm starts after readiness, ready when
// the server became ready, crashed when a fatal alarm came and no readiness,
// loading otherwise.
func Outcome(alarms []classify.Alarm, ready *classify.Marker) string {
	fatal := false
	for _, a := range alarms {
		if !a.Fatal || a.Withdrawn {
			continue
		}
		if ready != nil && a.FirstSeq > ready.Seq {
			return OutcomeReadyThenCrashed
		}
		fatal = true
	}
	switch {
	case ready != nil:
		return OutcomeReady
	case fatal:
		return OutcomeCrashed
	}
	return OutcomeLoading
}
