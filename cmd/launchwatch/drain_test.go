package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// spoolEnv is the environment of a CLI process with a spool of its own.
func spoolEnv(dir string) []string {
	return append(cleanEnv(), "LAUNCHWATCH_SPOOL_DIR="+dir)
}

// startCLI starts the CLI with env and returns it with its output.
func startCLI(t *testing.T, env []string, stdin io.Reader, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(cliBin, args...)
	cmd.Env = env
	cmd.Stdin = stdin
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill() //nolint:errcheck
			cmd.Wait()         //nolint:errcheck
		}
		if t.Failed() {
			t.Logf("launchwatch %s output:\n%s", args[0], out)
		}
	})
	return cmd, out
}

func cliEnv(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	cmd, out := startCLI(t, env, nil, args...)
	cmd.Wait() //nolint:errcheck
	return cmd.ProcessState.ExitCode(), out.String()
}

func spooled(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			n++
		}
	}
	return n
}

// drainSlack is what a loaded machine may add to --drain-timeout between
// the child's end and run's (starting processes under the race detector).
const drainSlack = 8 * time.Second

// A real server process stopped while `run` runs: run exits with its
// child's code within the drain timeout, spools the lines and the exit
// report and says so; after the server is back, flush (or the next run to
// that server) delivers them: every line once, in order, and the exit.
func TestRunWhileTheServerIsDownSpoolsAndFlushDelivers(t *testing.T) {
	t.Parallel()

	// Up at the start (the run knows where the launch's lines end), down
	// when the child prints its last lines and exits.
	t.Run("LostMidRunThenFlush", func(t *testing.T) {
		t.Parallel()
		db := webtest.Start(t, web.Config{}) // only for its database
		addr := freeAddr(t)
		url := "http://" + addr
		w := startWebProcess(t, addr, db.DBURL)
		post(t, url, "mid", "old 1\nold 2\nold 3\n")
		dir := t.TempDir()
		stdin, feed := io.Pipe()
		run, out := startCLI(t, spoolEnv(dir), stdin, "run", "--launch", "mid", "--url", url, "--drain-timeout", "2s", "--",
			"sh", "-c", `echo first; read x; i=0; while [ $i -lt 300 ]; do i=$((i+1)); echo "after $i"; done; exit 7`)
		eventually(t, "the first line stored", func() bool {
			l, _ := getLaunch(t, url, "mid")
			return l.LastSeq == 4
		})
		w.stop(t)
		start := time.Now()
		feed.Close() // the child prints 300 lines and exits 7 while the server is down
		if code := waitExit(t, run, out, 2*time.Second+drainSlack); code != 7 {
			t.Fatalf("run exit %d, want the child's 7\n%s", code, out)
		}
		t.Logf("run ended %s after its child was let go (--drain-timeout 2s)", time.Since(start).Round(10*time.Millisecond))
		if s := out.String(); !strings.Contains(s, "300 line(s) and the exit report of launch mid not delivered") ||
			!strings.Contains(s, "launchwatch flush") || !strings.Contains(s, dir) {
			t.Errorf("run does not say what it spooled and how it is sent:\n%s", s)
		}
		if n := spooled(t, dir); n != 1 {
			t.Fatalf("%d spool entries, want 1", n)
		}

		w = startWebProcess(t, addr, db.DBURL)
		defer w.stop(t)
		code, flushOut := cliEnv(t, spoolEnv(dir), "flush")
		if code != 0 || !strings.Contains(flushOut, "delivered launch mid to "+url+": 300 lines (300 stored") ||
			!strings.Contains(flushOut, "the exit report") {
			t.Fatalf("flush: exit %d\n%s", code, flushOut)
		}
		want := []string{"old 1", "old 2", "old 3", "first"}
		for i := 1; i <= 300; i++ {
			want = append(want, fmt.Sprintf("after %d", i))
		}
		equalLines(t, storedTexts(t, url, "mid"), want) // seqs 1..n: nothing lost, nothing doubled
		if l, _ := getLaunch(t, url, "mid"); l.Status != "crashed" || l.ExitCode == nil || *l.ExitCode != 7 {
			t.Errorf("launch %+v, want crashed with the exit code 7 flushed", l)
		}
		if code, again := cliEnv(t, spoolEnv(dir), "flush"); code != 0 || !strings.Contains(again, "nothing spooled") {
			t.Errorf("second flush: exit %d\n%s", code, again)
		}
		equalLines(t, storedTexts(t, url, "mid"), want)
	})

	// Down from the start: the run never learns where the launch's lines
	// end, so its lines are spooled numbered from 1 and placed after what
	// the server holds when they are delivered, here by the next run to
	// that server (of another launch).
	t.Run("DownFromTheStartThenTheNextRunFlushes", func(t *testing.T) {
		t.Parallel()
		db := webtest.Start(t, web.Config{})
		addr := freeAddr(t)
		url := "http://" + addr
		w := startWebProcess(t, addr, db.DBURL)
		post(t, url, "early", "old 1\nold 2\n")
		w.stop(t)
		dir := t.TempDir()
		run, out := startCLI(t, spoolEnv(dir), nil, "run", "--launch", "early", "--url", url, "--drain-timeout", "2s", "--",
			"sh", "-c", `echo one; echo two >&2; echo three; exit 0`)
		if code := waitExit(t, run, out, 2*time.Second+drainSlack); code != 0 {
			t.Fatalf("run exit %d, want the child's 0\n%s", code, out)
		}
		if !strings.Contains(out.String(), "3 line(s) and the exit report of launch early not delivered") {
			t.Errorf("run output:\n%s", out)
		}

		w = startWebProcess(t, addr, db.DBURL)
		defer w.stop(t)
		if code, next := cliEnv(t, spoolEnv(dir), "run", "--launch", "next", "--url", url, "--", "true"); code != 0 {
			t.Fatalf("the next run: exit %d\n%s", code, next)
		}
		got := storedTexts(t, url, "early")
		if len(got) != 5 || got[0] != "old 1" || got[1] != "old 2" || !inOrder(got[2:], []string{"one", "three"}) || !inOrder(got[2:], []string{"two"}) {
			t.Errorf("stored lines %q, want the 2 old ones, then the run's 3", got)
		}
		if l, _ := getLaunch(t, url, "early"); l.Status != "exited" || l.ExitCode == nil || *l.ExitCode != 0 {
			t.Errorf("launch %+v, want exited with code 0", l)
		}
		if n := spooled(t, dir); n != 0 {
			t.Errorf("%d spool entries left after the next run", n)
		}
	})
}

