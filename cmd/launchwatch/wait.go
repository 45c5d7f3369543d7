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
	"time"

	"launchwatch/internal/client"
)

// Exit codes of wait: they never confuse "not ready" with "cannot see".
const (
	waitReady       = 0
	waitCrashed     = 1
	waitTimeout     = 2
	waitSilent      = 3
	waitUnreachable = 4
)

// runWait implements `launchwatch wait KEY`.
func runWait(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wait", flag.ContinueOnError)
	fs.SetOutput(stderr)
	srv := addServerFlags(fs)
	timeout := fs.Duration("timeout", 0, "give up after this `duration` with exit code 2, or 4 when the server cannot be reached then (0: wait as long as it takes)")
	asJSON := fs.Bool("json", false, "print each change and the result as JSON lines")
	giveUp := fs.Duration("give-up-after", 30*time.Second, "how long to keep trying to reach the server (at start or after a drop) before exiting 4")
	failOn := fs.String("fail-on", "alarm", "`when` to exit 1: alarm (an open fatal alarm, the classifier's suspicion), confirmed (only a crash a person confirmed or the process reported) or suppressed (as alarm, and also a fatal-looking alarm a suppression rule hid)")
	fs.Usage = usageWithExamples(stderr, fs, "launchwatch wait KEY [flags]",
		`Follows launch KEY live until it is ready or dead, printing its phases and shard
progress, and exits with a code that says which:
  0  ready
  1  crashed, or an open fatal alarm (the headline and the launch's URL are printed);
     with --fail-on suppressed also a fatal-looking alarm a suppression rule hid
     (wait always prints those when it ends)
  2  timeout (--timeout) while still starting or loading, the server in sight
  3  silent: no line and no heartbeat for a while, so nobody can tell (not "not ready")
  4  the server cannot be reached (no answer within --timeout, lost when it ends or
     for --give-up-after), or bad usage
An exited launch is 1, ready before or not. READY gives the time to ready on the
launch's clock; --json gives wait's code as wait_exit, the process's as exit_code.
A launch that does not exist yet is waited for; a dropped connection is resumed.`,
		`  launchwatch run --launch llama-0412 --server sglang -- python -m sglang.launch_server ... &
  launchwatch wait llama-0412 --timeout 20m && ./run-benchmark.sh
  launchwatch wait llama-0412 --json --fail-on confirmed
`)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return waitReady
		}
		return waitUnreachable
	}
	if len(pos) != 1 || (*failOn != "alarm" && *failOn != "confirmed" && *failOn != "suppressed") || *timeout < 0 || *giveUp <= 0 {
		fmt.Fprintln(stderr, "launchwatch wait: want one launch KEY, --fail-on alarm|confirmed|suppressed and a positive --timeout (see --help)")
		return waitUnreachable
	}
	c, err := srv.client()
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch wait:", err)
		return waitUnreachable
	}
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	w := &waiter{c: c, key: pos[0], out: stdout, json: *asJSON, failOnConfirmed: *failOn == "confirmed",
		failOnSuppressed: *failOn == "suppressed", tty: isTerminal(stdout), start: time.Now(), giveUp: *giveUp}
	return w.run(ctx, stderr)
}

// waiter follows one launch and decides.
type waiter struct {
	c               *client.Client
	key             string
	out             io.Writer
	json            bool
	failOnConfirmed bool
	// failOnSuppressed also fails on a settled fatal-looking alarm that a
	// suppression rule hid (--fail-on suppressed).
	failOnSuppressed bool
	tty              bool
	start            time.Time
	giveUp           time.Duration // how long the server may be unreachable

	lastLine   string // the last progress line printed
	announced  bool   // "waiting for the launch to appear" printed
	lastStatus *client.Launch
}

func (w *waiter) run(ctx context.Context, stderr io.Writer) int {
	var unreachableSince time.Time
	answered := false // the server answered at least once
	var lastErr error
	for {
		live, err := w.c.Follow(ctx, w.key, -1)
		if err == nil {
			answered, unreachableSince = true, time.Time{}
			if code, done := w.follow(live); done {
				live.Close()
				return code
			}
			live.Close()
			lastErr = errors.New("the live connection dropped")
		} else {
			lastErr = err
			var ae *client.APIError
			if errors.As(err, &ae) && !ae.Temporary() {
				fmt.Fprintln(stderr, "launchwatch wait:", err)
				return w.unreachable()
			}
		}
		if ctx.Err() != nil {
			if !unreachableSince.IsZero() || !answered {
				// The timeout came while the server could not be seen:
				// that is no "still loading".
				return w.lost(ctx, stderr, answered, unreachableSince, lastErr)
			}
			return w.timedOut(ctx, stderr)
		}
		if unreachableSince.IsZero() {
			unreachableSince = time.Now()
		} else if time.Since(unreachableSince) > w.giveUp {
			fmt.Fprintf(stderr, "launchwatch wait: cannot reach the Launchwatch server at %s for %s (this machine's clock): %v\n",
				w.c.BaseURL(), w.giveUp, lastErr)
			return w.unreachable()
		}
		select {
		case <-ctx.Done():
			return w.lost(ctx, stderr, answered, unreachableSince, lastErr)
		case <-time.After(time.Second):
		}
	}
}

