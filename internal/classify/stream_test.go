package classify_test

import (
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/corpustest"
	"launchwatch/internal/eval"
)

// corpusDir is the shared labeled corpus (LAUNCHWATCH_CORPUS overrides).
func corpusDir(t testing.TB) string {
	return corpustest.Dir(t)
}

// TestBatchSplitInvariance feeds every corpus file line by line, and again in
// random batch sizes with the state saved and restored between every two
// batches, and requires the same final verdicts, alarms, readiness, phases
// and configuration, for the labeled server and with server detection.
func TestBatchSplitInvariance(t *testing.T) {
	t.Parallel()
	cases, err := eval.LoadDir(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			for _, server := range []string{c.Label.Server, ""} {
				one, err := eval.Feed(c.Lines, server, eval.LineByLine, false)
				if err != nil {
					t.Fatal(err)
				}
				whole, err := eval.Feed(c.Lines, server, func() int { return 1 << 30 }, false)
				if err != nil {
					t.Fatal(err)
				}
				if d := eval.Diff(one, whole); d != "" {
					t.Errorf("server %q: line by line vs one batch: %s", server, d)
				}
				for seed := uint64(1); seed <= 5; seed++ {
					batched, err := eval.Feed(c.Lines, server, eval.RandomBatches(seed), true)
					if err != nil {
						t.Fatal(err)
					}
					if d := eval.Diff(one, batched); d != "" {
						t.Errorf("server %q seed %d: line by line vs random batches with restore: %s", server, seed, d)
					}
				}
			}
		})
	}
}

// TestStateStaysSmallOnCorpus checks the saved state after every line of
// every corpus file.
func TestStateStaysSmallOnCorpus(t *testing.T) {
	t.Parallel()
	cases, err := eval.LoadDir(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	maxSize := 0
	for _, c := range cases {
		st := classify.New(c.Label.Server)
		for i, l := range c.Lines {
			st.Feed([]classify.Line{{Seq: int64(i + 1), Text: l}})
			b, err := st.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			maxSize = max(maxSize, len(b))
		}
	}
	if maxSize > 64<<10 {
		t.Errorf("state grew to %d bytes", maxSize)
	}
	t.Logf("largest state: %d bytes", maxSize)
}

func TestRestoreRejectsGarbage(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "{", `{"next_id":0}`, "null"} {
		if _, err := classify.Restore([]byte(in)); err == nil {
			t.Errorf("Restore(%q) succeeded", in)
		}
	}
}

// TestResultRevisesEarlierBatches checks that a retried traceback split over
// two Feed calls is withdrawn by the second call: its alarm comes back with
// Withdrawn set and its earlier lines come back as warnings.
func TestResultRevisesEarlierBatches(t *testing.T) {
	t.Parallel()
	st := classify.New("")
	r1 := st.Feed([]classify.Line{
		{Seq: 10, Text: "Traceback (most recent call last):"},
		{Seq: 11, Text: `  File "/x/http.py", line 1, in get`},
		{Seq: 12, Text: "    return sock.recv()"},
		{Seq: 13, Text: "TimeoutError: The read operation timed out"},
	})
	if len(r1.Alarms) != 1 || r1.Alarms[0].Withdrawn || r1.Lines[0].Alarm != r1.Alarms[0].ID {
		t.Fatalf("first batch: %+v", r1)
	}
	id := r1.Alarms[0].ID
	r2 := st.Feed([]classify.Line{{Seq: 15, Text: "retry() failed once (0th try, maximum 2 retries). Will delay 0.92s and retry."}})
	if len(r2.Alarms) != 1 || r2.Alarms[0].ID != id || !r2.Alarms[0].Withdrawn {
		t.Fatalf("second batch alarms: %+v", r2.Alarms)
	}
	var seqs []int64
	for _, v := range r2.Lines {
		seqs = append(seqs, v.Seq)
		if v.Alarm != 0 || (v.Seq < 15 && v.Kind != classify.KindWarning) {
			t.Errorf("revised line %+v", v)
		}
	}
	if len(seqs) != 5 || seqs[0] != 10 || seqs[4] != 15 {
		t.Errorf("revised seqs %v, want 10..13 and 15", seqs)
	}
	if s := st.Summary(); s.Alarms != 1 || s.LiveAlarms != 0 || s.FatalAlarms != 0 || s.LastFatalSeq != 0 {
		t.Errorf("summary after withdrawal: %+v", s)
	}
}
