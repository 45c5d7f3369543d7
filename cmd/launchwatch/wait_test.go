package main

import (
	"bytes"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"launchwatch/internal/review"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

func post(t *testing.T, url, key, body string) {
	t.Helper()
	res, err := http.Post(url+"/api/v1/launches/"+key+"/lines?server=sglang", "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("post: %d", res.StatusCode)
	}
}

// syncBuffer is a bytes.Buffer a child process writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestWaitExitCodes(t *testing.T) {
	t.Parallel()

	t.Run("ReadyIs0EvenForALaunchThatDoesNotExistYet", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		cmd := exec.Command(cliBin, "wait", "later", "--url", srv.URL, "--timeout", "60s")
		cmd.Env = cleanEnv()
		var out syncBuffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		eventually(t, "wait to see that the launch is absent", func() bool {
			return strings.Contains(out.String(), "waiting for launch later to appear")
		})
		post(t, srv.URL, "later", "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n")
		post(t, srv.URL, "later", "[2026-04-02 09:29:20] The server is fired up and ready to roll!\n")
		cmd.Wait() //nolint:errcheck
		if code := cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(out.String(), "READY later") ||
			!strings.Contains(out.String(), "waiting for launch later to appear") {
			t.Errorf("exit %d, output:\n%s", code, out.String())
		}
	})

	t.Run("FatalAlarmIs1WithHeadlineAndURL", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		post(t, srv.URL, "dead", "Traceback (most recent call last):\n  File \"s.py\", line 3, in run\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB\n")
		code, out := cli(t, "wait", "dead", "--url", srv.URL, "--timeout", "60s")
		if code != 1 || !strings.Contains(out, "torch.OutOfMemoryError: CUDA out of memory") || !strings.Contains(out, srv.URL+"/launches/dead") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
	})

	t.Run("FailOnConfirmedKeepsWaitingOnAnOpenAlarm", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		post(t, srv.URL, "doubt", "Traceback (most recent call last):\n  File \"s.py\", line 3, in run\nValueError: bad\n")
		code, out := cli(t, "wait", "doubt", "--url", srv.URL, "--fail-on", "confirmed", "--timeout", "2s")
		if code != 2 || !strings.Contains(out, "TIMEOUT doubt") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
	})

	t.Run("StillLoadingAtTimeoutIs2", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		post(t, srv.URL, "slow", "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n")
		start := time.Now()
		code, out := cli(t, "wait", "slow", "--url", srv.URL, "--timeout", "1s")
		// How long wait waited is no time of the launch: the line names its clock.
		if code != 2 || !strings.Contains(out, "TIMEOUT slow: still loading (weights) after waiting ") || !strings.Contains(out, "(this machine's clock)") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
		if time.Since(start) > 20*time.Second {
			t.Errorf("wait --timeout 1s took %s", time.Since(start))
		}
	})

	t.Run("SilentIs3", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{SilentAfter: 500 * time.Millisecond})
		post(t, srv.URL, "quiet", "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n")
		code, out := cli(t, "wait", "quiet", "--url", srv.URL, "--timeout", "60s")
		if code != 3 || !strings.Contains(out, "SILENT quiet") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
	})

	t.Run("ExitedAfterReadyIs1AndSaysSo", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		post(t, srv.URL, "done", "The server is fired up and ready to roll!\n")
		res, err := http.Post(srv.URL+"/api/v1/launches/done/exit", "application/json", strings.NewReader(`{"code":0}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		code, out := cli(t, "wait", "done", "--url", srv.URL, "--timeout", "60s")
		if code != 1 || !strings.Contains(out, "EXITED done") || strings.Contains(out, "before it was ready") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
	})

	t.Run("UnreachableIs4", func(t *testing.T) {
		t.Parallel()
		start := time.Now()
		code, out := cli(t, "wait", "x", "--url", "http://"+freeAddr(t), "--give-up-after", "2s")
		if code != 4 || !strings.Contains(out, "cannot reach the Launchwatch server") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
		if time.Since(start) > 20*time.Second {
			t.Errorf("took %s to give up", time.Since(start))
		}
	})

	t.Run("BadUsageIs4", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{{"wait"}, {"wait", "a", "b"}, {"wait", "a", "--fail-on", "never"}, {"wait", "a", "--bogus"}} {
			if code, out := cli(t, args...); code != 4 {
				t.Errorf("%v: exit %d, output %q; want 4", args, code, out)
			}
		}
	})

	t.Run("JSONOutput", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		post(t, srv.URL, "js", "The server is fired up and ready to roll!\n")
		code, out := cli(t, "wait", "js", "--url", srv.URL, "--json")
		// wait's own exit code is wait_exit; exit_code is the process's (none yet).
		if code != 0 || !strings.Contains(out, `"result":"ready"`) || !strings.Contains(out, `"wait_exit":0`) ||
			!strings.Contains(out, `"exit_code":null`) {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
	})
}

func TestRunThenWaitReplacesThePollingLoop(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	cmd, _ := runChild(t, srv.URL, "loop", []string{"LW_CHILD=traceback"})
	code, out := cli(t, "wait", "loop", "--url", srv.URL, "--timeout", "60s", "--fail-on", "confirmed")
	cmd.Wait() //nolint:errcheck
	if code != 1 || !strings.Contains(out, "CRASHED loop") {
		t.Errorf("wait: exit %d, output:\n%s", code, out)
	}
}

// A fatal-looking alarm that a suppression rule hides leaves the launch
// starting: wait says so when it ends, and --fail-on suppressed fails on it.
func TestWaitSuppressedFatalAlarm(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	if _, _, err := review.SaveRule(t.Context(), srv.Store, review.RuleDraft{Matcher: "substring",
		Pattern: "CUDA out of memory", Scope: "all", Reason: "the probe's OOM is expected", Author: "ada", Admin: true}); err != nil {
		t.Fatal(err)
	}
	post(t, srv.URL, "hidden", "Traceback (most recent call last):\n  File \"s.py\", line 3, in run\ntorch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB\n")

	code, out := cli(t, "wait", "hidden", "--url", srv.URL, "--fail-on", "suppressed", "--timeout", "60s")
	if code != 1 || !strings.Contains(out, "SUPPRESSED hidden") || !strings.Contains(out, "suppressed by rule #1") ||
		!strings.Contains(out, "torch.OutOfMemoryError: CUDA out of memory") {
		t.Errorf("--fail-on suppressed: exit %d, output:\n%s", code, out)
	}
	code, out = cli(t, "wait", "hidden", "--url", srv.URL, "--timeout", "2s")
	if code != 2 || !strings.Contains(out, "TIMEOUT hidden") ||
		!strings.Contains(out, "alarm 1, suppressed by rule #1: torch.OutOfMemoryError: CUDA out of memory") {
		t.Errorf("default --fail-on: exit %d, output:\n%s", code, out)
	}
	code, out = cli(t, "wait", "hidden", "--url", srv.URL, "--timeout", "2s", "--json")
	if code != 2 || !strings.Contains(out, `"suppressed_fatal":[{"no":1,"rule_id":1,`) {
		t.Errorf("--json: exit %d, output:\n%s", code, out)
	}
}
