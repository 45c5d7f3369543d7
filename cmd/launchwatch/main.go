// Command launchwatch is the Launchwatch command line. Each subcommand lives
// in its own file (eval.go; later ship.go, run.go, wait.go) and registers
// itself in commands.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// commands maps subcommand names to their implementation.
var commands = map[string]command{
	"audit":  {summary: "verify the audit log's hash chain: find a row changed behind the server's back", run: runAudit},
	"export": {summary: "export decided alarms (JSONL) or reviewed launches as a labeled corpus", run: runExport},
	"flush":  {summary: "send what run and ship spooled while the server could not be reached", run: runFlush},
	"eval":   {summary: "score the classifier (or a grep baseline) on a labeled corpus", run: runEval},
	"ship":   {summary: "ship a log file to a launch, following it like tail -F", run: runShip},
	"run":    {summary: "run a server process, ship its output, report its exit and health", run: runRun},
	reclass:  reclassifyCommand,
	"wait":   {summary: "wait until a launch is ready or dead; the exit code says which", run: runWait},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and returns the process exit code:
// 0 success, 1 failure, 2 usage error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "launchwatch: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return cmd.run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: launchwatch <command> [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "launchwatch <command> -h" for the flags of a command.`)
}
