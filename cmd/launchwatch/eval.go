package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"launchwatch/internal/eval"
)

// runEval implements `launchwatch eval DIR [--json] [-v]` and
// `launchwatch eval --baseline-grep REGEX DIR`.
func runEval(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print machine-readable JSON instead of text")
	verbose := fs.Bool("v", false, "show every alarm and labeled block")
	baseline := fs.String("baseline-grep", "", "score a case-insensitive grep `REGEX` instead of the classifier")
	detect := fs.Bool("detect", false, "ignore the labeled server family; let the classifier detect it")
	seed := fs.Uint64("seed", 1, "seed of the random batch sizes of the consistency run")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: launchwatch eval [flags] DIR")
		fmt.Fprintln(stderr, "       launchwatch eval --baseline-grep REGEX DIR")
		fmt.Fprintln(stderr)
		fmt.Fprintln(stderr, "Scores the classifier on a labeled corpus (NAME.log + NAME.json). Each file is fed")
		fmt.Fprintln(stderr, "line by line and again in seeded random batches with the state saved and restored")
		fmt.Fprintln(stderr, "between batches; the command fails if the two disagree.")
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if len(pos) != 1 {
		fs.Usage()
		return 2
	}
	cases, err := eval.LoadDir(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch:", err)
		return 1
	}
	opt := eval.Options{Detect: *detect, Seed: *seed}
	var files []eval.FileScore
	if *baseline != "" {
		files, err = eval.Baseline(cases, *baseline, opt)
	} else {
		files, err = eval.Evaluate(cases, opt)
	}
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch:", err)
		return 1
	}
	tot := eval.Total(files)
	inconsistent := 0
	for _, f := range files {
		if f.Inconsistent != "" {
			inconsistent++
			fmt.Fprintf(stderr, "launchwatch: BATCH-SPLIT MISMATCH in %s: %s\n", f.Name, f.Inconsistent)
		}
	}
	if *asJSON {
		if !*verbose {
			for i := range files {
				files[i].AlarmRows, files[i].BlockRows = nil, nil
			}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Baseline string           `json:"baseline_grep,omitempty"`
			Files    []eval.FileScore `json:"files"`
			Totals   eval.Totals      `json:"totals"`
			Summary  string           `json:"summary"`
		}{*baseline, files, tot, tot.Line()}); err != nil {
			fmt.Fprintln(stderr, "launchwatch:", err)
			return 1
		}
	} else {
		printText(stdout, files, *verbose)
		fmt.Fprintln(stdout, tot.Line())
	}
	if inconsistent > 0 {
		fmt.Fprintf(stderr, "launchwatch: %d file(s) classified differently when split into batches\n", inconsistent)
		return 1
	}
	return 0
}

func printText(w io.Writer, files []eval.FileScore, verbose bool) {
	for _, f := range files {
		mark := "ok"
		if !f.OK() {
			mark = "OUTCOME-MISS"
		}
		fmt.Fprintf(w, "%-52s %-7s label=%-18s got=%-18s alarms=%d tp=%d blocks=%d/%d headline=%d/%d %s\n",
			f.Name, f.Server, f.Label, f.Verdict, f.Alarms, f.TruePos, f.Found, f.Blocks, f.HeadlineOK, f.Found, mark)
		if !verbose {
			continue
		}
		for _, a := range f.AlarmRows {
			tp := "FALSE-ALARM"
			if a.TruePositive {
				tp = "tp"
			}
			fatal := "non-fatal"
			if a.Fatal {
				fatal = "fatal"
			}
			fmt.Fprintf(w, "    alarm #%d lines %d-%d %s %s ranks=%d headline@%d %s: %s\n",
				a.ID, a.FirstSeq, a.LastSeq, a.Kind, fatal, a.Ranks, a.HeadlineSeq, tp, clip(a.Headline, 160))
		}
		for _, b := range f.BlockRows {
			state := "MISSED"
			switch {
			case b.Found && b.HeadlineOK:
				state = "found, headline ok"
			case b.Found:
				state = "found, HEADLINE-MISS"
			}
			fmt.Fprintf(w, "    block lines %d-%d %s headlines=%v %s: %s\n", b.Start, b.End, b.Kind, b.HeadlineLines, state, clip(b.Title, 120))
		}
		if f.LabelReady != f.ReadySeq {
			fmt.Fprintf(w, "    ready line: labeled %d, got %d\n", f.LabelReady, f.ReadySeq)
		}
	}
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\r", "")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// parseInterspersed parses flags that may come before or after positional
// arguments (`eval DIR --json`), which the flag package alone does not allow.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}
