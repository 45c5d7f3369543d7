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
	"path/filepath"

	"launchwatch/internal/client"
	"launchwatch/internal/decode"
	"launchwatch/internal/shipper"
)

// runShip implements `launchwatch ship FILE --launch KEY`.
func runShip(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ship", flag.ContinueOnError)
	fs.SetOutput(stderr)
	srv := addServerFlags(fs)
	attrs := addAttrFlags(fs)
	launch := fs.String("launch", "", "launch `KEY` the lines belong to (required)")
	once := fs.Bool("once", false, "upload the file as it is now and exit, instead of following it")
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
again. --once says how many lines were sent and stored. When the server cannot be reached
the lines wait and are retried with backoff; a heartbeat every few seconds tells the
server the shipper is alive while the launch prints nothing.`,
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
	if !decode.LaunchKeyPattern.MatchString(*launch) {
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
	log := newCLILogger(stderr, *verbose)
	res, err := shipper.Follow(ctx, c, shipper.FollowConfig{
		Path: path, StatePath: *statePath, Once: *once, Log: log,
		Sender: shipper.SenderConfig{Launch: *launch, Attrs: attrs.values(), Log: log},
	})
	if err != nil {
		var ae *client.APIError
		if errors.As(err, &ae) {
			fmt.Fprintf(stderr, "launchwatch ship: the server refused a batch: %s (the lines stay in the file; fix and run again)\n", ae.Message)
		} else {
			fmt.Fprintln(stderr, "launchwatch ship:", err)
		}
		return exitFailed
	}
	if *once {
		fmt.Fprintf(stdout, "shipped %s to %s: %d lines sent, %d stored (%d the server held already)\n",
			pos[0], c.LaunchURL(*launch), res.Sent, res.Stored, res.Sent-res.Stored)
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
