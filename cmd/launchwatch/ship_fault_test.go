package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// The faults a file shipper meets: a file truncated and written again (in
// place, so its inode stays), and servers that hold less than the shipper
// remembers sending them.
func TestShipFaults(t *testing.T) {
	t.Parallel()

	// Truncated and written again past its old size between two looks of
	// the follower (its poll is 200 ms; this takes microseconds): the size
	// alone says nothing changed, the first bytes do.
	t.Run("TruncatedAndRegrownWithinOnePollLosesNothingNew", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		dir := t.TempDir()
		log := filepath.Join(dir, "server.log")
		want := writeContent(t, log, "first run", 1, 3000, os.O_TRUNC)
		ship := startProcess(t, cliBin, "ship", log, "--launch", "regrown", "--url", srv.URL, "--state-file", filepath.Join(dir, "state"))
		eventually(t, "the first content", func() bool {
			l, _ := getLaunch(t, srv.URL, "regrown")
			return l.LastSeq == 3000
		})
		// One open with O_TRUNC and one write: longer lines, so the file
		// is larger than before at once.
		want = append(want, writeContent(t, log, "second run, after a restart of the server", 1, 3000, os.O_TRUNC)...)
		eventually(t, "the new content after the old", func() bool {
			l, _ := getLaunch(t, srv.URL, "regrown")
			return l.LastSeq >= 6000
		})
		ship.Process.Signal(syscall.SIGINT) //nolint:errcheck
		ship.Wait()                         //nolint:errcheck // a signal ends ship with 128+N
		if code := ship.ProcessState.ExitCode(); code != 130 {
			t.Errorf("ship after SIGINT: exit %d, want 130", code)
		}
		equalLines(t, storedTexts(t, srv.URL, "regrown"), want)
	})

	// The same while no shipper runs: the old content's lines written after
	// the stop are gone with the truncation (nothing can send them); the
	// new content arrives whole, numbered after the stored lines.
	t.Run("TruncatedAndRegrownWhileStoppedLosesNothingNew", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		dir := t.TempDir()
		log, state := filepath.Join(dir, "server.log"), filepath.Join(dir, "state")
		want := writeContent(t, log, "first run", 1, 3000, os.O_TRUNC)
		shipOnce(t, srv.URL, "stopped", log, "--state-file", state).sentStored(t, 3000, 3000)
		writeContent(t, log, "first run", 3001, 3500, os.O_APPEND) // lost with the truncation below
		want = append(want, writeContent(t, log, "second run, after a restart of the server", 1, 3000, os.O_TRUNC)...)
		shipOnce(t, srv.URL, "stopped", log, "--state-file", state).sentStored(t, 3000, 3000)
		equalLines(t, storedTexts(t, srv.URL, "stopped"), want)
		shipOnce(t, srv.URL, "stopped", log, "--state-file", state).sentStored(t, 0, 0) // and nothing twice
		// Shrunk below the acknowledged size with the same first bytes:
		// the size tells.
		want = append(want, writeContent(t, log, "second run, after a restart of the server", 1, 10, os.O_TRUNC)...)
		shipOnce(t, srv.URL, "stopped", log, "--state-file", state).sentStored(t, 10, 10)
		equalLines(t, storedTexts(t, srv.URL, "stopped"), want)
	})

	// One state file, two fresh servers: the second holds nothing of what
	// the state says was sent (to the first), so it gets the whole file.
	t.Run("OnceToTwoFreshServersArrivesWholeOnBoth", func(t *testing.T) {
		t.Parallel()
		a, b := webtest.Start(t, web.Config{}), webtest.Start(t, web.Config{})
		dir := t.TempDir()
		log, state := filepath.Join(dir, "server.log"), filepath.Join(dir, "state")
		want := writeContent(t, log, "one file, two servers", 1, 2500, os.O_TRUNC)
		shipOnce(t, a.URL, "twice", log, "--state-file", state).sentStored(t, 2500, 2500)
		shipOnce(t, b.URL, "twice", log, "--state-file", state).sentStored(t, 2500, 2500)
		equalLines(t, storedTexts(t, a.URL, "twice"), want)
		equalLines(t, storedTexts(t, b.URL, "twice"), want)
		// The file grows; each server gets the new lines once.
		want = append(want, writeContent(t, log, "one file, two servers", 2501, 2600, os.O_APPEND)...)
		shipOnce(t, a.URL, "twice", log, "--state-file", state).sentStored(t, 100, 100)
		shipOnce(t, b.URL, "twice", log, "--state-file", state).sentStored(t, 100, 100)
		equalLines(t, storedTexts(t, a.URL, "twice"), want)
		equalLines(t, storedTexts(t, b.URL, "twice"), want)
	})

	// Without --state-file the state is kept per server, launch and file;
	// a server that lost part of the launch (reset, or restored from an
	// older backup: here a server that got only its first lines from
	// elsewhere) gets the rest, and nothing it holds is sent again.
	t.Run("DefaultStateIsPerServerAndAServerThatLacksLinesGetsThem", func(t *testing.T) {
		t.Parallel()
		a, b := webtest.Start(t, web.Config{}), webtest.Start(t, web.Config{})
		dir := t.TempDir()
		env := append(cleanEnv(), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "HOME="+dir)
		log := filepath.Join(dir, "server.log")
		want := writeContent(t, log, "per server", 1, 1200, os.O_TRUNC)
		shipOnceEnv(t, env, a.URL, "per-server", log).sentStored(t, 1200, 1200)
		// b holds the first 700 lines already (its own state knows nothing).
		first := filepath.Join(dir, "first.log")
		writeContent(t, first, "per server", 1, 700, os.O_TRUNC)
		shipOnceEnv(t, env, b.URL, "per-server", first).sentStored(t, 700, 700)
		shipOnceEnv(t, env, b.URL, "per-server", log).sentStored(t, 500, 500)
		shipOnceEnv(t, env, a.URL, "per-server", log).sentStored(t, 0, 0)
		equalLines(t, storedTexts(t, a.URL, "per-server"), want)
		equalLines(t, storedTexts(t, b.URL, "per-server"), want)
		states, _ := filepath.Glob(filepath.Join(dir, "cache", "launchwatch", "ship-per-server-*.json"))
		if len(states) != 3 {
			t.Errorf("state files %q: want one per server and file (3)", states)
		}
	})
}