// lost ends a wait whose timeout (or interruption) came while the server
// could not be reached.
func (w *waiter) lost(ctx context.Context, stderr io.Writer, answered bool, since time.Time, err error) int {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return 130 // interrupted (Ctrl-C): nothing was decided, as a shell reports it
	}
	if !answered {
		fmt.Fprintf(stderr, "launchwatch wait: cannot reach the Launchwatch server at %s: no answer within --timeout %s (this machine's clock) (%v)\n",
			w.c.BaseURL(), time.Since(w.start).Round(time.Second), err)
	} else {
		fmt.Fprintf(stderr, "launchwatch wait: lost the Launchwatch server at %s %s before the timeout (this machine's clock) (%v); last seen: %s\n",
			w.c.BaseURL(), time.Since(since).Round(time.Second), err, w.lastSeen())
	}
	return w.unreachable()
}

// unreachable is exit code 4, said in JSON too with --json.
func (w *waiter) unreachable() int {
	if w.json {
		w.printJSON(map[string]any{"launch": w.key, "result": "unreachable", "wait_exit": waitUnreachable,
			"status": w.lastSeen(), "url": w.c.LaunchURL(w.key)})
	}
	return waitUnreachable
}

// lastSeen is the launch's last status seen, with its phase.
func (w *waiter) lastSeen() string {
	if w.lastStatus == nil {
		return "never seen"
	}
	last := w.lastStatus.Status
	if w.lastStatus.Phase != "" {
		last += " (" + w.lastStatus.Phase + ")"
	}
	return last
}

// follow reads the live stream until a verdict (done) or a drop.
func (w *waiter) follow(live *client.Live) (code int, done bool) {
	for {
		m, err := live.Next()
		if err != nil {
			return 0, false
		}
		switch m.Type {
		case "absent":
			if !w.announced && !w.json {
				fmt.Fprintf(w.out, "waiting for launch %s to appear...\n", w.key)
			}
			w.announced = true
		case "launch":
			if m.Launch == nil {
				continue
			}
			w.lastStatus = m.Launch
			if code, done := w.judge(m.Launch); done {
				return code, true
			}
		}
	}
}

// judge prints a launch's state and decides whether waiting is over.
func (w *waiter) judge(l *client.Launch) (int, bool) {
	switch {
	case l.Status == "ready":
		return w.finish(l, waitReady, "READY", readyDetail(l))
	case l.Status == "crashed":
		return w.finish(l, waitCrashed, "CRASHED", crashReason(l))
	case l.Status == "exited" && l.Times.Ready != nil:
		return w.finish(l, waitCrashed, "EXITED", "the process was ready, and has ended since")
	case l.Status == "exited":
		return w.finish(l, waitCrashed, "EXITED", "the process ended before it was ready")
	case w.failOnSuppressed && settledSuppressed(l) != nil:
		a := settledSuppressed(l)
		return w.finish(l, waitCrashed, "SUPPRESSED", fmt.Sprintf("%s (a fatal-looking alarm suppressed by rule #%d; --fail-on suppressed)", a.Headline, a.RuleID))
	case l.Status == "alarm" && !w.failOnConfirmed:
		return w.finish(l, waitCrashed, "ALARM", crashReason(l)+" (unconfirmed; --fail-on confirmed waits for a person)")
	case l.Status == "silent":
		return w.finish(l, waitSilent, "SILENT", "no line and no heartbeat for a while: the launch cannot be seen (not the same as not ready)")
	}
	w.progress(l)
	return 0, false
}

func (w *waiter) progress(l *client.Launch) {
	line := l.Status
	if l.Phase != "" {
		line += ": " + l.Phase
	}
	if p := l.Progress; p != nil && p.Total > 0 {
		line += fmt.Sprintf(" %d/%d %s", p.Done, p.Total, bar(p.Done, p.Total, 24))
	}
	if line == w.lastLine {
		return
	}
	w.lastLine = line
	switch {
	case w.json:
		w.printJSON(map[string]any{"launch": w.key, "status": l.Status, "phase": l.Phase, "progress": l.Progress})
	case w.tty:
		fmt.Fprintf(w.out, "\r\033[K%s %s", w.key, line)
	default:
		fmt.Fprintf(w.out, "%s %s\n", w.key, line)
	}
}

