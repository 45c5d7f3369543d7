package eval

import (
	"fmt"
	"regexp"

	"launchwatch/internal/classify"
	"launchwatch/internal/status"
)

// Options configure Evaluate and Baseline.
type Options struct {
	// Detect ignores the labeled server family and lets the classifier
	// detect it from the lines.
	Detect bool
	// Seed seeds the random batch sizes; case i of the corpus uses Seed+i.
	Seed uint64
}

// Evaluate scores every case from its verdict run (VerdictBatches, state
// saved and restored between batches, as the server does) and checks that
// a line-by-line run and a run in other random batches end the same; a
// case whose runs disagree is reported in FileScore.Inconsistent.
func Evaluate(cases []Case, opt Options) ([]FileScore, error) {
	out := make([]FileScore, 0, len(cases))
	for i, c := range cases {
		server := c.ServerParam(opt.Detect)
		seed := opt.Seed + uint64(i)
		run, err := Replay(c.Lines, server, VerdictBatches(seed))
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", c.Name, err)
		}
		one, err := Feed(c.Lines, server, LineByLine, false)
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", c.Name, err)
		}
		batched, err := Feed(c.Lines, server, RandomBatches(seed), true)
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", c.Name, err)
		}
		f := Score(c, Observe(run))
		// The verdict run is not compared: a reader's settling between its
		// batches may withdraw a promoted ERROR run, which uses an alarm ID.
		if d := Diff(one, batched); d != "" {
			f.Inconsistent = "line by line vs random batches: " + d
		}
		out = append(out, f)
	}
	return out, nil
}

// Baseline scores a case-insensitive grep: every matching line is a fatal
// alarm of its own, settled at once; readiness is the classifier's. The
// statuses between batches and the outcome come from the same status
// machine as the classifier's.
func Baseline(cases []Case, pattern string, opt Options) ([]FileScore, error) {
	re, err := regexp.Compile("(?i)" + pattern)
	if err != nil {
		return nil, fmt.Errorf("eval: baseline regex: %w", err)
	}
	out := make([]FileScore, 0, len(cases))
	for i, c := range cases {
		run, err := Feed(c.Lines, c.ServerParam(opt.Detect), LineByLine, false)
		if err != nil {
			return nil, fmt.Errorf("eval: %s: %w", c.Name, err)
		}
		o := Observation{Members: map[int][]int64{}}
		if run.Ready != nil {
			o.ReadySeq = run.Ready.Seq
		}
		for j, l := range c.Lines {
			if re.MatchString(l) {
				seq := int64(j + 1)
				id := len(o.Alarms) + 1
				o.Alarms = append(o.Alarms, Alarm{State: StateOpen, Alarm: classify.Alarm{ID: id, FirstSeq: seq, LastSeq: seq,
					HeadlineSeq: seq, Headline: l, Fatal: true, Kind: classify.AlarmOther, Ranks: 1, Settled: true}})
				o.Members[id] = []int64{seq}
			}
		}
		// The status after a batch ending at line end: every match so far
		// is an open fatal alarm.
		statusAt := func(end int64) string {
			open := 0
			for _, a := range o.Alarms {
				if a.FirstSeq <= end {
					open++
				}
			}
			return status.Of(status.Facts{Ready: o.ReadySeq > 0 && o.ReadySeq <= end, OpenFatal: open})
		}
		next := VerdictBatches(opt.Seed + uint64(i))
		for end := 0; end < len(c.Lines); {
			end = min(len(c.Lines), end+max(1, next()))
			o.Statuses = append(o.Statuses, statusAt(int64(end)))
		}
		o.Status = statusAt(int64(len(c.Lines)))
		out = append(out, Score(c, o))
	}
	return out, nil
}
