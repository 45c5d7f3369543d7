package eval

import (
	"fmt"
	"regexp"
	"slices"

	"launchwatch/internal/classify"
)

// FileScore is the score of one case.
type FileScore struct {
	Name         string     `json:"name"`
	Server       string     `json:"server"`
	Label        string     `json:"label"`
	Verdict      string     `json:"verdict"`
	Alarms       int        `json:"alarms"`
	TruePos      int        `json:"true_positive"`
	Withdrawn    int        `json:"withdrawn"`
	Blocks       int        `json:"blocks"`
	Found        int        `json:"found"`
	HeadlineOK   int        `json:"headline_ok"`
	ReadySeq     int64      `json:"ready_line,omitempty"`
	LabelReady   int64      `json:"label_ready_line,omitempty"`
	AlarmRows    []AlarmRow `json:"alarm_rows,omitempty"`
	BlockRows    []BlockRow `json:"block_rows,omitempty"`
	Inconsistent string     `json:"inconsistent,omitempty"` // batch-split disagreement, if any
}

// AlarmRow is one alarm of a case with its judgement.
type AlarmRow struct {
	classify.Alarm
	TruePositive bool `json:"true_positive"`
}

// BlockRow is one labeled block of a case with its judgement.
type BlockRow struct {
	Block
	Found      bool  `json:"found"`
	HeadlineOK bool  `json:"headline_ok"`
	AlarmIDs   []int `json:"alarm_ids,omitempty"`
}

// OK reports whether the launch verdict matches the label.
func (f FileScore) OK() bool { return f.Verdict == f.Label }

// Totals is the score of a whole corpus.
type Totals struct {
	Files      int     `json:"files"`
	Alarms     int     `json:"alarms"`
	TruePos    int     `json:"true_positive"`
	Blocks     int     `json:"blocks"`
	Found      int     `json:"found"`
	HeadlineOK int     `json:"headline_ok"`
	Precision  float64 `json:"precision"`
	Recall     float64 `json:"recall"`
	Headline   float64 `json:"headline"`
	OutcomeOK  int     `json:"outcome_ok"`
	FalseAlarm int     `json:"false_alarm_launches"`
	Healthy    int     `json:"healthy_launches"`
	Missed     int     `json:"missed_crashes"`
	Crashed    int     `json:"crashed_launches"`
}

// Line is the summary line design.md asks for.
func (t Totals) Line() string {
	return fmt.Sprintf("precision=%.3f recall=%.3f headline=%.3f outcome=%d/%d false_alarm_launches=%d/%d missed_crashes=%d/%d",
		t.Precision, t.Recall, t.Headline, t.OutcomeOK, t.Files, t.FalseAlarm, t.Healthy, t.Missed, t.Crashed)
}

// Score judges the alarms and readiness of one case against its label.
func Score(c Case, alarms []classify.Alarm, ready *classify.Marker, verdict string) FileScore {
	f := FileScore{Name: c.Name, Server: c.Label.Server, Label: c.Label.Outcome, Verdict: verdict,
		Alarms: len(alarms), Blocks: len(c.Label.ErrorBlocks)}
	if ready != nil {
		f.ReadySeq = ready.Seq
	}
	if c.Label.ReadyLine != nil {
		f.LabelReady = *c.Label.ReadyLine
	}
	for _, a := range alarms {
		tp := false
		for _, b := range c.Label.ErrorBlocks {
			if a.HeadlineSeq >= b.Start && a.HeadlineSeq <= b.End {
				tp = true
				break
			}
		}
		if tp {
			f.TruePos++
		}
		f.AlarmRows = append(f.AlarmRows, AlarmRow{Alarm: a, TruePositive: tp})
	}
	for _, b := range c.Label.ErrorBlocks {
		row := BlockRow{Block: b}
		for _, a := range alarms {
			if a.FirstSeq <= b.End && a.LastSeq >= b.Start {
				row.Found = true
				row.AlarmIDs = append(row.AlarmIDs, a.ID)
				if slices.Contains(b.HeadlineLines, a.HeadlineSeq) {
					row.HeadlineOK = true
				}
			}
		}
		if row.Found {
			f.Found++
		}
		if row.HeadlineOK {
			f.HeadlineOK++
		}
		f.BlockRows = append(f.BlockRows, row)
	}
	return f
}