// Whatever the server does (nobody listens, it accepts and never answers,
// it answers 503), run ends within the drain timeout with the child's code.
func TestRunDrainTimeoutWhateverTheServerDoes(t *testing.T) {
	t.Parallel()
	hanging, err := net.Listen("tcp", "127.0.0.1:0") // the kernel accepts; nobody answers
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hanging.Close() })
	unavailable := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, `{"error":"database unavailable"}`, http.StatusServiceUnavailable)
	}))
	t.Cleanup(unavailable.Close)
	for _, tc := range []struct{ name, url string }{
		{"Down", "http://" + freeAddr(t)},
		{"Hanging", "http://" + hanging.Addr().String()},
		{"Unavailable503", unavailable.URL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			run, out := startCLI(t, spoolEnv(dir), nil, "run", "--launch", "drain", "--url", tc.url, "--drain-timeout", "1s",
				"--health-url", "http://"+freeAddr(t)+"/health", "--", "sh", "-c", `echo hi; exit 3`)
			if code := waitExit(t, run, out, time.Second+drainSlack); code != 3 {
				t.Fatalf("run exit %d, want the child's 3\n%s", code, out)
			}
			if !strings.Contains(out.String(), "1 line(s) and the exit report of launch drain not delivered") || spooled(t, dir) != 1 {
				t.Errorf("want the line and the exit report spooled:\n%s", out)
			}
		})
	}
}

// A signal while run drains stops it at once: the rest is spooled.
func TestRunSignalWhileDrainingStopsAtOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run, out := startCLI(t, spoolEnv(dir), nil, "run", "--launch", "sig", "--url", "http://"+freeAddr(t),
		"--drain-timeout", "10m", "--", "sh", "-c", `echo bye; exit 2`)
	eventually(t, "run to drain", func() bool { return strings.Contains(out.String(), "still shipping the last lines") })
	run.Process.Signal(syscall.SIGTERM) //nolint:errcheck
	if code := waitExit(t, run, out, 20*time.Second); code != 2 {
		t.Fatalf("run exit %d, want the child's 2\n%s", code, out)
	}
	if !strings.Contains(out.String(), "interrupted") || spooled(t, dir) != 1 {
		t.Errorf("want the rest spooled after the signal:\n%s", out)
	}
}