// writeContent writes numbered lines that start with what (distinct
// contents have distinct first bytes, as a restarted server's log does).
// flag is os.O_TRUNC (one open, one write) or os.O_APPEND.
func writeContent(t *testing.T, path, what string, from, to, flag int) []string {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|flag, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	var buf bytes.Buffer
	for i := from; i <= to; i++ {
		l := fmt.Sprintf("[2026-05-11 14:%02d:%02d] %s: step %d done in %d ms", i/60%60, i%60, what, i, i*7%1000)
		lines = append(lines, l)
		buf.WriteString(l + "\n")
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	return lines
}

type onceOutput string

var sentStoredRE = regexp.MustCompile(`: (\d+) lines sent, (\d+) stored`)

// sentStored checks what `ship --once` said it sent and the server stored.
func (o onceOutput) sentStored(t *testing.T, sent, stored int) {
	t.Helper()
	m := sentStoredRE.FindStringSubmatch(string(o))
	if m == nil || m[1] != fmt.Sprint(sent) || m[2] != fmt.Sprint(stored) {
		t.Errorf("ship --once said %q; want %d lines sent, %d stored", strings.TrimSpace(string(o)), sent, stored)
	}
}

func shipOnce(t *testing.T, url, launch, log string, extra ...string) onceOutput {
	t.Helper()
	return shipOnceEnv(t, cleanEnv(), url, launch, log, extra...)
}

func shipOnceEnv(t *testing.T, env []string, url, launch, log string, extra ...string) onceOutput {
	t.Helper()
	cmd := exec.Command(cliBin, append([]string{"ship", log, "--launch", launch, "--once", "--url", url}, extra...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ship --once to %s: %v\n%s", url, err, out)
	}
	return onceOutput(out)
}
