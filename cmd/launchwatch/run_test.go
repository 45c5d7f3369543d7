package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// runChild starts `launchwatch run` with this test binary as the server.
func runChild(t *testing.T, url, key string, env []string, extra ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"run", "--launch", key, "--server", "vllm", "--url", url}, extra...)
	args = append(args, "--", self)
	cmd := exec.Command(cliBin, args...)
	cmd.Env = append(cleanEnv(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill() //nolint:errcheck
			cmd.Wait()         //nolint:errcheck
		}
	})
	return cmd, &out
}

func TestRun(t *testing.T) {
	t.Parallel()

	t.Run("TracebackAndExitOneIsCrashed", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		cmd, out := runChild(t, srv.URL, "tb", []string{"LW_CHILD=traceback"})
		err := cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 1 {
			t.Fatalf("run exit %d (%v), want the child's 1\n%s", code, err, out)
		}
		// The child's output passes through to the terminal.
		if !strings.Contains(out.String(), "Load weight begin.") || !strings.Contains(out.String(), "KeyError: 'model.layers.0.weight'") {
			t.Errorf("output not passed through:\n%s", out)
		}
		l, ok := getLaunch(t, srv.URL, "tb")
		if !ok || l.Status != "crashed" || l.ExitCode == nil || *l.ExitCode != 1 {
			t.Fatalf("launch = %+v, want crashed with exit code 1", l)
		}
		if len(l.Alarms) != 1 || l.Alarms[0].Headline != "KeyError: 'model.layers.0.weight'" {
			t.Errorf("alarms = %+v, lines %q", l.Alarms, storedTexts(t, srv.URL, "tb"))
		}
		got := storedTexts(t, srv.URL, "tb")
		if len(got) != 6 {
			t.Errorf("stored %d lines, want the child's 6: %q", len(got), got)
		}
	})

	t.Run("HealthProbeMakesReadyAndOperatorStopIsExited", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		addr := freeAddr(t)
		cmd, out := runChild(t, srv.URL, "healthy", []string{"LW_CHILD=healthy", "LW_CHILD_ADDR=" + addr},
			"--health-url", "http://"+addr+"/health", "--health-every", "100ms")
		eventually(t, "ready by health probe", func() bool {
			l, _ := getLaunch(t, srv.URL, "healthy")
			return l.Status == "ready"
		})
		cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("run did not end after SIGTERM\n%s", out)
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("run exit %d, want the child's 0\n%s", code, out)
		}
		l, _ := getLaunch(t, srv.URL, "healthy")
		if l.Status != "exited" {
			t.Errorf("status after the operator's stop = %q, want exited", l.Status)
		}
		if got := storedTexts(t, srv.URL, "healthy"); len(got) != 3 || got[2] != "shutting down on request" {
			t.Errorf("stored lines = %q", got)
		}
	})

	t.Run("CommandNotFound", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		code, out := cli(t, "run", "--launch", "missing", "--url", srv.URL, "--", "/nonexistent/server")
		if code != 127 || !strings.Contains(out, "cannot start") {
			t.Errorf("exit %d, output %q; want 127", code, out)
		}
		if l, _ := getLaunch(t, srv.URL, "missing"); l.Status != "crashed" {
			t.Errorf("status = %q, want crashed", l.Status)
		}
	})
}

// runShell starts `launchwatch run` with a shell script as the server and
// returns it with its output; the script prints the pid of a background
// process it starts, which cleanup kills if it is still there.
func runShell(t *testing.T, url, key, script string) (*exec.Cmd, *syncBuffer, func() int) {
	t.Helper()
	cmd := exec.Command(cliBin, "run", "--launch", key, "--url", url, "--", "sh", "-c", script)
	cmd.Env = cleanEnv()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	grandchild := func() int {
		var pid int
		eventually(t, "the background pid", func() bool {
			first, _, _ := strings.Cut(out.String(), "\n")
			n, err := strconv.Atoi(strings.TrimSpace(first))
			pid = n
			return err == nil && strings.Contains(out.String(), "\n")
		})
		return pid
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill() //nolint:errcheck
			cmd.Wait()         //nolint:errcheck
		}
	})
	return cmd, out, grandchild
}

// alive reports whether pid is a running process (not gone, not a zombie).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(rest, "Z") && !strings.HasPrefix(rest, "X")
}

func waitExit(t *testing.T, cmd *exec.Cmd, out fmt.Stringer, within time.Duration) int {
	t.Helper()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }() //nolint:errcheck
	select {
	case <-done:
	case <-time.After(within):
		t.Fatalf("launchwatch run did not end within %s\n%s", within, out)
	}
	return cmd.ProcessState.ExitCode()
}