// Total adds up file scores. Precision is true-positive alarms over all
// alarms, recall found blocks over all blocks, headline found blocks with a
// correct headline over found blocks (each 1 when its denominator is 0).
func Total(files []FileScore) Totals {
	var t Totals
	for _, f := range files {
		t.Files++
		t.Alarms += f.Alarms
		t.TruePos += f.TruePos
		t.Blocks += f.Blocks
		t.Found += f.Found
		t.HeadlineOK += f.HeadlineOK
		if f.Verdict == f.Label {
			t.OutcomeOK++
		}
		crashedVerdict := f.Verdict == OutcomeCrashed || f.Verdict == OutcomeReadyThenCrashed
		switch f.Label {
		case OutcomeReady, OutcomeLoading:
			t.Healthy++
			if crashedVerdict {
				t.FalseAlarm++
			}
		case OutcomeCrashed, OutcomeReadyThenCrashed:
			t.Crashed++
			if !crashedVerdict {
				t.Missed++
			}
		}
	}
	t.Precision = ratio(t.TruePos, t.Alarms)
	t.Recall = ratio(t.Found, t.Blocks)
	t.Headline = ratio(t.HeadlineOK, t.Found)
	return t
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// Options configure Evaluate.
type Options struct {
	// Detect ignores the labeled server family and lets the classifier
	// detect it from the lines.
	Detect bool
	// Seed seeds the random batch sizes of the consistency run.
	Seed uint64
}

// Evaluate classifies every case line by line and again in seeded random
// batches with the state saved and restored between batches; a case whose two
// runs disagree is reported in FileScore.Inconsistent.
func Evaluate(cases []Case, opt Options) ([]FileScore, error) {
	var out []FileScore
	for i, c := range cases {
		server := c.Label.Server
		if opt.Detect {
			server = ""
		}
		one, err := Feed(c.Lines, server, LineByLine, false)
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", c.Name, err)
		}
		batched, err := Feed(c.Lines, server, RandomBatches(opt.Seed+uint64(i)), true)
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", c.Name, err)
		}
		f := Score(c, one.Alarms, one.Ready, Outcome(one.Alarms, one.Ready))
		f.Withdrawn = one.Withdrawn
		f.Inconsistent = Diff(one, batched)
		out = append(out, f)
	}
	return out, nil
}

// Baseline scores a case-insensitive grep: every matching line is a fatal
// alarm of its own, any match means crashed, else a readiness line (as the
// classifier recognises it) means ready.
func Baseline(cases []Case, pattern string, opt Options) ([]FileScore, error) {
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		return nil, fmt.Errorf("eval: baseline regex: %w", err)
	}
	var out []FileScore
	for _, c := range cases {
		server := c.Label.Server
		if opt.Detect {
			server = ""
		}
		run, err := Feed(c.Lines, server, LineByLine, false)
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", c.Name, err)
		}
		var alarms []classify.Alarm
		for i, l := range c.Lines {
			if re.MatchString(l) {
				seq := int64(i + 1)
				alarms = append(alarms, classify.Alarm{ID: len(alarms) + 1, FirstSeq: seq, LastSeq: seq,
					HeadlineSeq: seq, Headline: l, Fatal: true, Kind: classify.AlarmOther, Ranks: 1})
			}
		}
		verdict := OutcomeLoading
		switch {
		case len(alarms) > 0:
			verdict = OutcomeCrashed
		case run.Ready != nil:
			verdict = OutcomeReady
		}
		out = append(out, Score(c, alarms, run.Ready, verdict))
	}
	return out, nil
}
