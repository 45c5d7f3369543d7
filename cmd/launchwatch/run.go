package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"launchwatch/internal/client"
	"launchwatch/internal/launchid"
	"launchwatch/internal/shipper"
	"launchwatch/internal/spool"
)

// runRun implements `launchwatch run --launch KEY [--health-url URL] -- CMD ARGS...`.
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	srv := addServerFlags(fs)
	attrs := addAttrFlags(fs)
	launch := fs.String("launch", "", "launch `KEY` (required)")
	probeFlag := fs.String("probe", probeAuto, "what to probe for readiness: `auto` (the ports the process tree listens on, or the ones its command line names or its log announces, on 127.0.0.1), off, or a URL (e.g. http://127.0.0.1:30000/health); the first passing probe makes the launch ready")
	healthURL := fs.String("health-url", "", "probe this `URL`: the same as --probe URL")
	healthEvery := fs.Duration("health-every", 2*time.Second, "how often to probe")
	drain := fs.Duration("drain-timeout", 10*time.Second, "after CMD ends, how long to try to deliver its last lines and exit report before spooling the rest and exiting")
	sp := addSpoolFlags(fs)
	verbose := fs.Bool("v", false, "log every batch")
	fs.Usage = usageWithExamples(stderr, fs, "launchwatch run --launch KEY [flags] -- CMD [ARGS...]",
		`Starts CMD, passes its stdout and stderr through to this terminal and ships both
(tagged) to Launchwatch, forwards SIGINT, SIGTERM and SIGHUP to its process group
(the third one kills the group), and reports how it ended:
exit code 0 or a stop you asked for is "exited", anything else "crashed".
It probes what it started (--probe auto): the ports named by CMD's command line
(--port N, --port=N, -p N, --http-port, --listen, PORT= in the environment) or
announced by its log, or when none is named every TCP port its process tree listens
on, on 127.0.0.1, asking the family's health path (vLLM, TGI, llama.cpp /health,
Triton /v2/health/ready, Ollama /), then /health, /v1/models and /. The first passing
probe makes the launch ready (whatever the log says) and later failures are
reported; a passing probe never hides a fatal error in the log, and one that still
passes after the log said the engine died is recorded on that alarm. --probe URL
probes that URL alone (as --health-url does); --probe off probes nothing.
Without --server, the server names the launch's family from its lines.
The exit code of run is the exit code of CMD (128+N when killed by signal N), at most
--drain-timeout after CMD ended, whatever the server does: what could not be delivered
by then (lines, health results, the exit report) waits in a local spool, and run says
so; "launchwatch flush", or the next run or ship to that server, sends it.`,
		`  launchwatch run --launch llama-0412 --server sglang -- \
      python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --port 30000
  launchwatch run --launch web-1 -- python3 -m http.server 8000 --bind 127.0.0.1   # found by its socket
  launchwatch run --launch tgi-7 --probe http://127.0.0.1:3000/health -- ./start-tgi.sh
`)
	cmdArgs := []string{}
	for i, a := range args {
		if a == "--" {
			args, cmdArgs = args[:i], args[i+1:]
			break
		}
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUnreachable
	}
	cmdArgs = append(pos, cmdArgs...)
	if len(cmdArgs) == 0 || *launch == "" || !launchid.KeyPattern.MatchString(*launch) {
		fmt.Fprintln(stderr, "launchwatch run: want --launch KEY (letters, digits, . _ : @ + = -) and a command after -- (see --help)")
		return exitUnreachable
	}
	if *healthEvery <= 0 || *drain <= 0 {
		fmt.Fprintf(stderr, "launchwatch run: --health-every and --drain-timeout must be positive, got %s and %s\n", *healthEvery, *drain)
		return exitUnreachable
	}
	probeMode, err := probeModeOf(fs, *probeFlag, *healthURL)
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch run:", err)
		return exitUnreachable
	}
	c, err := srv.client()
	if err != nil {
		fmt.Fprintln(stderr, "launchwatch run:", err)
		return exitUnreachable
	}
	r := &runner{c: c, key: *launch, log: newCLILogger(stderr, *verbose), stdout: stdout, stderr: stderr,
		drain: *drain, spool: sp, attrs: attrs.values()}
	return r.run(ctx, cmdArgs, probeMode, *healthEvery)
}

// --probe's words; anything else is a URL.
const (
	probeAuto = "auto"
	probeOff  = "off"
)

