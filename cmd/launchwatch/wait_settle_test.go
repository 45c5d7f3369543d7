package main

import (
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// Made-up lines of a vLLM launch whose weight store refuses a connection.
const (
	waitLoading   = "INFO 04-02 09:28:20 [loader.py:88] Loading weights took 4.20 seconds\n"
	waitFrames    = "Traceback (most recent call last):\n  File \"/srv/fetch.py\", line 41, in fetch\n    blob = store.get(name)\n"
	waitFinal     = "RuntimeError: shard store at 10.1.2.3:9000 refused the connection\n"
	waitRetry     = "Retrying in 2 seconds (attempt 1/5)\n"
	waitReadyLine = "INFO:     Application startup complete.\n"
)

// settlingWait starts `launchwatch wait KEY` against a server on a fake
// clock, once KEY has a first line, and returns when wait follows it.
func settlingWait(t *testing.T, key string) (*webtest.Server, *clock.Fake, *syncBuffer, <-chan int) {
	t.Helper()
	fake := clock.NewFake(time.Now())
	srv := webtest.Start(t, web.Config{}, webtest.WithClock(fake))
	postVLLM(t, srv.URL, key, waitLoading)
	cmd := exec.Command(cliBin, "wait", key, "--url", srv.URL, "--timeout", "60s")
	cmd.Env = cleanEnv()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		cmd.Wait() //nolint:errcheck
		done <- cmd.ProcessState.ExitCode()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill() //nolint:errcheck
		<-exited
		if t.Failed() {
			t.Logf("wait output:\n%s", out.String())
		}
	})
	eventually(t, "wait to follow the launch", func() bool { return strings.Contains(out.String(), key+" ") })
	return srv, fake, out, done
}

func postVLLM(t *testing.T, url, key, body string) {
	t.Helper()
	res, err := http.Post(url+"/api/v1/launches/"+key+"/lines?server=vllm", "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("post: %d", res.StatusCode)
	}
}

// waitCode returns wait's exit code, failing the test after 30 s.
func waitCode(t *testing.T, done <-chan int) int {
	t.Helper()
	select {
	case code := <-done:
		return code
	case <-time.After(30 * time.Second):
		t.Fatal("wait did not exit")
		return -1
	}
}

func TestWaitActsOnSettledVerdicts(t *testing.T) {
	t.Parallel()

	t.Run("PrintsTheFinalExceptionLineOnceTheAlarmSettled", func(t *testing.T) {
		t.Parallel()
		srv, fake, out, done := settlingWait(t, "hl")
		// The traceback arrives in two batches: its first line, then the
		// final exception line that becomes the headline.
		postVLLM(t, srv.URL, "hl", waitFrames)
		postVLLM(t, srv.URL, "hl", waitFinal)
		select {
		case code := <-done:
			t.Fatalf("wait exited %d before the alarm settled", code)
		default:
		}
		fake.Advance(2 * time.Second) // the settler settles it and says so
		code := waitCode(t, done)
		text := out.String()
		if code != 1 || !strings.Contains(text, "ALARM hl: RuntimeError: shard store at 10.1.2.3:9000 refused the connection") ||
			strings.Contains(text, "Traceback (most recent call last)") {
			t.Errorf("exit %d, output:\n%s\nwant 1 and the final exception line as the headline", code, text)
		}
	})

	t.Run("ARetriedTracebackNeverMakesItExit1", func(t *testing.T) {
		t.Parallel()
		srv, fake, out, done := settlingWait(t, "flick")
		postVLLM(t, srv.URL, "flick", waitFrames)
		postVLLM(t, srv.URL, "flick", waitFinal)
		postVLLM(t, srv.URL, "flick", waitRetry) // the next batch withdraws it
		fake.Advance(5 * time.Second)
		postVLLM(t, srv.URL, "flick", waitReadyLine)
		if code := waitCode(t, done); code != 0 || !strings.Contains(out.String(), "READY flick") {
			t.Errorf("exit %d, output:\n%s\nwant 0 ready", code, out.String())
		}
	})

	t.Run("AnExitReportSettlesAtOnce", func(t *testing.T) {
		t.Parallel()
		srv, _, out, done := settlingWait(t, "gone")
		postVLLM(t, srv.URL, "gone", waitFrames+waitFinal)
		res, err := http.Post(srv.URL+"/api/v1/launches/gone/exit", "application/json", strings.NewReader(`{"code":1}`))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		code := waitCode(t, done) // no clock moved: the exit alone settles it
		if code != 1 || !strings.Contains(out.String(), "CRASHED gone: RuntimeError: shard store") {
			t.Errorf("exit %d, output:\n%s", code, out.String())
		}
	})
}
