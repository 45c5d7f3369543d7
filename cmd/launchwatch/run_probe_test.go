package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// freePort is a port nothing listens on, as a string.
func freePort(t *testing.T) string {
	t.Helper()
	_, port, err := net.SplitHostPort(freeAddr(t))
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// stopRun ends `launchwatch run` as an operator does (SIGTERM), waits for
// it and returns its exit code.
func stopRun(t *testing.T, run *exec.Cmd, out fmt.Stringer) int {
	t.Helper()
	run.Process.Signal(syscall.SIGTERM) //nolint:errcheck
	return waitExit(t, run, out, 20*time.Second)
}

// `launchwatch run --probe auto` (the default) probes what it starts.
func TestRunProbesWhatItStarts(t *testing.T) {
	t.Parallel()

	// The case: python's http.server takes its port as a bare
	// argument, prints nothing a pack knows (and buffers what it prints:
	// nothing reaches the log before it exits), and answers 404 on /health
	// and /v1/models and 200 on /. The socket its process listens on
	// (/proc) is all run knows, and the probe alone makes it ready.
	t.Run("PythonHTTPServerIsReadyByTheProbeAlone", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		port := freePort(t)
		// As a server under a pipe runs: stdout buffered; and no PORT the
		// test's environment may hold names a port for it.
		env := append(cleanEnv(), "PYTHONUNBUFFERED=", "PORT=")
		run, out := startCLI(t, env, nil, "run", "--launch", "pyhttp", "--url", srv.URL, "--health-every", "100ms",
			"--", "python3", "-m", "http.server", port, "--bind", "127.0.0.1")
		eventually(t, "ready by the probe", func() bool {
			l, _ := getLaunch(t, srv.URL, "pyhttp")
			return l.Status == "ready"
		})
		l, _ := getLaunch(t, srv.URL, "pyhttp")
		if l.ReadySeq != nil {
			t.Errorf("ready_seq %d: the log made it ready, not the probe", *l.ReadySeq)
		}
		if want := "http://127.0.0.1:" + port + "/: HTTP 200 (a port the process listens on)"; !strings.Contains(out.String(), want) {
			t.Errorf("run does not say what passed (%q):\n%s", want, out)
		}
		code := stopRun(t, run, out)
		if code != 0 && code != 128+int(syscall.SIGTERM) {
			t.Errorf("run exit %d, want http.server's own (0 or 143)", code)
		}
		if l, _ := getLaunch(t, srv.URL, "pyhttp"); l.Status != "exited" {
			t.Errorf("status after the operator's stop = %q, want exited", l.Status)
		}
	})

	// A port named on the command line is probed (and the ports the tree
	// listens on that are not named are not).
	t.Run("APortNamedOnTheCommandLine", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		port := freePort(t)
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		env := append(cleanEnv(), "LW_CHILD=healthy", "LW_CHILD_ADDR=127.0.0.1:"+port)
		run, out := startCLI(t, env, nil, "run", "--launch", "named", "--server", "vllm", "--url", srv.URL, "--health-every", "100ms",
			"--", self, "--model", "m", "--port", port)
		eventually(t, "ready by the probe", func() bool {
			l, _ := getLaunch(t, srv.URL, "named")
			return l.Status == "ready"
		})
		if want := "http://127.0.0.1:" + port + "/health: HTTP 200 (named by its command line or PORT=)"; !strings.Contains(out.String(), want) {
			t.Errorf("run does not say what passed (%q):\n%s", want, out)
		}
		if code := stopRun(t, run, out); code != 0 {
			t.Errorf("run exit %d, want the child's 0", code)
		}
	})

	// An endpoint the log announced is probed: here the address is served
	// by this test, not by the child's tree, so only the log names it.
	// SGLang's uvicorn line is no readiness (its warmup comes after), so
	// only the probe makes the launch ready.
	t.Run("AnEndpointTheLogAnnounced", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/health" {
				http.NotFound(w, r)
			}
		}))
		t.Cleanup(api.Close)
		_, port, _ := net.SplitHostPort(strings.TrimPrefix(api.URL, "http://"))
		stdin, feed := io.Pipe()
		run, out := startCLI(t, append(cleanEnv(), "PORT="), stdin, "run", "--launch", "announced", "--server", "sglang", "--url", srv.URL,
			"--health-every", "100ms", "--", "sh", "-c", `echo "[2026-04-02 09:30:00] INFO:     Uvicorn running on http://0.0.0.0:`+port+` (Press CTRL+C to quit)"; read x; exit 0`)
		eventually(t, "ready by the probe", func() bool {
			l, _ := getLaunch(t, srv.URL, "announced")
			return l.Status == "ready"
		})
		if l, _ := getLaunch(t, srv.URL, "announced"); l.ReadySeq != nil {
			t.Errorf("ready_seq %d: the log made it ready, not the probe", *l.ReadySeq)
		}
		if want := "http://127.0.0.1:" + port + "/health: HTTP 200 (announced in the log)"; !strings.Contains(out.String(), want) {
			t.Errorf("run does not say what passed (%q):\n%s", want, out)
		}
		feed.Close()
		if code := waitExit(t, run, out, 20*time.Second); code != 0 {
			t.Errorf("run exit %d, want the child's 0", code)
		}
	})

	// The engine dies while the API server's /health keeps answering 200:
	// the launch is alarm (the probe hides nothing), and the probe that
	// keeps passing is recorded on the fatal alarm.
	t.Run("AProbeStillPassingAfterTheEngineDiedIsRecorded", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		addr := freeAddr(t)
		cmd, out := runChild(t, srv.URL, "zombie", []string{"LW_CHILD=zombie", "LW_CHILD_ADDR=" + addr}, "--health-every", "100ms")
		eventually(t, "the passing probe recorded on the fatal alarm", func() bool {
			l, _ := getLaunch(t, srv.URL, "zombie")
			for _, a := range l.Alarms {
				if a.Fatal && a.HealthAfterDeath != nil {
					return l.Status == "alarm" && strings.Contains(a.HealthAfterDeath.Detail, "/health: HTTP 200")
				}
			}
			return false
		})
		stopRun(t, cmd, out)
	})

	// --probe off probes nothing, even a server that listens: only the
	// log can make the launch ready.
	t.Run("ProbeOff", func(t *testing.T) {
		t.Parallel()
		srv := webtest.Start(t, web.Config{})
		addr := freeAddr(t)
		cmd, out := runChild(t, srv.URL, "off", []string{"LW_CHILD=zombie", "LW_CHILD_ADDR=" + addr},
			"--probe", "off", "--health-every", "100ms")
		// The child prints its engine's death once something asks its
		// /health: nobody does, so it prints its first line alone.
		eventually(t, "the first line", func() bool {
			l, _ := getLaunch(t, srv.URL, "off")
			return l.LastSeq == 1
		})
		code := stopRun(t, cmd, out)
		if l, _ := getLaunch(t, srv.URL, "off"); code != 0 || l.LastSeq != 1 || l.Status != "exited" {
			t.Errorf("run exit %d, launch %+v: want exit 0, exited with the one line (nothing probed)", code, l)
		}
	})
}