func TestRunProcessGroup(t *testing.T) {
	t.Parallel()

	// Servers start helpers (tokenizer, scheduler, a shell's background
	// job) that inherit stdout and may outlive the main process: the exit
	// must still be reported, with the lines printed before it.
	t.Run("ExitReportedWhileAHelperHoldsTheOutput", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		cmd, out, grandchild := runShell(t, srv.URL, "orphan", `sleep 60 & echo $!; echo "Traceback (most recent call last):"; echo "KeyError: 'x'"; exit 3`)
		pid := grandchild()
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) //nolint:errcheck
		if code := waitExit(t, cmd, out, 20*time.Second); code != 3 {
			t.Errorf("run exit %d, want the child's 3\n%s", code, out)
		}
		l, _ := getLaunch(t, srv.URL, "orphan")
		if l.Status != "crashed" || l.ExitCode == nil || *l.ExitCode != 3 {
			t.Errorf("launch = %+v, want crashed with exit code 3", l)
		}
		if got := storedTexts(t, srv.URL, "orphan"); len(got) != 3 || got[2] != "KeyError: 'x'" {
			t.Errorf("stored lines = %q", got)
		}
	})

	// A Ctrl-C in a terminal reaches the whole foreground process group;
	// run puts the server in a group of its own, so it must forward the
	// signal to that whole group, not only to its leader.
	t.Run("SignalReachesTheWholeGroup", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		cmd, out, grandchild := runShell(t, srv.URL, "group", `sleep 60 & echo $!; wait`)
		pid := grandchild()
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) }) //nolint:errcheck
		cmd.Process.Signal(syscall.SIGTERM)                      //nolint:errcheck
		waitExit(t, cmd, out, 20*time.Second)
		eventually(t, "the background process to end", func() bool { return !alive(pid) })
		if l, _ := getLaunch(t, srv.URL, "group"); l.Status != "exited" {
			t.Errorf("status after the operator's stop = %q, want exited", l.Status)
		}
	})
}

// A re-run under a key that has lines already continues after them; when
// the server cannot be asked at the start, the new lines must not be
// numbered from 1 and dropped as duplicates of the old ones.
func TestRunRerunWhileServerBusyAtStart(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	post(t, srv.URL, "rerun", "old 1\nold 2\nold 3\n")
	target, _ := url.Parse(srv.URL)
	proxy := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target) }} // names the target in Host, as the server checks
	var refused atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && refused.Add(1) <= 2 {
			w.Header().Set("Retry-After", "0")
			http.Error(w, `{"error":"busy"}`, http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	cmd, out := runChild(t, front.URL, "rerun", []string{"LW_CHILD=traceback"})
	cmd.Wait() //nolint:errcheck
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("run exit %d, want the child's 1\n%s", code, out)
	}
	// The child's stdout and stderr are two pipes: how their lines
	// interleave is up to the scheduler, but each keeps its own order.
	got := storedTexts(t, srv.URL, "rerun")
	stdout := []string{"[2026-04-02 09:28:20] Load weight begin.", "[2026-04-02 09:28:21] Load weight end."}
	stderr := []string{"Traceback (most recent call last):", `  File "/srv/server.py", line 12, in <module>`, "    load()", "KeyError: 'model.layers.0.weight'"}
	if len(got) != 3+6 || strings.Join(got[:3], ",") != "old 1,old 2,old 3" ||
		!inOrder(got[3:], stdout) || !inOrder(got[3:], stderr) {
		t.Errorf("stored lines = %q, want the 3 old ones, then the child's 6 with each stream in order", got)
	}
}

// inOrder reports whether want appears in got as a subsequence.
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

// Progress bars (tqdm while shards load) redraw a line with \r and no \n:
// the terminal must show them as they come, not when the line ends.
func TestRunPassesPartialLinesThrough(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	cmd := exec.Command(cliBin, "run", "--launch", "bar", "--url", srv.URL, "--", "sh", "-c",
		`printf 'Loading shards 1/2\r'; sleep 1; printf 'Loading shards 2/2\r'; read x; echo; echo done`)
	cmd.Env = cleanEnv()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill() //nolint:errcheck
			cmd.Wait()         //nolint:errcheck
		}
	})
	eventually(t, "the progress bar on the terminal", func() bool { return strings.Contains(out.String(), "Loading shards 2/2\r") })
	stdin.Close()
	if code := waitExit(t, cmd, out, 20*time.Second); code != 0 {
		t.Fatalf("run exit %d\n%s", code, out)
	}
	if got := storedTexts(t, srv.URL, "bar"); len(got) != 2 || got[0] != "Loading shards 1/2\rLoading shards 2/2" || got[1] != "done" {
		t.Errorf("stored lines = %q", got)
	}
}

