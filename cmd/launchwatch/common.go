package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"

	"launchwatch/internal/client"
	"launchwatch/internal/cliflag"
	"launchwatch/internal/spool"
)

// Exit codes shared by ship, run and wait.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUnreachable = 4 // cannot reach the server, or bad usage
)

// serverFlags are the flags every command that talks to a server takes.
type serverFlags struct {
	url   string
	token string
}

func addServerFlags(fs *flag.FlagSet) *serverFlags {
	f := &serverFlags{}
	def := os.Getenv("LAUNCHWATCH_URL")
	if def == "" {
		def = "http://127.0.0.1:8080"
	}
	fs.StringVar(&f.url, "url", def, "Launchwatch server `URL` [LAUNCHWATCH_URL]")
	fs.StringVar(&f.token, "token", os.Getenv("LAUNCHWATCH_TOKEN"), "API `token` sent as a bearer token [LAUNCHWATCH_TOKEN]")
	return f
}

func (f *serverFlags) client() (*client.Client, error) {
	return client.New(f.url, f.token)
}

// labelFlags collects repeated --label K=V flags.
type labelFlags map[string]string

func (l labelFlags) String() string { return "" }

func (l labelFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want K=V, got %q", v)
	}
	l[k] = val
	return nil
}

// attrFlags are the launch attributes ship and run send with each batch.
type attrFlags struct {
	server, host, name, tz string
	labels                 labelFlags
}

func addAttrFlags(fs *flag.FlagSet) *attrFlags {
	a := &attrFlags{labels: labelFlags{}}
	host, _ := os.Hostname()
	fs.StringVar(&a.server, "server", "", "server `family` of the launch: sglang, vllm, tgi, trtllm, ...")
	fs.StringVar(&a.host, "host", host, "`host` the launch runs on")
	fs.StringVar(&a.name, "name", "", "a human `name` for the launch (e.g. the model)")
	fs.Var(a.labels, "label", "a `K=V` label of the launch; repeat for more")
	fs.StringVar(&a.tz, "tz", "", "the `zone` the log's times are written in when they carry no offset: an IANA name (Europe/Berlin) or ±hh:mm; overrides the offset the server estimates")
	return a
}

func (a *attrFlags) values() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"server": a.server, "host": a.host, "name": a.name, "tz": a.tz} {
		if v != "" {
			q.Set(k, v)
		}
	}
	for k, v := range a.labels {
		q.Set("label."+k, v)
	}
	return q
}

// usageWithExamples prints a command's usage line, description, flags
// (GNU-style, --name) and examples.
func usageWithExamples(w io.Writer, fs *flag.FlagSet, usage, about, examples string) func() {
	return func() {
		fmt.Fprintf(w, "Usage: %s\n\n%s\n\nFlags:\n", usage, about)
		cliflag.PrintDefaults(w, fs, "token")
		fmt.Fprintf(w, "\nExamples:\n%s", examples)
	}
}

func newCLILogger(w io.Writer, verbose bool) *slog.Logger {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// spoolFlags say where undelivered lines and reports are kept.
type spoolFlags struct {
	dir      string
	maxBytes int64
}

func addSpoolFlags(fs *flag.FlagSet) *spoolFlags {
	f := &spoolFlags{}
	fs.StringVar(&f.dir, "spool-dir", os.Getenv("LAUNCHWATCH_SPOOL_DIR"), "`directory` of the spool, where what could not be delivered waits for `launchwatch flush` (default launchwatch/spool in the user cache directory) [LAUNCHWATCH_SPOOL_DIR]")
	fs.Int64Var(&f.maxBytes, "spool-max-bytes", spool.DefaultMaxBytes, "the spool's bound in `bytes`; the oldest spooled launch is dropped first")
	return f
}

func (f *spoolFlags) path() string { return spool.Dir(f.dir) }

// spoolNote is how every command says what it spooled.
func spoolNote(stderr io.Writer, cmd string, e *spool.Entry, server, dir string) {
	what := fmt.Sprintf("%d line(s)", e.Lines)
	var extra []string
	if len(e.Health) > 0 {
		extra = append(extra, fmt.Sprintf("%d health result(s)", len(e.Health)))
	}
	if e.Exit != nil {
		extra = append(extra, "the exit report")
	}
	if len(extra) > 0 {
		what += " and " + strings.Join(extra, " and ")
	}
	fmt.Fprintf(stderr, "launchwatch %s: %s of launch %s not delivered to %s: spooled in %s; "+
		"`launchwatch flush` sends them (so does the next run or ship to that server)\n", cmd, what, e.Launch, server, dir)
}