// A launch run without --server takes its family from its lines.
func TestRunWithoutServerTakesTheDetectedFamily(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	code, out := cli(t, "run", "--launch", "fam", "--url", srv.URL, "--", "sh", "-c",
		`echo "[2026-04-02 09:28:20] server_args=ServerArgs(model_path='m', tp_size=1)"; echo "[2026-04-02 09:28:21 TP0] Load weight begin."`)
	if code != 0 {
		t.Fatalf("run exit %d\n%s", code, out)
	}
	if l, _ := getLaunch(t, srv.URL, "fam"); l.Server != "sglang" {
		t.Errorf("server %q, want sglang (detected)", l.Server)
	}
}

// `ship` without --server sends none (an empty one would override what
// the server detects), and the server names the launch's family from its
// lines: server-scoped rules and webhooks match it.
func TestShipWithoutServerTakesTheDetectedFamily(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	for key, tc := range map[string]struct{ log, want string }{
		"v": {"../../testdata/families/r-vllm-v1-ready-device-side-assert-engine-dead-01.log", "vllm"},
		"s": {"../../testdata/families/b-sglang-pd-prefill-dp-attention-ready-01.log", "sglang"},
	} {
		shipOnce(t, srv.URL, key, tc.log, "--state-file", t.TempDir()+"/state")
		if l, _ := getLaunch(t, srv.URL, key); l.Server != tc.want {
			t.Errorf("%s shipped without --server: server %q, want %q", tc.log, l.Server, tc.want)
		}
	}
}
