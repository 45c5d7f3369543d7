package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"launchwatch/internal/client"
	"launchwatch/internal/launchid"
	"launchwatch/internal/shipper"
	"launchwatch/internal/spool"
)

// runShip implements `launchwatch ship FILE --launch KEY`.
func runShip(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ship", flag.ContinueOnError)
	fs.SetOutput(stderr)
	srv := addServerFlags(fs)
	attrs := addAttrFlags(fs)
	launch := fs.String("launch", "", "launch `KEY` the lines belong to (required)")
	once := fs.Bool("once", false, "upload the file as it is now and exit, instead of following it")
	retryFor := fs.Duration("retry-for", time.Minute, "with --once, how long to retry while the server does not answer before giving up with exit code 4 (following retries as long as it runs)")
	sp := addSpoolFlags(fs)
	statePath := fs.String("state-file", "", "where to remember what the server has acknowledged (default: one per server, launch and file, in the user cache directory)")
	verbose := fs.Bool("v", false, "log every batch")
	fs.Usage = usageWithExamples(stderr, fs, "launchwatch ship FILE --launch KEY [flags]",
		`Ships a log file to Launchwatch like "tail -F": everything already in it, then every
line appended, across rotation and truncation. Each line's number is its seq, so a
restart (after Ctrl-C, a crash or a reboot) resumes where the server's acknowledgement
stopped: nothing is lost, nothing is stored twice. A file is known by its inode and its
first bytes: a truncated file, even one written again past its old size, is shipped from
its start under the next seqs, like a rotated one. At start the server is asked which
lines it holds: one that lacks some (another server, a reset one) gets them from the file
again. An acknowledgement is no proof: a server whose database is restored from an older
copy, or fails over to a standby that lagged, loses lines it acknowledged. So ship asks
again what the server holds after a failed request, when the server's database history
changes (it names it with every answer), and, with --once, before it exits 0; what the
server lost is sent again from the file. --once says how many lines were sent and stored,
and exits 0 only when the server holds every line of the file. When the server cannot be reached
the lines wait and are retried with backoff; a heartbeat every few seconds tells the
server the shipper is alive while the launch prints nothing. --once gives up after
--retry-for without an answer (exit code 4, saying what was sent and what was not);
following retries until stopped, and lines read but not acknowledged when it stops go
to the spool for "launchwatch flush" (the file still has them too). A signal ends ship
with 128+N (130 for Ctrl-C, 143 for SIGTERM).`,
		`  launchwatch ship /var/log/sglang.log --launch llama70b-tp8-0412 --server sglang
  launchwatch ship server.log --launch demo --once --url http://launchwatch:8080
  launchwatch ship server.log --launch demo --once --tz Europe/Berlin   # the log prints local time
`)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUnreachable
	}
	if len(pos) != 1 || *launch == "" {
		fmt.Fprintln(stderr, "launchwatch ship: want one FILE and --launch KEY (see --help)")
		return exitUnreachable
	}
	if !launchid.KeyPattern.MatchString(*launch) {
		fmt.Fprintf(stderr, "launchwatch ship: launch key %q is not valid: use 1 to 200 letters, digits and . _ : @ + = -\n", *launch)
		return exitUnreachable
	}
	c, err := srv.client()
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch ship:", err)
		return exitUnreachable
	}
	path, err := filepath.Abs(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch ship:", err)
		return exitUnreachable
	}
	if *statePath == "" {
		if *statePath, err = defaultStatePath(c.BaseURL(), *launch, path); err != nil {
			fmt.Fprintln(stderr, "launchwatch ship:", err)
			return exitFailed
		}
	}
	if *retryFor <= 0 {
		fmt.Fprintln(stderr, "launchwatch ship: --retry-for must be positive")
		return exitUnreachable
	}
	// Which signal ended it, for the exit code.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	log := newCLILogger(stderr, *verbose)
	// What earlier runs spooled for this server goes too, beside the file.
	flushed := make(chan error, 1)
	go func() {
		cfg := spool.DeliverConfig{Log: log}
		if *once {
			cfg.RetryFor = *retryFor
		}
		_, err := spool.Flush(ctx, c, sp.path(), cfg)
		flushed <- err
	}()
	cfg := shipper.FollowConfig{
		Path: path, StatePath: *statePath, Once: *once, Log: log,
		Sender: shipper.SenderConfig{Launch: *launch, Attrs: attrs.values(), Log: log},
	}
	if *once {
		cfg.Sender.RetryFor = *retryFor
	}
	res, err := shipper.Follow(ctx, c, cfg)
	if ferr := <-flushed; ferr != nil && ctx.Err() == nil {
		fmt.Fprintln(stderr, "launchwatch ship: warning: the spool is not delivered yet (`launchwatch flush` retries):", ferr)
	}
	var gaveUp *shipper.GaveUpError
	var ae *client.APIError
	switch {
	case errors.As(err, &gaveUp):
		fmt.Fprintf(stderr, "launchwatch ship: %v\n", err)
		fmt.Fprintf(stderr, "launchwatch ship: %s to %s: %d lines sent and acknowledged (%d stored), through line %d; "+
			"%d lines not sent (after line %d): run the same command again to send them\n",
			pos[0], c.LaunchURL(*launch), res.Sent, res.Stored, res.LastSeq, res.Behind, res.LastSeq)
		return exitUnreachable
	case errors.As(err, &ae):
		fmt.Fprintf(stderr, "launchwatch ship: the server refused a batch: %s (the lines stay in the file; fix and run again)\n", ae.Message)
		return exitFailed
	case err != nil:
		fmt.Fprintln(stderr, "launchwatch ship:", err)
		return exitFailed
	}
	if ctx.Err() != nil {
		// Stopped by a signal: what was read and not acknowledged waits in
		// the spool too (the file may be rotated away before the next run).
		if !*once && len(res.Unsent) > 0 {
			dir := sp.path()
			e, err := spool.Write(dir, sp.maxBytes, spool.Entry{Server: c.BaseURL(), Launch: *launch, Attrs: attrs.values()},
				res.Unsent, func(msg string) { fmt.Fprintln(stderr, "launchwatch ship: warning:", msg) })
			if err != nil {
				fmt.Fprintln(stderr, "launchwatch ship: spooling the lines not acknowledged:", err)
			} else {
				spoolNote(stderr, "ship", e, c.BaseURL(), dir)
			}
		}
		fmt.Fprintf(stderr, "launchwatch ship: stopped: %d lines sent and acknowledged, through line %d; %d lines of %s after it not acknowledged\n",
			res.Sent, res.LastSeq, res.Behind, pos[0])
		select {
		case sig := <-sigs:
			return 128 + int(sig.(syscall.Signal))
		default:
			return 130
		}
	}
	if *once {
		again := ""
		if res.Resent > 0 {
			again = fmt.Sprintf("; %d sent again that the server had lost after acknowledging them", res.Resent)
		}
		fmt.Fprintf(stdout, "shipped %s to %s: %d lines sent, %d stored (%d the server held already)%s; the server holds every line of the file\n",
			pos[0], c.LaunchURL(*launch), res.Sent, res.Stored, res.Sent-res.Stored, again)
	}
	return exitOK
}

// defaultStatePath is a state file per server, launch and file in the
// user's cache directory, so following the same file for the same launch
// to the same server resumes, and shipping it to another server does not
// take that server's progress for this one's.
func defaultStatePath(server, launch, path string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "launchwatch")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(server + "\x00" + path))
	return filepath.Join(dir, fmt.Sprintf("ship-%s-%s.json", launch, hex.EncodeToString(sum[:6]))), nil
}
