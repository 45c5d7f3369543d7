package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
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
			t.Errorf("alarms = %+v", l.Alarms)
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
