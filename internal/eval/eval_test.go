package eval_test

import (
	"reflect"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/corpustest"
	"launchwatch/internal/eval"
)

func TestSplitLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"a\nb\n", []string{"a", "b"}},
		{"a\r\nb", []string{"a\r", "b"}},
		{"\rx 1/2\ry 2/2\n\n", []string{"\rx 1/2\ry 2/2", ""}},
	}
	for _, tt := range tests {
		if got := eval.SplitLines([]byte(tt.in)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	fatal := func(first int64) classify.Alarm { return classify.Alarm{FirstSeq: first, Fatal: true} }
	ready := &classify.Marker{Seq: 10}
	tests := []struct {
		name   string
		alarms []classify.Alarm
		ready  *classify.Marker
		want   string
	}{
		{"Nothing", nil, nil, eval.OutcomeLoading},
		{"Ready", nil, ready, eval.OutcomeReady},
		{"Crashed", []classify.Alarm{fatal(3)}, nil, eval.OutcomeCrashed},
		{"CrashedThenReady", []classify.Alarm{fatal(3)}, ready, eval.OutcomeReady},
		{"ReadyThenCrashed", []classify.Alarm{fatal(3), fatal(12)}, ready, eval.OutcomeReadyThenCrashed},
		{"NonFatalAfterReady", []classify.Alarm{{FirstSeq: 12}}, ready, eval.OutcomeReady},
		{"WithdrawnIgnored", []classify.Alarm{{FirstSeq: 12, Fatal: true, Withdrawn: true}}, ready, eval.OutcomeReady},
	}
	for _, tt := range tests {
		if got := eval.Outcome(tt.alarms, tt.ready); got != tt.want {
			t.Errorf("%s: Outcome = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// TestScoreFollowsDesign checks the scoring rules on a hand-made case: a
// true positive by headline line, a false alarm outside every block, a block
// found by range overlap but with the wrong headline, and a missed block.
func TestScoreFollowsDesign(t *testing.T) {
	t.Parallel()
	c := eval.Case{Name: "x", Label: eval.Label{Outcome: eval.OutcomeCrashed, ErrorBlocks: []eval.Block{
		{Start: 10, End: 20, HeadlineLines: []int64{20}},
		{Start: 30, End: 40, HeadlineLines: []int64{40}},
		{Start: 50, End: 60, HeadlineLines: []int64{60}},
	}}}
	alarms := []classify.Alarm{
		{ID: 1, FirstSeq: 10, LastSeq: 20, HeadlineSeq: 20, Fatal: true},
		{ID: 2, FirstSeq: 25, LastSeq: 32, HeadlineSeq: 25, Fatal: true}, // overlaps block 2, headline outside
		{ID: 3, FirstSeq: 70, LastSeq: 70, HeadlineSeq: 70},
	}
	f := eval.Score(c, alarms, nil, eval.Outcome(alarms, nil))
	if f.Alarms != 3 || f.TruePos != 1 || f.Found != 2 || f.HeadlineOK != 1 || f.Blocks != 3 || !f.OK() {
		t.Fatalf("score = %+v", f)
	}
	healthy := eval.FileScore{Label: eval.OutcomeReady, Verdict: eval.OutcomeReadyThenCrashed}
	missed := eval.FileScore{Label: eval.OutcomeCrashed, Verdict: eval.OutcomeLoading}
	tot := eval.Total([]eval.FileScore{f, healthy, missed})
	want := "precision=0.333 recall=0.667 headline=0.500 outcome=1/3 false_alarm_launches=1/1 missed_crashes=1/2"
	if got := tot.Line(); got != want {
		t.Errorf("Line() = %q\nwant      %q", got, want)
	}
}

func corpusDir(t *testing.T) string {
	return corpustest.Dir(t)
}

// TestCorpusMeetsThresholds runs the classifier on the shared corpus, with
// the labeled server family and with detection, and requires the issue's
// thresholds and batch-split consistency.
func TestCorpusMeetsThresholds(t *testing.T) {
	t.Parallel()
	cases, err := eval.LoadDir(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, detect := range []bool{false, true} {
		files, err := eval.Evaluate(cases, eval.Options{Detect: detect, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.Inconsistent != "" {
				t.Errorf("%s: batch split changes the result: %s", f.Name, f.Inconsistent)
			}
		}
		tot := eval.Total(files)
		t.Logf("detect=%v: %s", detect, tot.Line())
		if tot.Precision < 0.95 || tot.Recall < 0.95 || tot.Headline < 0.90 || float64(tot.OutcomeOK) < 0.95*float64(tot.Files) {
			t.Errorf("detect=%v below thresholds: %s", detect, tot.Line())
		}
	}
}

// TestBaselineGrep checks the grep baseline's rules: every matching line is
// an alarm and any match means crashed.
func TestBaselineGrep(t *testing.T) {
	t.Parallel()
	cases := []eval.Case{
		{Name: "a", Lines: []string{"loading", "RuntimeError: boom", "The server is fired up and ready to roll!"},
			Label: eval.Label{Server: "sglang", Outcome: eval.OutcomeCrashed, ErrorBlocks: []eval.Block{{Start: 2, End: 2, HeadlineLines: []int64{2}}}}},
		{Name: "b", Lines: []string{"INFO:     Application startup complete."}, Label: eval.Label{Server: "vllm", Outcome: eval.OutcomeReady}},
	}
	files, err := eval.Baseline(cases, "error|boom", eval.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if files[0].Alarms != 1 || files[0].TruePos != 1 || files[0].Verdict != eval.OutcomeCrashed || files[1].Verdict != eval.OutcomeReady {
		t.Errorf("baseline = %+v", files)
	}
	if _, err := eval.Baseline(cases, "(", eval.Options{}); err == nil {
		t.Error("invalid regex accepted")
	}
}
