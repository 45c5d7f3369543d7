package export

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"launchwatch/internal/eval"
)

// LaunchFacts is what a corpus case needs to know about a reviewed launch.
type LaunchFacts struct {
	Key    string
	Server string
	Status string // the launch's status (crashed, ready, exited, ...)
	// ReadySeq is the log's readiness line, nil when none; Ready says the
	// launch became ready at all (a health probe can make it ready
	// without a readiness line).
	ReadySeq *int64
	Ready    bool
	Alarms   []AlarmFacts // the alarms not withdrawn
}

// AlarmFacts is one alarm of a launch with its review state.
type AlarmFacts struct {
	No          int
	Kind        string
	Fatal       bool
	State       string // open, confirmed, dismissed or suppressed
	Headline    string
	HeadlineSeq int64
	FirstSeq    int64
	LastSeq     int64
}

// LogLine is one stored line: its seq, the alarm it belongs to, its text.
type LogLine struct {
	Seq   int64
	Alarm *int
	Text  string
}

// ErrNotReviewed: the launch still has open alarms (or none decided), so
// its alarms are not all labeled and it is no case.
var ErrNotReviewed = errors.New("not reviewed")

// Reviewed reports whether every alarm of the launch is decided and at
// least one was: a launch nobody looked at labels nothing.
func (l LaunchFacts) Reviewed() bool {
	if len(l.Alarms) == 0 {
		return false
	}
	for _, a := range l.Alarms {
		if a.State == "open" {
			return false
		}
	}
	return true
}

// BuildCase writes a reviewed launch as a corpus case: the log (its lines
// in seq order, "\n"-terminated; line numbers count from 1 whatever the
// seqs) and its label. A confirmed alarm is an error block over its lines
// (first..last) headed by its headline line; the lines of a dismissed or
// suppressed alarm outside every block are bait lines; readiness and the
// outcome come from the launch and its confirmed fatal alarms:
// ready_then_crashed when the first confirmed fatal alarm starts after the
// readiness line, crashed when one came without readiness before it (or
// the launch crashed by its exit), ready when it became ready, loading
// otherwise.
func BuildCase(l LaunchFacts, lines []LogLine, source string) ([]byte, eval.Label, error) {
	if !l.Reviewed() {
		return nil, eval.Label{}, ErrNotReviewed
	}
	lineNo := make(map[int64]int64, len(lines))
	var log strings.Builder
	for i, ln := range lines {
		if strings.Contains(ln.Text, "\n") {
			return nil, eval.Label{}, fmt.Errorf("line %d holds a newline", ln.Seq)
		}
		lineNo[ln.Seq] = int64(i + 1)
		log.WriteString(ln.Text)
		log.WriteByte('\n')
	}
	// at maps a seq to its line number; a seq between stored lines (a
	// gap) takes the next stored line, one past the end the last.
	at := func(seq int64) int64 {
		if n, ok := lineNo[seq]; ok {
			return n
		}
		i, _ := slices.BinarySearchFunc(lines, seq, func(ln LogLine, s int64) int {
			return int(min(max(ln.Seq-s, -1), 1))
		})
		return int64(min(i+1, len(lines)))
	}
	server := l.Server
	if server == "" {
		server = "other"
	}
	label := eval.Label{Source: source, Server: server, ErrorBlocks: []eval.Block{}, BaitLines: []int64{}}
	var firstFatal int64
	for _, a := range l.Alarms {
		if a.State != StateConfirmed {
			continue
		}
		hl, ok := lineNo[a.HeadlineSeq]
		if !ok {
			return nil, eval.Label{}, fmt.Errorf("alarm %d: its headline line %d is not among the lines", a.No, a.HeadlineSeq)
		}
		label.ErrorBlocks = append(label.ErrorBlocks, eval.Block{Start: at(a.FirstSeq), End: at(a.LastSeq),
			Kind: a.Kind, Fatal: a.Fatal, Title: a.Headline, HeadlineLines: []int64{hl}})
		if a.Fatal && (firstFatal == 0 || a.FirstSeq < firstFatal) {
			firstFatal = a.FirstSeq
		}
	}
	inBlock := func(n int64) bool {
		return slices.ContainsFunc(label.ErrorBlocks, func(b eval.Block) bool { return n >= b.Start && n <= b.End })
	}
	falseAlarm := map[int]bool{}
	for _, a := range l.Alarms {
		if a.State == StateDismissed || a.State == StateSuppressed {
			falseAlarm[a.No] = true
		}
	}
	for _, ln := range lines {
		if ln.Alarm != nil && falseAlarm[*ln.Alarm] && !inBlock(lineNo[ln.Seq]) {
			label.BaitLines = append(label.BaitLines, lineNo[ln.Seq])
		}
	}
	if l.ReadySeq != nil {
		if n, ok := lineNo[*l.ReadySeq]; ok {
			label.ReadyLine = &n
		}
	}
	ready := l.Ready || label.ReadyLine != nil
	switch {
	case firstFatal > 0 && l.ReadySeq != nil && firstFatal > *l.ReadySeq:
		label.Outcome = eval.OutcomeReadyThenCrashed
	case firstFatal > 0:
		label.Outcome = eval.OutcomeCrashed
	case l.Status == "crashed" && ready:
		label.Outcome = eval.OutcomeReadyThenCrashed
	case l.Status == "crashed":
		label.Outcome = eval.OutcomeCrashed
	case ready:
		label.Outcome = eval.OutcomeReady
	default:
		label.Outcome = eval.OutcomeLoading
	}
	var decided []string
	for _, a := range l.Alarms {
		decided = append(decided, fmt.Sprintf("alarm %d %s", a.No, a.State))
	}
	label.Notes = "exported from Launchwatch decisions: " + strings.Join(decided, ", ")
	return []byte(log.String()), label, nil
}

// CaseName is a file name stem for a launch key: characters a file name
// should not hold (":", "@", "+", "=") become "_".
func CaseName(key string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, key)
}
