package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strconv"

	"launchwatch/internal/client"
	"launchwatch/internal/export"
)

// runExport implements `launchwatch export corpus DIR` and `launchwatch
// export alarms`: the team's decisions as labeled data, read through the
// server's API.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "corpus":
			return runExportCorpus(ctx, args[1:], stdout, stderr)
		case "alarms":
			return runExportAlarms(ctx, args[1:], stdout, stderr)
		case "-h", "-help", "--help", "help":
			exportUsage(stdout)
			return 0
		}
	}
	exportUsage(stderr)
	return 2
}

func exportUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: launchwatch export corpus DIR [--since D] [--server S]
       launchwatch export alarms [--since D] [--server S] [--state S] > alarms.jsonl

corpus  writes every reviewed launch (all its alarms decided, at least one)
        as NAME.log + NAME.json in the shared corpus format, so that
        'launchwatch eval DIR' scores the classifier on the team's decisions.
alarms  writes every decided alarm as one JSON object a line (the server's
        GET /api/v1/export/alarms.jsonl, all pages).

Run "launchwatch export corpus -h" for the flags.
`)
}

// exportFlags are the filters both export commands take.
type exportFlags struct {
	srv    *serverFlags
	since  string
	server string
	state  string
}

func newExportFlags(name string, stderr io.Writer, withState bool) (*flag.FlagSet, *exportFlags) {
	fs := flag.NewFlagSet("export "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &exportFlags{srv: addServerFlags(fs)}
	fs.StringVar(&f.since, "since", "", "only alarms decided since `D`: an RFC 3339 time, a date (2026-11-30) or an age (36h, 7d)")
	fs.StringVar(&f.server, "server", "", "only launches of server `family` S (sglang, vllm, ...)")
	if withState {
		fs.StringVar(&f.state, "state", "", "only alarms in `state` S: confirmed, dismissed or suppressed")
	}
	return fs, f
}

func (f *exportFlags) query() url.Values {
	q := url.Values{"limit": {"1000"}}
	for k, v := range map[string]string{"since": f.since, "server": f.server, "state": f.state} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// eachPage fetches every page of the export into w.
func eachPage(ctx context.Context, c *client.Client, q url.Values, w io.Writer) error {
	for {
		next, err := c.ExportAlarms(ctx, q, w)
		if err != nil || next == "" {
			return err
		}
		q.Set("cursor", next)
	}
}

// exitFor is the exit code of a failed request: 4 when the server could
// not be reached, 1 otherwise.
func exitFor(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "launchwatch:", err)
	var ue *client.UnreachableError
	if errors.As(err, &ue) {
		return exitUnreachable
	}
	return exitFailed
}

func runExportAlarms(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := newExportFlags("alarms", stderr, true)
	fs.Usage = usageWithExamples(stderr, fs, "launchwatch export alarms [flags] > alarms.jsonl",
		"Writes every decided alarm (confirmed, dismissed, or suppressed by a rule) as one JSON object a line:\nits launch, labels, kind, headline, lines and context lines, and who decided, when and why.",
		"  launchwatch export alarms --since 7d > week.jsonl\n  launchwatch export alarms --server vllm --state dismissed > false-alarms.jsonl\n")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	c, err := f.srv.client()
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch:", err)
		return 2
	}
	out := bufio.NewWriter(stdout)
	if err := eachPage(ctx, c, f.query(), out); err != nil {
		return exitFor(stderr, err)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(stderr, "launchwatch:", err)
		return exitFailed
	}
	return exitOK
}

func runExportCorpus(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, f := newExportFlags("corpus", stderr, false)
	fs.Usage = usageWithExamples(stderr, fs, "launchwatch export corpus DIR [flags]",
		`Writes every reviewed launch (each of its alarms decided, at least one) with a decision in range
