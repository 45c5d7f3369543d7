// Package eval scores a classifier on a labeled corpus the way design.md
// ("Scoring a classifier") says: alarm precision, block recall by line
// membership, headline accuracy, the launch outcome as the status machine
// decides it, and the verdict (the first decisive status while random
// batches arrive), for the classifier and for a grep baseline. What a
// running server's API shows is scored by the same Score
// (`launchwatch eval --url`), so both agree with ../shared/tools/score_api.py.
package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Outcomes of a launch.
const (
	OutcomeReady            = "ready"
	OutcomeCrashed          = "crashed"
	OutcomeLoading          = "loading"
	OutcomeReadyThenCrashed = "ready_then_crashed"
)

// Label is the NAME.json of a corpus case.
type Label struct {
	Source      string  `json:"source"`
	Server      string  `json:"server"`
	Outcome     string  `json:"outcome"`
	ReadyLine   *int64  `json:"ready_line"`
	ErrorBlocks []Block `json:"error_blocks"`
	BaitLines   []int64 `json:"bait_lines"`
	Notes       string  `json:"notes"`
}

// Block is one labeled error event; line numbers are 1-based.
type Block struct {
	Start         int64   `json:"start"`
	End           int64   `json:"end"`
	Kind          string  `json:"kind"`
	Fatal         bool    `json:"fatal"`
	Title         string  `json:"title"`
	HeadlineLines []int64 `json:"headline_lines"`
}

// Case is one labeled log.
type Case struct {
	Name  string
	Lines []string
	Label Label
}

// SplitLines splits a log on "\n" only: a carriage return inside a line
// (a progress bar) stays in it. A final newline does not start a line.
func SplitLines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	data = bytes.TrimSuffix(data, []byte("\n"))
	return strings.Split(string(data), "\n")
}

// LoadDir reads every NAME.log with its NAME.json from dir, sorted by name.
func LoadDir(dir string) ([]Case, error) {
	logs, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if len(logs) == 0 {
		return nil, fmt.Errorf("eval: no *.log files in %s", dir)
	}
	sort.Strings(logs)
	cases := make([]Case, 0, len(logs))
	for _, lp := range logs {
		name := strings.TrimSuffix(filepath.Base(lp), ".log")
		data, err := os.ReadFile(lp)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		lb, err := os.ReadFile(strings.TrimSuffix(lp, ".log") + ".json")
		if err != nil {
			return nil, fmt.Errorf("eval: label of %s: %w", name, err)
		}
		var l Label
		if err := json.Unmarshal(lb, &l); err != nil {
			return nil, fmt.Errorf("eval: label of %s: %w", name, err)
		}
		cases = append(cases, Case{Name: name, Lines: SplitLines(data), Label: l})
	}
	return cases, nil
}

// ServerParam is the server family given for c, as score_api.py sends it:
// the labeled family, or none (the classifier detects it) for "other" and
// when detect is set.
func (c Case) ServerParam(detect bool) string {
	if detect || c.Label.Server == "other" {
		return ""
	}
	return c.Label.Server
}

// WrapCases returns the cases with every log wrapped in the collector
// envelope kind (see Wrap); the labels stay as they are.
func WrapCases(kind string, cases []Case) ([]Case, error) {
	out := make([]Case, len(cases))
	for i, c := range cases {
		lines, err := Wrap(kind, c.Name, c.Lines)
		if err != nil {
			return nil, fmt.Errorf("eval: %w", err)
		}
		c.Lines = lines
		out[i] = c
	}
	return out, nil
}