// A server that ignores the forwarded signal lives in a process group of
// its own, out of the terminal's reach: a third Ctrl-C must kill it.
func TestRunThirdSignalKillsAServerThatIgnoresThem(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	cmd, out, _ := runShell(t, srv.URL, "stubborn", `trap "" INT TERM; echo $$; while :; do sleep 0.1; done`)
	eventually(t, "the server to start", func() bool { return strings.Contains(out.String(), "\n") })
	// One signal at a time: each is sent once run said it forwarded the
	// one before (signals sent at once may arrive as one).
	for i := range 3 {
		cmd.Process.Signal(syscall.SIGINT) //nolint:errcheck
		if i < 2 {
			eventually(t, "run to forward the signal", func() bool {
				return strings.Count(out.String(), "forwarding signal") > i
			})
		}
	}
	if code := waitExit(t, cmd, out, 20*time.Second); code != 128+int(syscall.SIGKILL) {
		t.Errorf("run exit %d, want %d (killed)\n%s", code, 128+int(syscall.SIGKILL), out)
	}
	if l, _ := getLaunch(t, srv.URL, "stubborn"); l.Status != "exited" {
		t.Errorf("status after the operator's stop = %q, want exited", l.Status)
	}
}

func TestRunBadUsageIs4(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "--", "true"},
		{"run", "--launch", "x"},
		{"run", "--launch", "x", "--health-url", "http://127.0.0.1:1/health", "--health-every", "0", "--url", "http://127.0.0.1:1", "--", "true"},
		{"run", "--launch", "x", "--probe", "ftp://127.0.0.1/health", "--url", "http://127.0.0.1:1", "--", "true"},
		{"run", "--launch", "x", "--probe", "sometimes", "--url", "http://127.0.0.1:1", "--", "true"},
		{"run", "--launch", "x", "--probe", "auto", "--health-url", "http://127.0.0.1:1/health", "--url", "http://127.0.0.1:1", "--", "true"},
	} {
		if code, out := cli(t, args...); code != 4 || !strings.Contains(out, "launchwatch run") {
			t.Errorf("%v: exit %d, output %q; want 4 with a message", args, code, out)
		}
	}
}

// `launchwatch run ... | head`, or a log viewer that quits: the terminal
// side going away must not kill run (SIGPIPE) and orphan the server.
func TestRunSurvivesABrokenStdout(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // nobody reads run's output
	cmd := exec.Command(cliBin, "run", "--launch", "nopipe", "--url", srv.URL, "--", "sh", "-c", `sleep 0.5; echo one; echo two; exit 5`)
	cmd.Env = cleanEnv()
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if code := waitExit(t, cmd, &syncBuffer{}, 20*time.Second); code != 5 {
		t.Errorf("run exit %d (%v), want the child's 5", code, cmd.ProcessState)
	}
	if got := storedTexts(t, srv.URL, "nopipe"); len(got) != 2 {
		t.Errorf("stored lines = %q, want both", got)
	}
	if l, _ := getLaunch(t, srv.URL, "nopipe"); l.ExitCode == nil || *l.ExitCode != 5 {
		t.Errorf("launch = %+v, want exit code 5 reported", l)
	}
}

// The SSH session of `launchwatch run ... &` ends: the shell sends SIGHUP
// to its jobs. The server, in a process group of its own, would never see
// it and live on unwatched while run died without reporting anything.
func TestRunForwardsAHangup(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	cmd, out, _ := runShell(t, srv.URL, "hup", `echo $$; while :; do sleep 0.1; done`)
	eventually(t, "the server to start", func() bool { return strings.Contains(out.String(), "\n") })
	cmd.Process.Signal(syscall.SIGHUP) //nolint:errcheck
	if code := waitExit(t, cmd, out, 20*time.Second); code != 128+int(syscall.SIGHUP) {
		t.Errorf("run exit %d, want %d (the server's hangup)\n%s", code, 128+int(syscall.SIGHUP), out)
	}
	if l, _ := getLaunch(t, srv.URL, "hup"); l.Signal == nil || *l.Signal != "SIGHUP" {
		t.Errorf("launch = %+v, want the SIGHUP reported", l)
	}
}