func (w *waiter) finish(l *client.Launch, code int, verdict, detail string) (int, bool) {
	url := w.c.LaunchURL(w.key)
	if w.json {
		m := map[string]any{"launch": w.key, "result": strings.ToLower(verdict), "wait_exit": code,
			"exit_code": l.ExitCode, "exit_signal": l.Signal,
			"status": l.Status, "detail": detail, "url": url, "suppressed_fatal": suppressedList(l)}
		if d, ok := timeToReady(l); ok {
			m["time_to_ready"] = d.Seconds()
		}
		w.printJSON(m)
		return code, true
	}
	if w.tty && w.lastLine != "" {
		fmt.Fprintln(w.out)
	}
	fmt.Fprintf(w.out, "%s %s: %s\n  %s\n", verdict, w.key, detail, url)
	w.printSuppressed(l)
	return code, true
}

func (w *waiter) timedOut(ctx context.Context, stderr io.Writer) int {
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return 130 // interrupted (Ctrl-C): nothing was decided, as a shell reports it
	}
	last := w.lastSeen()
	if w.json {
		w.printJSON(map[string]any{"launch": w.key, "result": "timeout", "wait_exit": waitTimeout, "status": last,
			"suppressed_fatal": suppressedList(w.lastStatus)})
	} else {
		if w.tty && w.lastLine != "" {
			fmt.Fprintln(w.out)
		}
		fmt.Fprintf(w.out, "TIMEOUT %s: still %s after waiting %s (this machine's clock)\n", w.key, last, time.Since(w.start).Round(time.Second))
		w.printSuppressed(w.lastStatus)
	}
	return waitTimeout
}

// timeToReady is the launch's time to ready on its own clock: its ready
// time less its first line's, as the server reports them.
func timeToReady(l *client.Launch) (time.Duration, bool) {
	if l.Times.Ready == nil || l.Times.FirstLine == nil {
		return 0, false
	}
	return max(l.Times.Ready.Sub(*l.Times.FirstLine), 0), true
}

func readyDetail(l *client.Launch) string {
	if d, ok := timeToReady(l); ok {
		return fmt.Sprintf("ready %s after its first line (on the launch's clock)", d.Round(time.Second))
	}
	return "ready (by a health probe; the server gives no ready time on the launch's clock)"
}

// printSuppressed says, when wait ends, which fatal-looking alarms rules
// hid: a rule may be right, but the engineer waiting should know.
func (w *waiter) printSuppressed(l *client.Launch) {
	list := suppressedList(l)
	if len(list) == 0 {
		return
	}
	fmt.Fprintf(w.out, "  %d fatal-looking alarm(s) suppressed by rules (--fail-on suppressed fails on them):\n", len(list))
	for _, a := range list {
		fmt.Fprintf(w.out, "    alarm %d, suppressed by rule #%d: %s\n", a.No, a.RuleID, a.Headline)
	}
}

// suppressedList is l's suppressed fatal-looking alarms, never nil.
func suppressedList(l *client.Launch) []client.SuppressedFatal {
	if l == nil || l.SuppressedFatal == nil {
		return []client.SuppressedFatal{}
	}
	return l.SuppressedFatal
}

// settledSuppressed is l's first suppressed fatal-looking alarm whose event
// settled (one still settling may be withdrawn by a retry), nil if none.
func settledSuppressed(l *client.Launch) *client.SuppressedFatal {
	for i := range l.SuppressedFatal {
		if l.SuppressedFatal[i].Settled {
			return &l.SuppressedFatal[i]
		}
	}
	return nil
}

func (w *waiter) printJSON(v any) {
	data, _ := json.Marshal(v)
	fmt.Fprintln(w.out, string(data))
}

// crashReason is the headline an engineer would quote: the first settled
// fatal alarm's (the one that made the status alarm; the server reads the
// alarms after the status, so it is there and its headline is final), else
// the first fatal alarm's, else what the process reported.
func crashReason(l *client.Launch) string {
	var unsettled string
	for _, a := range l.Alarms {
		if a.Fatal && (a.State == "open" || a.State == "confirmed") {
			if a.Settled {
				return a.Headline
			}
			if unsettled == "" {
				unsettled = a.Headline
			}
		}
	}
	if unsettled != "" {
		return unsettled
	}
	switch {
	case l.Signal != nil:
		return "killed by " + *l.Signal
	case l.ExitCode != nil:
		return fmt.Sprintf("exit code %d", *l.ExitCode)
	}
	return "crashed"
}

func bar(done, total, width int) string {
	n := min(max(done*width/total, 0), width)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
