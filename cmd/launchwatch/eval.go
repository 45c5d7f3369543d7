package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"launchwatch/internal/eval"
)

// runEval implements `launchwatch eval [flags] DIR`: the classifier scored
// in process, a grep baseline (--baseline-grep), or a running server
// through its API (--url).
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print machine-readable JSON instead of text")
	verbose := fs.Bool("v", false, "show every alarm and labeled block")
	baseline := fs.String("baseline-grep", "", "score a case-insensitive grep `REGEX` instead of the classifier")
	detect := fs.Bool("detect", false, "ignore the labeled server family; let the classifier detect it")
	seed := fs.Uint64("seed", 1, "seed of the random batch sizes (file i uses seed+i)")
	envelope := fs.String("envelope", "", "wrap every log in a collector `ENVELOPE` first: "+strings.Join(eval.Envelopes, ", "))
	serverURL := fs.String("url", "", "score the running server at `URL` through its API instead of in process")
	token := fs.String("token", os.Getenv("LAUNCHWATCH_TOKEN"), "API `token` for --url, sent as a bearer token [LAUNCHWATCH_TOKEN]")
	fs.Usage = func() { evalUsage(fs, stderr) }
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
	if *baseline != "" && *serverURL != "" {
		fmt.Fprintln(stderr, "launchwatch: --baseline-grep scores a grep, not a server: drop --url")
		return 2
	}
	cases, err := eval.LoadDir(pos[0])
	if err == nil && *envelope != "" {
		cases, err = eval.WrapCases(*envelope, cases)
	}
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch:", err)
		return 1
	}
	opt := eval.Options{Detect: *detect, Seed: *seed}
	var files []eval.FileScore
	switch {
	case *baseline != "":
		files, err = eval.Baseline(cases, *baseline, opt)
	case *serverURL != "":
		files, err = evalServer(ctx, *serverURL, *token, cases, opt, *envelope)
	default:
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
			URL      string           `json:"url,omitempty"`
			Envelope string           `json:"envelope,omitempty"`
			Files    []eval.FileScore `json:"files"`
			Totals   eval.Totals      `json:"totals"`
			Summary  string           `json:"summary"`
		}{*baseline, *serverURL, *envelope, files, tot, tot.Line()}); err != nil {
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

func evalUsage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `Usage: launchwatch eval [flags] DIR
       launchwatch eval --baseline-grep REGEX DIR
       launchwatch eval --url URL DIR

Scores the classifier on a labeled corpus (NAME.log + NAME.json) as design.md
("Scoring a classifier") defines it, and prints a row per file, then:
  precision=P recall=R headline=H outcome=K/N verdict=V/N false_alarm_launches=A/B transient_false_alarms=T/B missed_crashes=C/D

Each file is fed in seeded random batches of 1..40 lines, with the classifier
state saved and restored between batches; after the last batch the stream
ends (every event is settled).
  precision  alarms whose headline line lies in a labeled block / all alarms
             (withdrawn alarms excluded)
  recall     blocks with at least one line that belongs to an alarm (line
             membership, not an alarm's first..last range) / all blocks
  headline   found blocks where an alarm touching the block quotes one of its
             headline_lines / found blocks
  outcome    the final status as the status machine decides it (an open fatal
             alarm outranks readiness): alarm or crashed is crashed, or
             ready_then_crashed when the earliest fatal alarm starts after the
             ready line; ready is ready; anything else is loading
  verdict    the first decisive status after a batch (ready, or alarm/crashed)
             vs the label: what 'launchwatch wait' would have answered. The
             status after a batch is what a client reading the server then is
             told (settled fatal alarms count; one still settling makes the
             client read the launch, which settles the stream as it stands);
             the status once the stream ended is the outcome only. A healthy
             file (ready or loading) that showed alarm at any moment is a
             transient false alarm.
The file is also fed line by line and in other random batches; the command
fails if the runs disagree.

--envelope wraps every line as a collector would (labels unchanged).
--url scores a running server instead, through its API, as
../shared/tools/score_api.py does: each file is POSTed as numbered text batches
to a fresh launch, the status read after each batch, then the launch's alarms
and lines read back.

`)
	fs.PrintDefaults()
}

func printText(w io.Writer, files []eval.FileScore, verbose bool) {
	for _, f := range files {
		var marks []string
		if !f.OK() {
			marks = append(marks, "OUTCOME-MISS")
		}
		if !f.VerdictOK {
			marks = append(marks, "VERDICT-MISS")
		}
		if f.Transient {
			marks = append(marks, "TRANSIENT-ALARM")
		}
		if f.TruePos < f.Alarms {
			marks = append(marks, "FALSE-ALARM")
		}
		if f.Found < f.Blocks {
			marks = append(marks, "BLOCK-MISS")
		}
		if f.HeadlineOK < f.Found {
			marks = append(marks, "HEADLINE-MISS")
		}
		if len(marks) == 0 {
			marks = append(marks, "ok")
		}
		first := f.First
		if first == "" {
			first = "-"
		}
		fmt.Fprintf(w, "%-52s %-8s label=%-18s got=%-18s first=%-5s alarms=%d tp=%d blocks=%d/%d headline=%d/%d %s\n",
			f.Name, f.Server, f.Label, f.Outcome, first, f.Alarms, f.TruePos, f.Found, f.Blocks, f.HeadlineOK, f.Found, strings.Join(marks, " "))
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
			span := "no lines"
			if n := len(a.Lines); n > 0 {
				span = fmt.Sprintf("lines %d-%d (%d lines)", a.Lines[0], a.Lines[n-1], n)
			}
			fmt.Fprintf(w, "    alarm #%d %s %s %s %s ranks=%d headline@%d %s: %s\n",
				a.ID, span, a.Kind, fatal, a.State, a.Ranks, a.HeadlineSeq, tp, clip(a.Headline, 160))
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
