package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"launchwatch/internal/client"
	"launchwatch/internal/spool"
)

// runFlush implements `launchwatch flush`: deliver the spool.
func runFlush(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("flush", flag.ContinueOnError)
	fs.SetOutput(stderr)
	only := fs.String("url", "", "deliver only what is spooled for the server at this `URL` (default: every server, each what was meant for it)")
	token := fs.String("token", os.Getenv("LAUNCHWATCH_TOKEN"), "API `token` sent as a bearer token [LAUNCHWATCH_TOKEN]")
	retryFor := fs.Duration("retry-for", time.Minute, "how long to retry a server that does not answer before giving up on it")
	sp := addSpoolFlags(fs)
	fs.Usage = usageWithExamples(stderr, fs, "launchwatch flush [flags]",
		`Sends what launchwatch run and ship could not deliver (lines with their seqs, health
results, exit reports) from the spool to the server each was meant for, oldest first,
and removes each launch once it arrived. The server stores a line once however often
it is sent, so a flush cut short, or run twice, loses and doubles nothing. Exits 0
when everything arrived (or nothing was spooled), 4 when a server could not be reached
within --retry-for, 1 when a server refused something (what is left stays spooled).
The next run or ship to a server flushes what is spooled for it too.`,
		`  launchwatch flush
  launchwatch flush --url http://launchwatch:8080 --retry-for 10m
`)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUnreachable
	}
	if len(pos) != 0 || *retryFor <= 0 {
		fmt.Fprintln(stderr, "launchwatch flush: takes no arguments and a positive --retry-for (see --help)")
		return exitUnreachable
	}
	filter := ""
	if *only != "" {
		c, err := client.New(*only, *token)
		if err != nil {
			fmt.Fprintln(stderr, "launchwatch flush:", err)
			return exitUnreachable
		}
		filter = c.BaseURL()
	}
	dir := sp.path()
	entries, err := spool.List(dir)
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch flush:", err)
		return exitFailed
	}
	var servers []string
	seen := map[string]bool{}
	for _, e := range entries {
		if (filter == "" || e.Server == filter) && !seen[e.Server] {
			seen[e.Server] = true
			servers = append(servers, e.Server)
		}
	}
	if len(servers) == 0 {
		fmt.Fprintf(stdout, "nothing spooled in %s\n", dir)
		return exitOK
	}
	code := exitOK
	for _, server := range servers {
		c, err := client.New(server, *token)
		if err != nil {
			fmt.Fprintf(stderr, "launchwatch flush: spooled for %q: %v\n", server, err)
			code = max(code, exitFailed)
			continue
		}
		reports, err := spool.Flush(ctx, c, dir, spool.DeliverConfig{RetryFor: *retryFor})
		for _, r := range reports {
			what := fmt.Sprintf("%d lines (%d stored, %d the server held already)", r.Lines, r.Stored, r.Lines-r.Stored)
			if r.Resent > 0 {
				what += fmt.Sprintf(", %d sent again that the server had lost", r.Resent)
			}
			if r.Health > 0 {
				what += fmt.Sprintf(", %d health result(s)", r.Health)
			}
			if r.Exit {
				what += ", the exit report"
			}
			state := "delivered"
			if !r.Done {
				state = "partly delivered"
			}
			fmt.Fprintf(stdout, "%s launch %s to %s: %s\n", state, r.Launch, server, what)
		}
		if err != nil {
			left := 0
			var lines int64
			rest, _ := spool.List(dir)
			for _, e := range rest {
				if e.Server == server {
					left++
					lines += e.Pending()
				}
			}
			fmt.Fprintf(stderr, "launchwatch flush: %s: %v; %d spooled launch(es) with %d lines still wait for it\n", server, err, left, lines)
			if client.Retryable(err) || errors.Is(err, spool.ErrBusy) || ctx.Err() != nil {
				code = max(code, exitUnreachable)
			} else {
				code = max(code, exitFailed)
			}
		}
	}
	return code
}