var gaveUpRE = regexp.MustCompile(`(\d+) lines sent and acknowledged \((\d+) stored\), through line (\d+); (\d+) lines not sent`)

// ship --once to a server that stopped gives up after --retry-for with
// exit code 4, saying what was sent and what was not; run again once the
// server is back, it sends the rest.
func TestShipOnceGivesUpAfterRetryFor(t *testing.T) {
	t.Parallel()
	db := webtest.Start(t, web.Config{})
	addr := freeAddr(t)
	url := "http://" + addr
	w := startWebProcess(t, addr, db.DBURL)
	dir := t.TempDir()
	log, state := filepath.Join(dir, "server.log"), filepath.Join(dir, "state")
	env := spoolEnv(filepath.Join(dir, "spool"))
	want := writeLines(t, log, 1, 100, false)
	if code, out := cliEnv(t, env, "ship", log, "--launch", "giveup", "--once", "--url", url, "--state-file", state); code != 0 {
		t.Fatalf("ship --once: exit %d\n%s", code, out)
	}
	w.stop(t)
	want = append(want, writeLines(t, log, 101, 150, true)...)
	start := time.Now()
	code, out := cliEnv(t, env, "ship", log, "--launch", "giveup", "--once", "--url", url, "--state-file", state, "--retry-for", "2s")
	took := time.Since(start)
	m := gaveUpRE.FindStringSubmatch(out)
	if code != 4 || m == nil || m[3] != "100" || m[4] != "50" || !strings.Contains(out, "gave up after retrying for 2s") {
		t.Fatalf("ship --once --retry-for 2s to a stopped server: exit %d, want 4 saying line 100 arrived and 50 did not\n%s", code, out)
	}
	if took < 2*time.Second || took > 2*time.Second+drainSlack {
		t.Errorf("gave up after %s, want about --retry-for 2s", took)
	}
	w = startWebProcess(t, addr, db.DBURL)
	defer w.stop(t)
	shipOnceEnv(t, env, url, "giveup", log, "--state-file", state).sentStored(t, 50, 50)
	equalLines(t, storedTexts(t, url, "giveup"), want)
}

// Following, ship keeps retrying a server that is down; SIGTERM ends it
// with 143, and what it read but could not deliver is spooled: flush
// delivers it, and the next ship of the file sends nothing twice.
func TestShipFollowSpoolsWhenStoppedWhileTheServerIsDown(t *testing.T) {
	t.Parallel()
	db := webtest.Start(t, web.Config{})
	addr := freeAddr(t)
	url := "http://" + addr
	dir := t.TempDir()
	log, state := filepath.Join(dir, "server.log"), filepath.Join(dir, "state")
	env := spoolEnv(filepath.Join(dir, "spool"))
	want := writeLines(t, log, 1, 40, false)
	ship, out := startCLI(t, env, nil, "ship", log, "--launch", "follow", "--url", url, "--state-file", state)
	eventually(t, "ship to retry a batch", func() bool { return strings.Contains(out.String(), "batch not stored yet, will retry") })
	ship.Process.Signal(syscall.SIGTERM) //nolint:errcheck
	if code := waitExit(t, ship, out, 20*time.Second); code != 143 {
		t.Fatalf("ship after SIGTERM: exit %d, want 143\n%s", code, out)
	}
	if !strings.Contains(out.String(), "40 line(s) of launch follow not delivered") {
		t.Fatalf("ship does not say it spooled the 40 lines:\n%s", out)
	}
	w := startWebProcess(t, addr, db.DBURL)
	defer w.stop(t)
	if code, flushOut := cliEnv(t, env, "flush", "--url", url); code != 0 || !strings.Contains(flushOut, "40 lines (40 stored") {
		t.Fatalf("flush: exit %d\n%s", code, flushOut)
	}
	shipOnceEnv(t, env, url, "follow", log, "--state-file", state).sentStored(t, 0, 0)
	equalLines(t, storedTexts(t, url, "follow"), want)
}
