package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

func TestProcessReports(t *testing.T) {
	t.Parallel()

	t.Run("HeartbeatCreatesTheLaunch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		r := b.do("POST", "/api/v1/launches/hb/heartbeat?server=vllm", "", nil)
		if r.status != http.StatusOK || !strings.Contains(string(r.body), `"status":"starting"`) {
			t.Fatalf("heartbeat: %d %s", r.status, r.body)
		}
		if l := b.launch("hb"); l.Server != "vllm" || l.Status != "starting" {
			t.Errorf("launch = %+v", l)
		}
	})

	t.Run("PassingProbeMakesReady", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/probe/lines", "loading weights\n")
		b.report("/api/v1/launches/probe/health", `{"ok": false, "detail": "connection refused"}`, "starting")
		b.report("/api/v1/launches/probe/health", `{"ok": true, "detail": "HTTP 200"}`, "ready")
		events, err := b.store.Events(t.Context(), launchID(t, b, "probe"))
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 2 || events[0].Kind != "health_fail" || events[1].Kind != "health_ok" || events[1].Detail != "HTTP 200" {
			t.Errorf("events = %+v", events)
		}
	})

	t.Run("PassingProbeNeverHidesAFatalAlarm", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/both/lines?server=sglang", "Traceback (most recent call last):\n  File \"s.py\", line 1, in run\nRuntimeError: scheduler died\n")
		// The traceback is still settling: the probe may not make the launch
		// ready meanwhile (wait would exit 0 on a launch about to be alarm).
		b.report("/api/v1/launches/both/health", `{"ok": true}`, "starting")
		if l := b.settled("both"); l.Status != "alarm" {
			t.Errorf("settled status %q, want alarm", l.Status)
		}
	})

	t.Run("ExitIsDefinitive", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/e0/lines", "bye\n")
		b.report("/api/v1/launches/e0/exit", `{"code": 0}`, "exited")
		b.report("/api/v1/launches/e1/exit", `{"code": 1}`, "crashed")
		b.report("/api/v1/launches/e9/exit", `{"signal": "SIGKILL"}`, "crashed")
		b.report("/api/v1/launches/stop/exit", `{"signal": "SIGTERM", "requested": true}`, "exited")
		// Lines after the exit (the shipper's last batch) do not undo it.
		if ack := b.postText("/api/v1/launches/e0/lines", "The server is fired up and ready to roll!\n"); ack.Status != "exited" {
			t.Errorf("status after a late line = %q, want exited", ack.Status)
		}
	})

	t.Run("BadReports", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for _, tt := range []struct{ path, body, want string }{
			{"exit", `{}`, `either "code" or "signal"`},
			{"exit", `{"code": 1, "signal": "SIGKILL"}`, `either "code" or "signal"`},
			{"exit", `{"code": "1"}`, `"code" has the wrong type`},
			{"exit", `{"code": 300}`, "from 0 to 255"},
			{"exit", `{"signal": "kill -9"}`, "signal name"},
			{"exit", `{"code": 0, "extra": 1}`, "unknown field"},
			{"exit", `not json`, "expected JSON object"},
			{"health", `{}`, `"ok": true or false`},
			{"health", `{"ok": "yes"}`, `"ok" has the wrong type`},
		} {
			r := b.do("POST", "/api/v1/launches/bad/"+tt.path, "application/json", []byte(tt.body))
			if r.status != http.StatusBadRequest || !strings.Contains(errorMessage(t, r), tt.want) {
				t.Errorf("%s %s: got %d %s, want 400 with %q", tt.path, tt.body, r.status, r.body, tt.want)
			}
		}
		if b.exists("bad") {
			if l := b.launch("bad"); l.Status != "starting" {
				t.Errorf("bad reports changed the launch: %+v", l)
			}
		}
		// A NUL in a detail is stored, replaced, not a 500.
		b.report("/api/v1/launches/nul/health", `{"ok": false, "detail": "a\u0000b"}`, "starting")
	})
}

func TestSilentLaunch(t *testing.T) {
	t.Parallel()

	t.Run("QuietLoadingLaunchIsSilent", func(t *testing.T) {
		t.Parallel()
		b, fake := setupSilent(t)
		b.postText("/api/v1/launches/quiet/lines", "starting up\n")
		goQuiet(fake)
		if l := b.launch("quiet"); l.Status != "silent" {
			t.Errorf("status = %q, want silent", l.Status)
		}
	})

	t.Run("ReadyLaunchIsNeverSilent", func(t *testing.T) {
		t.Parallel()
		b, fake := setupSilent(t)
		b.postText("/api/v1/launches/done/lines?server=sglang", "The server is fired up and ready to roll!\n")
		goQuiet(fake)
		if l := b.launch("done"); l.Status != "ready" {
			t.Errorf("status = %q, want ready", l.Status)
		}
	})

	t.Run("RecentlyHeardIsNotSilent", func(t *testing.T) {
		t.Parallel()
		b := setup(t) // the default threshold, two minutes
		b.postText("/api/v1/launches/fresh/lines", "starting up\n")
		if l := b.launch("fresh"); l.Status != "starting" {
			t.Errorf("status = %q, want starting", l.Status)
		}
	})
}

func TestSilentLaunchInTheUI(t *testing.T) {
	t.Parallel()
	b, fake := setupSilent(t)
	b.postText("/api/v1/launches/mute/lines", "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n")
	goQuiet(fake)
	for _, path := range []string{"/", "/launches/mute"} {
		r := b.do("GET", path, "", nil)
		page := string(r.body)
		if r.status != http.StatusOK || !strings.Contains(page, `class="badge silent"`) ||
			!strings.Contains(page, `data-testid="no-data-since">no data since `) {
			t.Errorf("%s: %d, silent badge or 'no data since' missing", path, r.status)
		}
	}
}

// silentAfter is the silence threshold of setupSilent's server.
const silentAfter = time.Minute

// setupSilent is a server whose clock the test moves, so a launch goes
// silent when the test says, not after a sleep.
func setupSilent(t *testing.T) (*testBundle, *clock.Fake) {
	t.Helper()
	// From the wall clock's now: a launch row's creation time is the
	// database's, and silence counts from the latest of it and the lines.
	fake := clock.NewFake(time.Now())
	srv := webtest.Start(t, web.Config{SilentAfter: silentAfter}, webtest.WithClock(fake))
	return &testBundle{t: t, url: srv.URL, store: srv.Store, srv: srv}, fake
}

// goQuiet moves the server's clock past the silence threshold from now:
// the launch row's creation time is the database's wall clock, which ran
// on while the test server started.
func goQuiet(fake *clock.Fake) {
	fake.Advance(max(0, time.Since(fake.Now())) + silentAfter + time.Second)
}
