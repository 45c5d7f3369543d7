package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"launchwatch/internal/client"
	"launchwatch/internal/export"
)

// reclass is the command's name; reclassifyCommand is its entry in
// commands.
const reclass = "reclassify"

var reclassifyCommand = command{summary: "judge stored launches again with the current classifier and taught signatures",
	run: runReclassify}

// runReclassify is `launchwatch reclassify`: it asks the server to judge
// stored launches again with the current classifier, packs, taught
// signatures and rules (POST /api/v1/launches/{key}/reclassify), newest
// first, one launch at a time, and says what changed for each.
func runReclassify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("reclassify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	srv := addServerFlags(fs)
	var since, server string
	var dryRun bool
	fs.StringVar(&since, "since", "", "only launches created since `D`: an RFC 3339 time, a date (2026-11-30) or an age (36h, 7d)")
	fs.StringVar(&server, "server", "", "only launches of this server `kind`")
	fs.BoolVar(&dryRun, "dry-run", false, "say what would change, change nothing")
	fs.Usage = usageWithExamples(stderr, fs, "launchwatch reclassify [KEY ...] [flags]",
		`Judges stored launches again with the server's current classifier, packs, taught signatures and
rules, newest first (or the launches named), and prints what changed for each: status before → after,
alarms added, removed or changed. People's decisions on alarms that persist are kept; those on alarms
that vanish stay in the audit log. Progress goes to stderr. Exit 0 when every launch was done, 1 when
one failed, 4 when the server cannot be reached.`,
		"  launchwatch reclassify --since 7d --server acme-serve --dry-run\n  launchwatch reclassify --since 2026-11-30\n  launchwatch reclassify run-42\n")
	keys, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	from, err := export.ParseSince(since, time.Now())
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch:", err)
		return 2
	}
	c, err := srv.client()
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch:", err)
		return 2
	}
	if len(keys) == 0 {
		if keys, err = launchesSince(ctx, c, server, from); err != nil {
			return exitFor(stderr, err)
		}
	}
	verb := "reclassified"
	if dryRun {
		verb = "would change"
	}
	changed, failed := 0, 0
	for i, key := range keys {
		d, err := c.Reclassify(ctx, key, dryRun)
		var ue *client.UnreachableError
		switch {
		case errors.As(err, &ue) || ctx.Err() != nil:
			return exitFor(stderr, err)
		case err != nil:
			failed++
			fmt.Fprintf(stderr, "[%d/%d] %s: %v\n", i+1, len(keys), key, err)
			continue
		}
		what := describeDifference(d)
		if what != "" {
			changed++
			fmt.Fprintf(stdout, "%s %s\n", key, what)
		}
		if what == "" {
			what = "unchanged"
		}
		fmt.Fprintf(stderr, "[%d/%d] %s: %s\n", i+1, len(keys), key, what)
	}
	fmt.Fprintf(stdout, "%d launches read, %d %s, %d failed\n", len(keys), changed, verb, failed)
	if failed > 0 {
		return exitFailed
	}
	return exitOK
}

// launchesSince lists the keys of the launches created at or after from
// (zero: all), of server when given, newest first.
func launchesSince(ctx context.Context, c *client.Client, server string, from time.Time) ([]string, error) {
	q := url.Values{}
	if server != "" {
		q.Set("server", server)
	}
	var keys []string
	after := ""
	for {
		page, next, err := c.ListLaunches(ctx, q, after, 500)
		if err != nil {
			return nil, err
		}
		for _, l := range page {
			if l.Times.Created.Before(from) {
				return keys, nil // newest first: the rest are older
			}
			keys = append(keys, l.Key)
		}
		if next == "" {
			return keys, nil
		}
		after = next
	}
}

// describeDifference says in one line what a reclassification changes,
// "" when nothing a person sees.
func describeDifference(d client.Difference) string {
	var parts []string
	if d.From != d.To {
		parts = append(parts, d.From+" → "+d.To)
	}
	if n := len(d.Added); n > 0 {
		parts = append(parts, fmt.Sprintf("%d alarm(s) added", n))
	}
	if n := len(d.Removed); n > 0 {
		parts = append(parts, fmt.Sprintf("%d removed", n))
	}
	if n := len(d.Changed); n > 0 {
		parts = append(parts, fmt.Sprintf("%d changed", n))
	}
	if len(parts) == 0 && d.LinesChanged > 0 {
		parts = append(parts, fmt.Sprintf("%d line verdict(s) changed", d.LinesChanged))
	}
	if len(parts) > 0 && d.DecisionsKept > 0 {
		parts = append(parts, fmt.Sprintf("%d decision(s) kept", d.DecisionsKept))
	}
	if d.DecisionsDropped > 0 {
		parts = append(parts, fmt.Sprintf("%d decision(s) on vanished alarms (in the audit log)", d.DecisionsDropped))
	}
	return strings.Join(parts, ", ")
}
