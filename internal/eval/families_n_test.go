package eval_test

import (
	"strings"
	"testing"

	"launchwatch/internal/eval"
)

// TestFamiliesNHealthyNeverAlarm replays the healthy held-out launches of
// testdata/families/n-* (ready or loading launches full of scary-but-benign
// lines: optional-import and plugin tracebacks, logging-error dumps, Ray,
// NCCL, c10d, ROCm, HPU, MPI and metrics noise, hub retries, 503s while
// warming up, request-level errors) as a client of the server sees them:
// random batches of 1..40 lines, the status read after each. Acceptance's
// hardest rule is that no healthy launch is ever shown as alarm, not even
// for a moment, so every seed 1..5, plain and in every collector envelope,
// must show neither a false-alarm outcome nor a transient alarm. The cases
// were written from each project's logging code, with invented values.
func TestFamiliesNHealthyNeverAlarm(t *testing.T) {
	t.Parallel()
	all, err := eval.LoadDir("../../testdata/families")
	if err != nil {
		t.Fatal(err)
	}
	var cases []eval.Case
	for _, c := range all {
		if strings.HasPrefix(c.Name, "n-") {
			cases = append(cases, c)
		}
	}
	if len(cases) < 25 {
		t.Fatalf("only %d n-* cases in testdata/families", len(cases))
	}
	for _, kind := range append([]string{""}, eval.Envelopes...) {
		wrapped := cases
		if kind != "" {
			wrapped = make([]eval.Case, len(cases))
			for i, c := range cases {
				w := c
				if w.Lines, err = eval.Wrap(kind, c.Name, c.Lines); err != nil {
					t.Fatal(err)
				}
				wrapped[i] = w
			}
		}
		for seed := uint64(1); seed <= 5; seed++ {
			files, err := eval.Evaluate(wrapped, eval.Options{Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Label != eval.OutcomeReady && f.Label != eval.OutcomeLoading {
					t.Errorf("%s: n-* cases are healthy launches, labeled %s", f.Name, f.Label)
				}
				if f.Inconsistent != "" {
					t.Errorf("envelope=%q seed=%d %s: batch split changes the result: %s", kind, seed, f.Name, f.Inconsistent)
				}
			}
			tot := eval.Total(files)
			if tot.FalseAlarm != 0 || tot.Transient != 0 {
				t.Errorf("envelope=%q seed=%d: a healthy launch was shown as alarm: %s", kind, seed, tot.Line())
			}
		}
	}
}