as DIR/NAME.log + DIR/NAME.json in the shared corpus format: confirmed alarms are error blocks
headed by their headline line, the lines of dismissed and suppressed alarms are bait lines, and
readiness and the outcome come from the launch. Launches with open alarms are skipped (and named).
Then 'launchwatch eval DIR' scores the classifier against the team's own decisions.`,
		"  launchwatch export corpus ./ours --since 30d\n  launchwatch eval ./ours\n")
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
	dir := pos[0]
	c, err := f.srv.client()
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch:", err)
		return 2
	}
	keys, err := decidedLaunches(ctx, c, f.query())
	if err != nil {
		return exitFor(stderr, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(stderr, "launchwatch:", err)
		return exitFailed
	}
	names := map[string]bool{}
	written, skipped := 0, 0
	for _, key := range keys {
		name, ok, err := exportCase(ctx, c, key, dir, names)
		if errors.Is(err, errNoCase) {
			skipped++
			fmt.Fprintf(stderr, "skipped %s: %v\n", key, err)
			continue
		}
		if err != nil {
			return exitFor(stderr, fmt.Errorf("launch %s: %w", key, err))
		}
		if !ok {
			skipped++
			fmt.Fprintf(stderr, "skipped %s: it has open alarms\n", key)
			continue
		}
		written++
		fmt.Fprintf(stdout, "%s.log %s\n", name, key)
	}
	fmt.Fprintf(stdout, "wrote %d reviewed launches to %s (%d skipped)\n", written, dir, skipped)
	return exitOK
}

// decidedLaunches reads the export and returns the keys of the launches
// with a decided alarm, in the export's order.
func decidedLaunches(ctx context.Context, c *client.Client, q url.Values) ([]string, error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := eachPage(ctx, c, q, pw)
		pw.CloseWithError(err)
		done <- err
	}()
	var keys []string
	seen := map[string]bool{}
	dec := json.NewDecoder(pr)
	for {
		var r struct {
			Launch string `json:"launch"`
		}
		err := dec.Decode(&r)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			pr.CloseWithError(err)
			<-done
			return nil, err
		}
		if !seen[r.Launch] {
			seen[r.Launch] = true
			keys = append(keys, r.Launch)
		}
	}
	return keys, <-done
}

// errNoCase: the launch cannot be written as a case; it is skipped.
var errNoCase = errors.New("cannot be a case")

// exportCase writes one launch as a case; ok is false when it is not
// reviewed (open alarms). names holds the stems already used.
func exportCase(ctx context.Context, c *client.Client, key, dir string, names map[string]bool) (string, bool, error) {
	l, err := c.Launch(ctx, key)
	if err != nil {
		return "", false, err
	}
	facts := export.LaunchFacts{Key: l.Key, Server: l.Server, Status: l.Status, ReadySeq: l.ReadySeq, Ready: l.Times.Ready != nil}
	for _, a := range l.Alarms {
		facts.Alarms = append(facts.Alarms, export.AlarmFacts{No: a.No, Kind: a.Kind, Fatal: a.Fatal, State: a.State,
			Headline: a.Headline, HeadlineSeq: a.HeadlineSeq, FirstSeq: a.FirstSeq, LastSeq: a.LastSeq})
	}
	if !facts.Reviewed() {
		return "", false, nil
	}
	stored, err := c.AllLines(ctx, key)
	if err != nil {
		return "", false, err
	}
	lines := make([]export.LogLine, len(stored))
	for i, s := range stored {
		lines[i] = export.LogLine{Seq: s.Seq, Alarm: s.Alarm, Text: s.Text}
	}
	log, label, err := export.BuildCase(facts, lines, c.LaunchURL(key))
	if err != nil {
		// A launch whose lines no longer hold an alarm (retention dropped
		// them) is no case; the others still are.
		return "", false, fmt.Errorf("%w: %v", errNoCase, err)
	}
	name := export.CaseName(key)
	for i := 2; names[name]; i++ {
		name = export.CaseName(key) + "-" + strconv.Itoa(i)
	}
	names[name] = true
	js, err := json.MarshalIndent(label, "", "  ")
	if err != nil {
		return "", false, err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".log"), log, 0o644); err != nil {
		return "", false, err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".json"), append(js, '\n'), 0o644); err != nil {
		return "", false, err
	}
	return name, true, nil
}