// probeModeOf is what --probe and its synonym --health-url ask for: auto,
// off, or a URL to probe.
func probeModeOf(fs *flag.FlagSet, probeFlag, healthURL string) (string, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	mode := probeFlag
	if set["health-url"] {
		if set["probe"] && probeFlag != healthURL {
			return "", fmt.Errorf("--probe %s and --health-url %s name different probes: give one", probeFlag, healthURL)
		}
		mode = healthURL
	}
	if mode == probeAuto || mode == probeOff {
		return mode, nil
	}
	u, err := url.Parse(mode)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--probe wants auto, off or an http(s) URL such as http://127.0.0.1:30000/health, got %q", mode)
	}
	return mode, nil
}

// runner runs one child process and ships it.
type runner struct {
	c              *client.Client
	key            string
	log            *slog.Logger
	stdout, stderr io.Writer
	stopRequested  atomic.Bool
	drain          time.Duration // --drain-timeout
	spool          *spoolFlags
	attrs          url.Values

	mu     sync.Mutex // numbers and queues lines in one step, so they queue in seq order
	seq    int64      // last seq given to a line
	placed bool       // the seqs are the launch's: the server said where its lines end

	healthMu      sync.Mutex
	healthPending []spool.Health // probe results not reported yet, oldest first
	probePassed   atomic.Bool    // a probe passed: what to probe is found
}

// push numbers lines of the child's output and queues them, one after
// the other: the other stream's lines cannot come between them.
func (r *runner) push(q *shipper.Queue, stream string, texts ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now().UTC()
	for _, text := range texts {
		r.seq++
		q.Push(client.Line{Seq: r.seq, Text: text, TS: now, Stream: stream})
	}
}

// lastStored is the last seq stored under the key (0 for a new launch), so
// a re-run continues after it and nothing new is mistaken for a duplicate.
// It asks until the server answers: lines numbered from 1 under a key that
// has lines would be dropped as duplicates.
func (r *runner) lastStored(ctx context.Context) (int64, error) {
	backoff := 200 * time.Millisecond
	for warned := false; ; warned = true {
		l, err := r.c.Launch(ctx, r.key)
		switch {
		case err == nil:
			if l.LastSeq > 0 {
				r.log.Warn("launch exists already; appending to it", slog.String("launch", r.key), slog.Int64("last_seq", l.LastSeq))
			}
			return l.LastSeq, nil
		case errors.Is(err, client.ErrNotFound):
			return 0, nil
		case !client.Retryable(err):
			return 0, err
		}
		if !warned {
			r.log.Warn("cannot read the launch yet; lines are kept and retried", slog.String("error", err.Error()))
		}
		wait := backoff/2 + rand.N(backoff)
		var ae *client.APIError
		if errors.As(err, &ae) && ae.RetryAfter > wait {
			wait = ae.RetryAfter
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(wait):
		}
		backoff = min(backoff*2, 10*time.Second)
	}
}

