package eval_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"launchwatch/internal/eval"
)

// familiesDir is testdata/families: a held-out corpus written for
// Launchwatch from the source code of server families the shared corpus
// barely has (vLLM on TPU, Gaudi and ROCm, Ollama, llama.cpp and llamafile,
// Xinference, Triton, trtllm-serve under MPI, LMDeploy), labeled by the
// shared corpus's README rules.
func familiesDir(t *testing.T) string {
	t.Helper()
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("no caller")
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "families")
}

// TestFamiliesMeetThresholds scores testdata/families with the labeled
// family, with detection and in every collector envelope, and requires the
// issue's acceptance thresholds and that no healthy launch ends crashed.
func TestFamiliesMeetThresholds(t *testing.T) {
	t.Parallel()
	cases, err := eval.LoadDir(familiesDir(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 20 {
		t.Fatalf("%d cases in testdata/families, want the whole corpus", len(cases))
	}
	variants := []string{""}
	variants = append(variants, eval.Envelopes...)
	for _, env := range variants {
		in := cases
		if env != "" {
			if in, err = eval.WrapCases(env, cases); err != nil {
				t.Fatal(err)
			}
		}
		for _, detect := range []bool{false, true} {
			files, err := eval.Evaluate(in, eval.Options{Detect: detect, Seed: 11})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				if f.Inconsistent != "" {
					t.Errorf("envelope=%q detect=%v %s: batch split changes the result: %s", env, detect, f.Name, f.Inconsistent)
				}
			}
			tot := eval.Total(files)
			t.Logf("envelope=%q detect=%v: %s", env, detect, tot.Line())
			if tot.Precision < 0.97 || tot.Recall < 0.95 || tot.Headline < 0.90 {
				t.Errorf("envelope=%q detect=%v below thresholds: %s", env, detect, tot.Line())
			}
			if tot.FalseAlarm != 0 {
				t.Errorf("envelope=%q detect=%v: %d healthy launches end crashed: %s", env, detect, tot.FalseAlarm, tot.Line())
			}
		}
	}
}
