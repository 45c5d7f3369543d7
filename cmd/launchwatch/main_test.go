package main

import (
	"bytes"
	"context"
	"encoding/json"
	"launchwatch/internal/corpustest"
	"strings"
	"testing"
)

func corpusDir(t *testing.T) string {
	return corpustest.Dir(t)
}

func runCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestDispatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{"Help", []string{"--help"}, 0, "eval", ""},
		{"NoArgs", nil, 2, "", "Usage: launchwatch"},
		{"Unknown", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"EvalNoDir", []string{"eval"}, 2, "", "Usage: launchwatch eval"},
		{"EvalBadFlag", []string{"eval", "--nope", "x"}, 2, "", "flag provided but not defined"},
		{"EvalMissingDir", []string{"eval", "/nonexistent/corpus"}, 1, "", "no *.log files"},
		{"EvalHelp", []string{"eval", "-h"}, 0, "", "baseline-grep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runCmd(tt.args...)
			if code != tt.code || !strings.Contains(out, tt.inStdout) || !strings.Contains(errOut, tt.inStderr) {
				t.Errorf("run(%q) = %d\nstdout: %s\nstderr: %s", tt.args, code, out, errOut)
			}
		})
	}
}

func TestEvalCorpus(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t)
	code, out, errOut := runCmd("eval", dir, "-v")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "precision=") || !strings.Contains(last, " missed_crashes=") {
		t.Errorf("last line %q", last)
	}
	if !strings.Contains(out, "alarm #1") || !strings.Contains(out, "block lines") {
		t.Errorf("-v shows no alarms or blocks:\n%s", out)
	}

	code, out, errOut = runCmd("eval", "--json", dir)
	if code != 0 {
		t.Fatalf("--json exit %d: %s", code, errOut)
	}
	var doc struct {
		Files []struct {
			Name string `json:"name"`
		} `json:"files"`
		Totals struct {
			Precision float64 `json:"precision"`
			Files     int     `json:"files"`
		} `json:"totals"`
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--json output: %v", err)
	}
	if doc.Totals.Files == 0 || len(doc.Files) != doc.Totals.Files || doc.Totals.Precision < 0.95 || !strings.HasPrefix(doc.Summary, "precision=") {
		t.Errorf("json = %+v", doc)
	}

	code, out, _ = runCmd("eval", "--baseline-grep", "Exception|Error|failed|sigquit", dir)
	if code != 0 || !strings.Contains(out, "precision=") {
		t.Errorf("baseline exit %d: %s", code, out)
	}
}