func (r *runner) run(ctx context.Context, cmdArgs []string, probeMode string, healthEvery time.Duration) int {
	// Our own signal handling from here: the child gets what we get.
	sigs := make(chan os.Signal, 4)
	forwarded := []os.Signal{os.Interrupt, syscall.SIGTERM}
	// A hangup (the SSH session of `launchwatch run ... &` ends) would kill
	// us and leave the server, in its own process group, running unwatched:
	// it gets the hangup too, as it would without us. Unless we run under
	// nohup: catching an ignored SIGHUP would undo that.
	if !signal.Ignored(syscall.SIGHUP) {
		forwarded = append(forwarded, syscall.SIGHUP)
	}
	signal.Notify(sigs, forwarded...)
	defer signal.Stop(sigs)
	// Our stdout or stderr may be a pipe whose reader goes away (| head, a
	// closed viewer): Go would die of SIGPIPE and orphan the server. With
	// SIGPIPE caught, those writes just fail; the child still gets the
	// default disposition.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)

	cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
	cmd.Stdin = os.Stdin
	// Its own process group: a Ctrl-C in the terminal reaches only us, and
	// we forward it once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Our own pipes rather than StdoutPipe: helpers the server starts may
	// keep its output open after it exited, and its exit must still be
	// seen (cmd.Wait would wait for them, or close the pipes under us).
	outPipe, outW, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(r.stderr, "launchwatch run:", err)
		return exitFailed
	}
	defer outPipe.Close()
	errPipe, errW, err := os.Pipe()
	if err != nil {
		outW.Close()
		fmt.Fprintln(r.stderr, "launchwatch run:", err)
		return exitFailed
	}
	defer errPipe.Close()
	cmd.Stdout, cmd.Stderr = outW, errW
	q := shipper.NewQueue()
	sender := shipper.NewSender(r.c, q, shipper.SenderConfig{Launch: r.key, Attrs: r.attrs, Log: r.log, Keep: runKeepBytes})
	sendCtx, stopSending := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSending()
	sent := make(chan error, 1)
	go func() {
		// What earlier runs left in the spool for this server goes first:
		// a launch's spooled lines take their seqs before this run's.
		r.flushSpool(sendCtx)
		// Lines are numbered from 1 and queued meanwhile; once the server
		// says where this launch's lines end, they move after them.
		base, err := r.lastStored(sendCtx)
		if err != nil {
			sent <- err
			return
		}
		reserved, _ := spool.ReservedThrough(r.spool.path(), r.c.BaseURL(), r.key)
		base = max(base, reserved)
		r.mu.Lock()
		q.Renumber(base)
		r.seq += base
		r.placed = true
		r.mu.Unlock()
		sent <- sender.Run(sendCtx)
	}()

	err = cmd.Start()
	outW.Close() // the child has its copies
	errW.Close()
	if err != nil {
		msg := "launchwatch run: cannot start " + cmdArgs[0] + ": " + err.Error()
		fmt.Fprintln(r.stderr, msg)
		r.push(q, "stderr", msg)
		q.Close()
		code := 127
		r.finish(time.Now().Add(r.drain), q, sent, sigs, stopSending, spool.Exit{Code: &code})
		return code
	}

	var copying sync.WaitGroup
	copying.Go(func() { r.pump(outPipe, r.stdout, "stdout", q) })
	copying.Go(func() { r.pump(errPipe, r.stderr, "stderr", q) })

	probeCtx, stopProbe := context.WithCancel(ctx)
	defer stopProbe()
	var probing sync.WaitGroup
	switch probeMode {
	case probeOff:
	case probeAuto:
		a := r.newAutoProbe(cmd.Process.Pid, cmdArgs, os.Environ(), healthEvery)
		probing.Go(func() { a.followLaunch(probeCtx) })
		probing.Go(func() { r.probe(probeCtx, a.round, healthEvery) })
	default:
		hc := &http.Client{Timeout: max(healthEvery, time.Second)}
		probing.Go(func() {
			r.probe(probeCtx, func(ctx context.Context) (bool, string) { return probeOnce(ctx, hc, probeMode) }, healthEvery)
		})
	}

	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var waitErr error
	signals := 0
	for done := false; !done; {
		select {
		case sig := <-sigs:
			r.stopRequested.Store(true)
			signals++
			if signals >= killAfterSignals {
				// It ignores the signals, and lives out of the terminal's
				// reach in its own process group: end it.
				sig = syscall.SIGKILL
				r.log.Warn("the server process ignored the signals; killing its process group")
			} else {
				r.log.Info("forwarding signal to the server process group", slog.String("signal", sig.String()),
					slog.String("note", fmt.Sprintf("signal %d more time(s) to kill it", killAfterSignals-signals)))
			}
			// To the whole group, as a terminal's Ctrl-C would: the server's
			// helper processes are in it too.
			if syscall.Kill(-cmd.Process.Pid, sig.(syscall.Signal)) != nil {
				cmd.Process.Signal(sig) //nolint:errcheck // it may have exited already
			}
		case waitErr = <-exited:
			done = true
		}
	}
	// From here on, run ends by this deadline whatever the server does.
	deadline := time.Now().Add(r.drain)
	stopProbe()
	probing.Wait()
	// Its output ends with it, unless a process it started holds it open:
	// take what comes in a moment, then stop reading.
	output := make(chan struct{})
	go func() { copying.Wait(); close(output) }()
	grace := time.NewTimer(min(outputGrace, r.drain/2))
	select {
	case <-output:
	case <-grace.C:
		r.log.Warn("the server process exited but processes it started still hold its output; not reading it any more")
		outPipe.Close()
		errPipe.Close()
		<-output
	}
	grace.Stop()
	q.Close()

	code, signal := exitOf(cmd.ProcessState, waitErr)
	x := spool.Exit{Signal: signal, Requested: r.stopRequested.Load()}
	if signal == "" {
		x.Code = &code
	}
	r.finish(deadline, q, sent, sigs, stopSending, x)
	return code
}

