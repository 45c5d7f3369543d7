package main

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// A server that cannot be seen is never "still loading": wait exits 4
// whatever --timeout is, when nothing answers, when the server accepts
// and never answers, and when it was lost before the timeout.
func TestWaitUnreachableIs4WhateverTheTimeout(t *testing.T) {
	t.Parallel()

	t.Run("NothingListens", func(t *testing.T) {
		t.Parallel()
		code, out := cli(t, "wait", "x", "--url", "http://"+freeAddr(t), "--timeout", "2s")
		if code != 4 || !strings.Contains(out, "cannot reach the Launchwatch server") || strings.Contains(out, "TIMEOUT") {
			t.Errorf("exit %d, want 4\n%s", code, out)
		}
	})

	t.Run("AcceptsAndNeverAnswers", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		code, out := cli(t, "wait", "x", "--url", "http://"+ln.Addr().String(), "--timeout", "2s", "--json")
		if code != 4 || !strings.Contains(out, `"result":"unreachable"`) || !strings.Contains(out, `"wait_exit":4`) {
			t.Errorf("exit %d, want 4\n%s", code, out)
		}
	})

	t.Run("LostBeforeTheTimeout", func(t *testing.T) {
		t.Parallel()
		db := webtest.Start(t, web.Config{})
		addr := freeAddr(t)
		url := "http://" + addr
		w := startWebProcess(t, addr, db.DBURL)
		post(t, url, "lost", "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n")
		wait, out := startCLI(t, cleanEnv(), nil, "wait", "lost", "--url", url, "--timeout", "10s")
		eventually(t, "wait to follow the launch", func() bool { return strings.Contains(out.String(), "lost loading") })
		w.stop(t)
		if code := waitExit(t, wait, out, 30*time.Second); code != 4 ||
			!strings.Contains(out.String(), "lost the Launchwatch server") || !strings.Contains(out.String(), "last seen: loading") {
			t.Errorf("exit %d, want 4 saying the server was lost\n%s", code, out)
		}
	})
}

// wait's READY line gives the time to ready on the launch's clock (its
// ready time less its first line's, as the server reports them), not how
// long wait waited; --json gives wait's own code as wait_exit and the
// process's as exit_code. An exited launch is 1, ready before or not.
func TestWaitReportsTheLaunchsTimesAndCodes(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	post(t, srv.URL, "timed", "[2026-04-02 09:28:20] server_args=ServerArgs(model_path='m', tp_size=1, port=30000)\n"+
		"[2026-04-02 09:31:05] The server is fired up and ready to roll!\n")
	code, out := cli(t, "wait", "timed", "--url", srv.URL, "--timeout", "60s")
	if code != 0 || !strings.Contains(out, "READY timed: ready 2m45s after its first line (on the launch's clock)") {
		t.Errorf("exit %d, want 0 with the launch's time to ready\n%s", code, out)
	}
	code, out = cli(t, "wait", "timed", "--url", srv.URL, "--json")
	var ready map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &ready); err != nil || code != 0 ||
		ready["wait_exit"] != 0.0 || ready["exit_code"] != nil || ready["time_to_ready"] != 165.0 {
		t.Errorf("--json: exit %d, %v: %s", code, err, out)
	}

	exit := func(key, body string) {
		t.Helper()
		res, err := http.Post(srv.URL+"/api/v1/launches/"+key+"/exit", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	post(t, srv.URL, "served", "The server is fired up and ready to roll!\n")
	exit("served", `{"code":0}`)
	post(t, srv.URL, "never", "[2026-04-02 09:28:20] Load weight begin. avail mem=70.12 GB\n")
	exit("never", `{"code":0}`)
	for _, tc := range []struct{ key, detail string }{
		{"served", "the process was ready, and has ended since"},
		{"never", "the process ended before it was ready"},
	} {
		code, out := cli(t, "wait", tc.key, "--url", srv.URL, "--json")
		var m map[string]any
		if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &m); err != nil || code != 1 ||
			m["result"] != "exited" || m["wait_exit"] != 1.0 || m["exit_code"] != 0.0 || m["detail"] != tc.detail {
			t.Errorf("%s: exit %d, %v: %s", tc.key, code, err, out)
		}
	}
}
