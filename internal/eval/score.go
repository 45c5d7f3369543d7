package eval

import (
	"fmt"
	"slices"

	"launchwatch/internal/classify"
	"launchwatch/internal/status"
)

// Review states of an alarm, as the API reports them. A local run has only
// open alarms: nobody reviewed them.
const (
	StateOpen      = "open"
	StateConfirmed = "confirmed"
)

// Alarm is an alarm as the scorer sees it: the classifier's alarm and its
// review state.
type Alarm struct {
	classify.Alarm
	State string `json:"state"`
}

// Observation is what a scorer saw of one launch, locally (Observe) or
// through a server's API (`eval --url`); Score judges it against the label
// the same way for both.
type Observation struct {
	Alarms    []Alarm         // the alarms that were not withdrawn, by ID
	Members   map[int][]int64 // alarm ID → the seqs of the lines that belong to it
	ReadySeq  int64           // the readiness line, 0 if never ready
	Status    string          // the final launch status
	Statuses  []string        // the status seen after each batch, in order
	Withdrawn int             // alarms withdrawn (unknown through the API: 0)
}

// OutcomeOf maps a final launch status to an outcome, as score_api.py
// does: alarm or crashed is ready_then_crashed when the earliest open or
// confirmed fatal alarm starts after the readiness line, else crashed;
// ready is ready; anything else is loading.
func OutcomeOf(st string, readySeq int64, alarms []Alarm) string {
	switch st {
	case status.Alarm, status.Crashed:
		var first int64
		for _, a := range alarms {
			if a.Fatal && (a.State == StateOpen || a.State == StateConfirmed) && (first == 0 || a.FirstSeq < first) {
				first = a.FirstSeq
			}
		}
		if readySeq > 0 && first > readySeq {
			return OutcomeReadyThenCrashed
		}
		return OutcomeCrashed
	case status.Ready:
		return OutcomeReady
	}
	return OutcomeLoading
}

// Decisive statuses: what `launchwatch wait` would exit on.
const (
	DecisiveReady = "ready"
	DecisiveCrash = "crash"
)

// Decisive is the decision a status means: ready, crash (alarm or
// crashed), or "" while undecided.
func Decisive(st string) string {
	switch st {
	case status.Alarm, status.Crashed:
		return DecisiveCrash
	case status.Ready:
		return DecisiveReady
	}
	return ""
}

// wantDecisive is the first decisive status a label asks for: a launch
// that became ready should first be shown ready, even if it crashed later.
func wantDecisive(outcome string) string {
	switch outcome {
	case OutcomeReady, OutcomeReadyThenCrashed:
		return DecisiveReady
	case OutcomeCrashed:
		return DecisiveCrash
	}
	return ""
}

func isCrash(outcome string) bool {
	return outcome == OutcomeCrashed || outcome == OutcomeReadyThenCrashed
}

// FileScore is the score of one case.
type FileScore struct {
	Name      string `json:"name"`
	Server    string `json:"server"`
	Label     string `json:"label"`
	Outcome   string `json:"outcome"`
	First     string `json:"first_decisive"` // ready, crash or "" (never decided)
	VerdictOK bool   `json:"verdict_ok"`
	SawAlarm  bool   `json:"saw_alarm"` // alarm or crashed was shown at some point
	// Transient is a healthy launch (label ready or loading) that was shown
	// alarm or crashed at some moment but not at the end.
	Transient    bool       `json:"transient_false_alarm"`
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
	Alarm
	Lines        []int64 `json:"lines"` // the lines that belong to the alarm
	TruePositive bool    `json:"true_positive"`
}

// BlockRow is one labeled block of a case with its judgement.
type BlockRow struct {
	Block
	Found      bool  `json:"found"`
	HeadlineOK bool  `json:"headline_ok"`
	AlarmIDs   []int `json:"alarm_ids,omitempty"`
}

// OK reports whether the launch outcome matches the label.
func (f FileScore) OK() bool { return f.Outcome == f.Label }