// finish delivers the last lines, then the health results and the exit
// report, until deadline (less a moment to write the spool); a signal
// gives up at once. What is left goes to the spool, and run says so.
func (r *runner) finish(deadline time.Time, q *shipper.Queue, sent <-chan error, sigs <-chan os.Signal, stopSending context.CancelFunc, x spool.Exit) {
	deadline = deadline.Add(-min(r.drain/10, 500*time.Millisecond))
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var why error
	notice := time.NewTimer(min(3*time.Second, r.drain/2))
	defer notice.Stop()
	delivered := false
	for waiting := true; waiting; {
		select {
		case err := <-sent:
			delivered, why, waiting = err == nil, err, false
		case <-notice.C:
			fmt.Fprintf(r.stderr, "launchwatch run: still shipping the last lines to the server (at most %s after the process ended, on this machine's clock; Ctrl-C to stop now)\n", r.drain)
		case <-sigs:
			why, waiting = errors.New("interrupted"), false
		case <-ctx.Done():
			why, waiting = fmt.Errorf("not delivered within --drain-timeout %s", r.drain), false
		}
	}
	if !delivered {
		stopSending()
		if err := <-sent; why == nil {
			why = err
		}
	}
	// Every line must reach the server before the exit is reported.
	exitSent := false
	if delivered {
		reportCtx, stopReports := context.WithCancel(ctx)
		defer stopReports()
		go func() {
			select {
			case <-sigs:
				stopReports()
			case <-reportCtx.Done():
			}
		}()
		if err := r.sendHealth(reportCtx); err != nil {
			why = err
		} else if err := r.report(reportCtx, x); err != nil {
			why = err
		} else {
			exitSent = true
		}
	}
	if exitSent {
		return
	}
	r.mu.Lock()
	placed := r.placed
	r.mu.Unlock()
	r.healthMu.Lock()
	health := append([]spool.Health(nil), r.healthPending...)
	r.healthMu.Unlock()
	dir := r.spool.path()
	e, err := spool.Write(dir, r.spool.maxBytes, spool.Entry{Server: r.c.BaseURL(), Launch: r.key, Attrs: r.attrs,
		Relative: !placed, Health: health, Exit: &x}, q.Lines(), func(msg string) { fmt.Fprintln(r.stderr, "launchwatch run: warning:", msg) })
	if err != nil {
		fmt.Fprintf(r.stderr, "launchwatch run: the server at %s did not take the last lines (%v), and they could not be spooled: %v\n", r.c.BaseURL(), why, err)
		return
	}
	fmt.Fprintf(r.stderr, "launchwatch run: the server at %s did not take everything: %v\n", r.c.BaseURL(), why)
	spoolNote(r.stderr, "run", e, r.c.BaseURL(), dir)
}

// flushSpool delivers what the spool holds for this run's server.
func (r *runner) flushSpool(ctx context.Context) {
	reports, err := spool.Flush(ctx, r.c, r.spool.path(), spool.DeliverConfig{Log: r.log})
	for _, rep := range reports {
		r.log.Info("delivered spooled lines", slog.String("launch", rep.Launch), slog.Int64("lines", rep.Lines),
			slog.Bool("exit", rep.Exit), slog.Bool("done", rep.Done))
	}
	if err != nil && ctx.Err() == nil {
		r.log.Warn("the spool could not be delivered yet", slog.String("error", err.Error()))
	}
}

// runKeepBytes is how much of the child's output run keeps after the
// server acknowledged it, to send again if the server then turns out to
// have lost it (a database restored from an older copy, a lagging standby
// promoted): run checks what the server holds after a failed request, when
// the server's database history changes, and before it reports the exit.
// Older lines the server lost are lost: their only copy was the server's.
const runKeepBytes = 64 << 20

// killAfterSignals is the number of SIGINT/SIGTERM after which run kills
// the server's process group instead of forwarding the signal once more.
const killAfterSignals = 3

// outputGrace is how long run reads output after the server process
// exited, for lines still in the pipes.
const outputGrace = 2 * time.Second

// pump copies one output stream of the child to the terminal as it comes
// (a progress bar redrawn with \r shows at once, not when its line ends)
// and queues each line for shipping. The lines of one read are queued
// together: what the child wrote at once (a traceback printed in one
// write) is not cut by a line of its other stream.
func (r *runner) pump(from io.Reader, to io.Writer, stream string, q *shipper.Queue) {
	buf := make([]byte, 64<<10)
	var line []byte
	var lines []string
	for {
		n, err := from.Read(buf)
		data := buf[:n]
		if n > 0 {
			to.Write(data) //nolint:errcheck // the terminal going away must not stop shipping
		}
		lines = lines[:0]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				line = append(line, data...)
				if len(line) >= maxRunLine { // a runaway line: ship it in pieces
					lines = append(lines, string(line))
					line = line[:0]
				}
				break
			}
			line = append(line, data[:i+1]...)
			data = data[i+1:]
			lines = append(lines, string(trimEOL(line)))
			line = line[:0]
		}
		if err != nil && len(line) > 0 {
			lines = append(lines, string(trimEOL(line)))
		}
		r.push(q, stream, lines...)
		if err != nil {
			return
		}
	}
}

