package eval_test

import (
	"strings"
	"testing"

	"launchwatch/internal/eval"
)

// TestFamiliesCCrashes scores the held-out crash launches of
// testdata/families/c-*: failures the other cases do not cover (JAX/XLA on
// TPU, Habana synStatus and PT_BRIDGE errors, ROCm/HIP, ggml's CUDA/ROCm
// abort dumps, a custom backend's CUDA check, TensorRT-LLM assertions with
// their stacks under Triton, Triton compiler errors, inductor failures,
// NCCL WARN/remote/internal errors and the watchdog's heartbeat monitor,
// torchrun's ChildFailedError table, Ray actor deaths, faulthandler dumps,
// the OOM killer, uvicorn lifespan failures, pydantic and argparse errors,
// Hugging Face hub and safetensors errors, Go runtime panics and fatal
// errors, anyhow error chains, the DeepSpeed launcher's report). Each was
// written from the project's source, never from a published log. They are
// scored over seeds 1..5, plain and in every collector envelope, as
// acceptance scores its private corpora of real crash logs.
func TestFamiliesCCrashes(t *testing.T) {
	t.Parallel()
	all, err := eval.LoadDir("../../testdata/families")
	if err != nil {
		t.Fatal(err)
	}
	var cases []eval.Case
	for _, c := range all {
		if strings.HasPrefix(c.Name, "c-") {
			cases = append(cases, c)
		}
	}
	if len(cases) < 25 {
		t.Fatalf("only %d c-* cases in testdata/families", len(cases))
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
				if f.Inconsistent != "" {
					t.Errorf("envelope=%q seed=%d %s: batch split changes the result: %s", kind, seed, f.Name, f.Inconsistent)
				}
				// Every case is a crash: one shown healthy is the miss
				// acceptance counts most.
				if f.Outcome == eval.OutcomeReady || f.Outcome == eval.OutcomeLoading {
					t.Errorf("envelope=%q seed=%d %s: crash (%s) shown %s", kind, seed, f.Name, f.Label, f.Outcome)
				}
			}
			tot := eval.Total(files)
			verdict := float64(tot.VerdictOK) / float64(tot.Files)
			t.Logf("envelope=%q seed=%d: %s", kind, seed, tot.Line())
			if tot.Precision < 0.97 || tot.Recall < 0.95 || tot.Headline < 0.90 || verdict < 0.95 {
				t.Errorf("envelope=%q seed=%d below thresholds (precision 0.97, recall 0.95, headline 0.90, verdict 0.95): %s", kind, seed, tot.Line())
			}
		}
	}
}