// Score judges what was observed of one case against its label (design.md,
// "Scoring a classifier"):
//   - an alarm is a true positive when its headline line lies in a block;
//   - a block is found when one of its lines belongs to an alarm (line
//     membership: an alarm covers the lines of its own event, not its
//     first..last range), and its headline is right when an alarm that
//     touches it so quotes one of the block's headline lines;
//   - the outcome is the final status mapped by OutcomeOf;
//   - the verdict is the first decisive status seen between batches.
func Score(c Case, o Observation) FileScore {
	f := FileScore{Name: c.Name, Server: c.Label.Server, Label: c.Label.Outcome,
		Alarms: len(o.Alarms), Blocks: len(c.Label.ErrorBlocks), Withdrawn: o.Withdrawn, ReadySeq: o.ReadySeq}
	if c.Label.ReadyLine != nil {
		f.LabelReady = *c.Label.ReadyLine
	}
	f.Outcome = OutcomeOf(o.Status, o.ReadySeq, o.Alarms)
	for _, st := range o.Statuses {
		d := Decisive(st)
		if f.First == "" {
			f.First = d
		}
		f.SawAlarm = f.SawAlarm || d == DecisiveCrash
	}
	f.VerdictOK = f.First == wantDecisive(f.Label)
	f.Transient = !isCrash(f.Label) && f.SawAlarm && !isCrash(f.Outcome)
	for _, a := range o.Alarms {
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
		f.AlarmRows = append(f.AlarmRows, AlarmRow{Alarm: a, Lines: o.Members[a.ID], TruePositive: tp})
	}
	for _, b := range c.Label.ErrorBlocks {
		row := BlockRow{Block: b}
		for _, a := range o.Alarms {
			if !slices.ContainsFunc(o.Members[a.ID], func(s int64) bool { return s >= b.Start && s <= b.End }) {
				continue
			}
			row.Found = true
			row.AlarmIDs = append(row.AlarmIDs, a.ID)
			if slices.Contains(b.HeadlineLines, a.HeadlineSeq) {
				row.HeadlineOK = true
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
	VerdictOK  int     `json:"verdict_ok"`
	FalseAlarm int     `json:"false_alarm_launches"`
	Transient  int     `json:"transient_false_alarms"`
	Healthy    int     `json:"healthy_launches"`
	Missed     int     `json:"missed_crashes"`
	Crashed    int     `json:"crashed_launches"`
}

// Line is the summary line design.md asks for.
func (t Totals) Line() string {
	return fmt.Sprintf("precision=%.3f recall=%.3f headline=%.3f outcome=%d/%d verdict=%d/%d "+
		"false_alarm_launches=%d/%d transient_false_alarms=%d/%d missed_crashes=%d/%d",
		t.Precision, t.Recall, t.Headline, t.OutcomeOK, t.Files, t.VerdictOK, t.Files,
		t.FalseAlarm, t.Healthy, t.Transient, t.Healthy, t.Missed, t.Crashed)
}

// Total adds up file scores. Precision is true-positive alarms over all
// alarms, recall found blocks over all blocks, headline found blocks with a
// correct headline over found blocks (each 1 when its denominator is 0).
// A healthy launch is one labeled ready or loading; a false alarm launch is
// a healthy one whose outcome is a crash, a missed crash the reverse.
func Total(files []FileScore) Totals {
	var t Totals
	for _, f := range files {
		t.Files++
		t.Alarms += f.Alarms
		t.TruePos += f.TruePos
		t.Blocks += f.Blocks
		t.Found += f.Found
		t.HeadlineOK += f.HeadlineOK
		if f.OK() {
			t.OutcomeOK++
		}
		if f.VerdictOK {
			t.VerdictOK++
		}
		if isCrash(f.Label) {
			t.Crashed++
			if !isCrash(f.Outcome) {
				t.Missed++
			}
			continue
		}
		t.Healthy++
		if isCrash(f.Outcome) {
			t.FalseAlarm++
		}
		if f.Transient {
			t.Transient++
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