// maxRunLine is where run cuts a line that does not end; the server keeps
// 64 KiB of a line anyway.
const maxRunLine = 4 << 20

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b
}

// report tells the server how the process ended, retrying until ctx ends.
func (r *runner) report(ctx context.Context, x spool.Exit) error {
	return retryUntil(ctx, func() error {
		_, err := r.c.Exit(ctx, r.key, x.Code, x.Signal, x.Requested)
		return err
	})
}

// retryUntil calls fn until it succeeds, fails for good or ctx ends.
func retryUntil(ctx context.Context, fn func() error) error {
	backoff := 200 * time.Millisecond
	for {
		err := fn()
		if err == nil || !client.Retryable(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(backoff/2 + rand.N(backoff)):
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// probe runs round every `every`: the first pass is reported (ready),
// then every change between passing and failing, and, while it passes, a
// pass every stillPassingEvery (a probe that keeps passing after the log
// said the engine died is a failure of its own, which the server records).
// Results not reported yet wait in order, for the next try or the spool.
func (r *runner) probe(ctx context.Context, round func(context.Context) (bool, string), every time.Duration) {
	again := stillPassingEvery(every)
	passed, lastOK := false, false
	var reported time.Time
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		ok, detail := round(ctx)
		if ctx.Err() != nil {
			return
		}
		now := time.Now()
		change := ok && !passed || passed && ok != lastOK
		r.healthMu.Lock()
		still := ok && passed && now.Sub(reported) >= again && len(r.healthPending) == 0
		if change || still {
			r.healthPending = append(r.healthPending, spool.Health{OK: ok, Detail: detail, At: now.UTC()})
			passed, lastOK, reported = passed || ok, ok, now
		}
		r.healthMu.Unlock()
		switch {
		case change && ok:
			r.log.Info("the health probe passes", slog.String("probe", detail))
		case change:
			r.log.Warn("the health probe fails", slog.String("probe", detail))
		}
		if ok {
			r.probePassed.Store(true)
		}
		if err := r.sendHealth(ctx); err != nil && ctx.Err() == nil {
			r.log.Warn("reporting health", slog.String("error", err.Error()))
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// stillPassingEvery is how often a probe that keeps passing is reported
// again: ten probes, at most 30s.
func stillPassingEvery(every time.Duration) time.Duration {
	return min(10*every, 30*time.Second)
}

// sendHealth reports the pending health results in order.
func (r *runner) sendHealth(ctx context.Context) error {
	for {
		r.healthMu.Lock()
		if len(r.healthPending) == 0 {
			r.healthMu.Unlock()
			return nil
		}
		h := r.healthPending[0]
		r.healthMu.Unlock()
		if _, err := r.c.Health(ctx, r.key, h.OK, h.Detail, h.Age()); err != nil {
			return err
		}
		r.healthMu.Lock()
		r.healthPending = r.healthPending[1:]
		r.healthMu.Unlock()
	}
}

func probeOnce(ctx context.Context, hc *http.Client, url string) (bool, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, err.Error()
	}
	res, err := hc.Do(req)
	if err != nil {
		return false, err.Error()
	}
	io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16)) //nolint:errcheck
	res.Body.Close()
	return res.StatusCode/100 == 2, fmt.Sprintf("%s: HTTP %d", url, res.StatusCode)
}

// exitOf turns how the child ended into an exit code (128+N for signal N,
// as shells do) and the signal's name, if a signal killed it.
func exitOf(ps *os.ProcessState, err error) (int, string) {
	if ps == nil {
		return exitFailed, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), signalName(ws.Signal())
	}
	return ps.ExitCode(), ""
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT", syscall.SIGILL: "SIGILL",
		syscall.SIGTRAP: "SIGTRAP", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS", syscall.SIGFPE: "SIGFPE",
		syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV", syscall.SIGPIPE: "SIGPIPE", syscall.SIGTERM: "SIGTERM",
		syscall.SIGUSR1: "SIGUSR1", syscall.SIGUSR2: "SIGUSR2",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return fmt.Sprintf("SIG%d", int(s))
}
