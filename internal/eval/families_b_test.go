package eval_test

import (
	"strings"
	"testing"

	"launchwatch/internal/eval"
)

// TestFamiliesBHeldOut scores the held-out cases of families the shared
// corpus barely has (testdata/families/b-*: TGI text and --json-output,
// mistral.rs, text-embeddings-inference, sglang-router, DeepSpeed-MII,
// Aphrodite, TabbyAPI, text-generation-webui, vLLM V1 tags with colour
// codes, SGLang PD/DP-attention/ROCm), plain and in every collector
// envelope, with the labeled family and with detection. They were written
// from each project's logging code, not from any published log, so they
// measure generalisation: acceptance's private corpora hold real logs of
// the same families.
func TestFamiliesBHeldOut(t *testing.T) {
	t.Parallel()
	all, err := eval.LoadDir("../../testdata/families")
	if err != nil {
		t.Fatal(err)
	}
	var cases []eval.Case
	for _, c := range all {
		if strings.HasPrefix(c.Name, "b-") {
			cases = append(cases, c)
		}
	}
	if len(cases) < 25 {
		t.Fatalf("only %d b-* cases in testdata/families", len(cases))
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
		for _, detect := range []bool{false, true} {
			files, err := eval.Evaluate(wrapped, eval.Options{Detect: detect, Seed: 7})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Inconsistent != "" {
					t.Errorf("envelope=%q detect=%v %s: batch split changes the result: %s", kind, detect, f.Name, f.Inconsistent)
				}
				// A healthy launch shown crashed is the worst miss: the
				// engineer is sent to debug a server that works.
				if (f.Label == eval.OutcomeReady || f.Label == eval.OutcomeLoading) &&
					(f.Outcome == eval.OutcomeCrashed || f.Outcome == eval.OutcomeReadyThenCrashed) {
					t.Errorf("envelope=%q detect=%v %s: healthy launch (%s) shown %s", kind, detect, f.Name, f.Label, f.Outcome)
				}
			}
			tot := eval.Total(files)
			t.Logf("envelope=%q detect=%v: %s", kind, detect, tot.Line())
			if tot.Precision < 0.97 || tot.Recall < 0.95 || tot.Headline < 0.90 {
				t.Errorf("envelope=%q detect=%v below thresholds (precision 0.97, recall 0.95, headline 0.90): %s", kind, detect, tot.Line())
			}
		}
	}
}
