package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

func TestShip(t *testing.T) {
	t.Parallel()

	t.Run("OnceUploadsTheFileExactly", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		dir := t.TempDir()
		log := filepath.Join(dir, "server.log")
		want := writeLines(t, log, 1, 2500, false)
		// An unfinished last line is sent too when the upload is one-off.
		f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("no newline at the end")
		f.Close()
		want = append(want, "no newline at the end")
		code, out := cli(t, "ship", log, "--launch", "once", "--server", "sglang", "--once",
			"--url", srv.URL, "--state-file", filepath.Join(dir, "state"))
		if code != 0 {
			t.Fatalf("ship --once: exit %d\n%s", code, out)
		}
		equalLines(t, storedTexts(t, srv.URL, "once"), want)
		// Running it again sends nothing twice.
		if code, out := cli(t, "ship", log, "--launch", "once", "--once", "--url", srv.URL, "--state-file", filepath.Join(dir, "state")); code != 0 {
			t.Fatalf("second ship --once: exit %d\n%s", code, out)
		}
		equalLines(t, storedTexts(t, srv.URL, "once"), want)
	})

	t.Run("KilledAndRestartedStoresEachLineOnce", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		dir := t.TempDir()
		log, state := filepath.Join(dir, "server.log"), filepath.Join(dir, "state")
		want := writeLines(t, log, 1, 30000, false)
		ship := startProcess(t, cliBin, "ship", log, "--launch", "killed", "--url", srv.URL, "--state-file", state)
		eventually(t, "the first acknowledged batch", func() bool {
			l, ok := getLaunch(t, srv.URL, "killed")
			return ok && l.LastSeq > 0
		})
		ship.Process.Signal(syscall.SIGKILL) //nolint:errcheck
		ship.Wait()                          //nolint:errcheck
		// The log grows while the shipper is dead, then is followed again.
		want = append(want, writeLines(t, log, 30001, 30500, true)...)
		ship = startProcess(t, cliBin, "ship", log, "--launch", "killed", "--url", srv.URL, "--state-file", state)
		eventually(t, "every line", func() bool {
			l, _ := getLaunch(t, srv.URL, "killed")
			return l.LastSeq == int64(len(want))
		})
		// Rotation: the name now points to a new file; seq counts on.
		if err := os.Rename(log, log+".1"); err != nil {
			t.Fatal(err)
		}
		want = append(want, writeLines(t, log, 30501, 30600, false)...)
		eventually(t, "the rotated file's lines", func() bool {
			l, _ := getLaunch(t, srv.URL, "killed")
			return l.LastSeq == int64(len(want))
		})
		ship.Process.Signal(syscall.SIGINT) //nolint:errcheck
		ship.Wait()                         //nolint:errcheck // a signal ends ship with 128+N
		if code := ship.ProcessState.ExitCode(); code != 130 {
			t.Errorf("ship after SIGINT: exit %d, want 130", code)
		}
		equalLines(t, storedTexts(t, srv.URL, "killed"), want)
	})

	// The file grows and is rotated while no shipper runs: the next run
	// finishes the rotated file (found by its inode) before the new one.
	t.Run("RotatedWhileStoppedLosesNothing", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		dir := t.TempDir()
		log, state := filepath.Join(dir, "server.log"), filepath.Join(dir, "state")
		ship := func() {
			t.Helper()
			if code, out := cli(t, "ship", log, "--launch", "rotated", "--once", "--url", srv.URL, "--state-file", state); code != 0 {
				t.Fatalf("ship --once: exit %d\n%s", code, out)
			}
		}
		want := writeLines(t, log, 1, 100, false)
		ship()
		want = append(want, writeLines(t, log, 101, 150, true)...)
		if err := os.Rename(log, log+".1"); err != nil {
			t.Fatal(err)
		}
		want = append(want, writeLines(t, log, 151, 200, false)...)
		ship()
		equalLines(t, storedTexts(t, srv.URL, "rotated"), want)
		ship() // and nothing twice
		equalLines(t, storedTexts(t, srv.URL, "rotated"), want)
	})

	// Same, but the rotated file is gone (compressed) and the server stored
	// lines the state file never heard of (killed before it was saved): the
	// new file's lines go after them instead of being taken for duplicates.
	t.Run("RotatedAwayWhileStoppedLosesNothingNew", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		dir := t.TempDir()
		log, state := filepath.Join(dir, "server.log"), filepath.Join(dir, "state")
		ship := func() {
			t.Helper()
			if code, out := cli(t, "ship", log, "--launch", "gone", "--once", "--url", srv.URL, "--state-file", state); code != 0 {
				t.Fatalf("ship --once: exit %d\n%s", code, out)
			}
		}
		want := writeLines(t, log, 1, 100, false)
		ship()
		// Stored, but the shipper died before recording the acknowledgement.
		unacked := writeLines(t, filepath.Join(dir, "unacked"), 101, 120, false)
		var body strings.Builder
		for i, l := range unacked {
			fmt.Fprintf(&body, "{\"seq\":%d,\"line\":%q}\n", 101+i, l)
		}
		res, err := http.Post(srv.URL+"/api/v1/launches/gone/lines", "application/x-ndjson", strings.NewReader(body.String()))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		want = append(want, unacked...)
		if err := os.Remove(log); err != nil { // rotated and compressed
			t.Fatal(err)
		}
		want = append(want, writeLines(t, log, 121, 170, false)...)
		ship()
		equalLines(t, storedTexts(t, srv.URL, "gone"), want)
	})

	t.Run("WebServerRestartLosesNothing", func(t *testing.T) {
		t.Parallel()
		db := webtest.Start(t, web.Config{}) // only for its database
		addr := freeAddr(t)
		url := "http://" + addr
		startWebAt := func() *webProc { return startWebProcess(t, addr, db.DBURL) }
		w := startWebAt()
		dir := t.TempDir()
		log := filepath.Join(dir, "server.log")
		want := writeLines(t, log, 1, 2000, false)
		ship := startProcess(t, cliBin, "ship", log, "--launch", "restart", "--url", url, "--state-file", filepath.Join(dir, "state"))
		eventually(t, "the first lines", func() bool {
			l, _ := getLaunch(t, url, "restart")
			return l.LastSeq == 2000
		})
		w.stop(t)
		// Lines written while the server is down wait in the shipper.
		want = append(want, writeLines(t, log, 2001, 3000, true)...)
		w = startWebAt()
		eventually(t, "the lines written while the server was down", func() bool {
			l, _ := getLaunch(t, url, "restart")
			return l.LastSeq == 3000
		})
		ship.Process.Signal(syscall.SIGINT) //nolint:errcheck
		ship.Wait()                         //nolint:errcheck
		equalLines(t, storedTexts(t, url, "restart"), want)
		w.stop(t)
	})

	t.Run("BadUsage", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{
			{"ship", "--launch", "x"},
			{"ship", "file.log"},
			{"ship", "file.log", "--launch", "bad key"},
			{"ship", "file.log", "--launch", "x", "--url", "ftp://nowhere"},
		} {
			if code, out := cli(t, args...); code != 4 || !strings.Contains(out, "launchwatch ship") {
				t.Errorf("%v: exit %d, output %q; want 4 with a message", args, code, out)
			}
		}
		if code, out := cli(t, "ship", "--help"); code != 0 || !strings.Contains(out, "Examples:") || !strings.Contains(out, "--launch") {
			t.Errorf("ship --help: exit %d\n%s", code, out)
		}
	})
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
