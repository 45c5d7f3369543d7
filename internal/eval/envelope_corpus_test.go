package eval_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/eval"
)

// alarmShape is what must not change when a log comes wrapped in a
// collector's envelope: which line the headline quotes and what it says, the
// kind, whether it is fatal, and exactly which lines belong to the event.
type alarmShape struct {
	HeadlineSeq int64
	Headline    string
	Kind        classify.AlarmKind
	Fatal       bool
	Lines       []int64
}

// shapes lists a run's live alarms in order of creation with their lines.
func shapes(run eval.Run) []alarmShape {
	lines := map[int][]int64{}
	for _, v := range run.Verdicts {
		if v.Alarm != 0 {
			lines[v.Alarm] = append(lines[v.Alarm], v.Seq)
		}
	}
	out := make([]alarmShape, 0, len(run.Alarms))
	for _, a := range run.Alarms {
		out = append(out, alarmShape{a.HeadlineSeq, a.Headline, a.Kind, a.Fatal, lines[a.ID]})
	}
	return out
}

func readySeq(run eval.Run) int64 {
	if run.Ready == nil {
		return 0
	}
	return run.Ready.Seq
}

// TestEnvelopesChangeNothing feeds every corpus case wrapped in every
// collector envelope and requires the alarms, readiness and outcome of the
// plain file, and logs the eval line per envelope.
func TestEnvelopesChangeNothing(t *testing.T) {
	t.Parallel()
	cases, err := eval.LoadDir(corpusDir(t))
	if err != nil {
		t.Fatal(err)
	}
	// Compare with the labeled family (as eval) and with detection (as
	// ingest when the launch names no server): family detection reads the
	// line before peeling, so both must hold.
	plain := make([][2]eval.Run, len(cases))
	for i, c := range cases {
		for d, server := range []string{c.Label.Server, ""} {
			if plain[i][d], err = eval.Feed(c.Lines, server, eval.LineByLine, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, kind := range append(eval.Envelopes, moreEnvelopes...) {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			wrapped := make([]eval.Case, len(cases))
			for i, c := range cases {
				w := c
				if w.Lines, err = wrapMore(kind, c.Name, c.Lines); err != nil {
					t.Fatal(err)
				}
				wrapped[i] = w
				for d, server := range []string{c.Label.Server, ""} {
					run, err := eval.Feed(w.Lines, server, eval.LineByLine, false)
					if err != nil {
						t.Fatal(err)
					}
					if diff := diffRuns(plain[i][d], run); diff != "" {
						t.Errorf("%s (server %q): %s", c.Name, server, diff)
					}
				}
			}
			for _, detect := range []bool{false, true} {
				files, err := eval.Evaluate(wrapped, eval.Options{Detect: detect, Seed: 7})
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range files {
					if f.Inconsistent != "" {
						t.Errorf("%s: batch split changes the result: %s", f.Name, f.Inconsistent)
					}
				}
				t.Logf("envelope=%s detect=%v: %s", kind, detect, eval.Total(files).Line())
			}
		})
	}
}

// moreEnvelopes are collector formats perturb.py does not write, and
// nestings of its envelopes, checked the same way.
var moreEnvelopes = []string{"json-file", "rfc5424", "kubectl+journald", "k8s+compose"}

// wrapMore wraps lines in one of moreEnvelopes, else as eval.Wrap does.
func wrapMore(kind, name string, lines []string) ([]string, error) {
	outer, inner, nested := strings.Cut(kind, "+")
	if nested {
		in, err := eval.Wrap(inner, name, lines)
		if err != nil {
			return nil, err
		}
		return eval.Wrap(outer, name, in)
	}
	out := make([]string, len(lines))
	base := time.Date(2026, 1, 28, 10, 4, 5, 0, time.UTC)
	for i, l := range lines {
		ts := base.Add(time.Duration(i) * time.Millisecond).Format(time.RFC3339Nano)
		switch kind {
		case "json-file":
			// Docker's json-file driver: one JSON object per line printed.
			b, err := json.Marshal(struct {
				Log    string `json:"log"`
				Stream string `json:"stream"`
				Time   string `json:"time"`
			}{l + "\n", "stderr", ts})
			if err != nil {
				return nil, err
			}
			out[i] = string(b)
		case "rfc5424":
			out[i] = "<14>1 " + ts + " gpu-7 " + name[:strings.IndexByte(name+"-", '-')] + " 4242 - - " + l
		default:
			return eval.Wrap(kind, name, lines)
		}
	}
	return out, nil
}

// diffRuns says how a wrapped run differs from the plain one, "" if it does not.
func diffRuns(plain, wrapped eval.Run) string {
	if a, b := readySeq(plain), readySeq(wrapped); a != b {
		return fmt.Sprintf("ready at line %d, plain at %d", b, a)
	}
	if a, b := eval.Outcome(plain.Alarms, plain.Ready), eval.Outcome(wrapped.Alarms, wrapped.Ready); a != b {
		return fmt.Sprintf("outcome %s, plain %s", b, a)
	}
	pa, wa := shapes(plain), shapes(wrapped)
	for i := range max(len(pa), len(wa)) {
		switch {
		case i >= len(pa):
			return fmt.Sprintf("extra alarm %+v", wa[i])
		case i >= len(wa):
			return fmt.Sprintf("missing alarm %+v", pa[i])
		case !slices.Equal(pa[i].Lines, wa[i].Lines) || pa[i].HeadlineSeq != wa[i].HeadlineSeq ||
			pa[i].Headline != wa[i].Headline || pa[i].Kind != wa[i].Kind || pa[i].Fatal != wa[i].Fatal:
			return fmt.Sprintf("alarm %d differs:\n  plain   %+v\n  wrapped %+v", i+1, pa[i], wa[i])
		}
	}
	return ""
}
