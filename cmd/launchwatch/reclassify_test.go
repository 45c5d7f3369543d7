package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// acmeLog is a launch of a server no pack knows; nothing recognises its
// ready line (the fourth) until a team teaches it.
const acmeLog = `2026-11-29 10:00:00 acme-serve 2.1 starting (model=/models/acme-7b)
2026-11-29 10:00:01 Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:10<00:10,  5.0s/it]
2026-11-29 10:00:02 Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:20<00:00,  5.0s/it]
2026-11-29 10:00:40 acme-serve: engine warm, all 4 workers answering
`

func launchStatus(t *testing.T, url, key string) string {
	t.Helper()
	res, err := http.Get(url + "/api/v1/launches/" + key)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var l struct {
		Status string `json:"status"`
	}
	if err := json.NewDecoder(res.Body).Decode(&l); err != nil {
		t.Fatal(err)
	}
	return l.Status
}

func TestReclassifyCommand(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	for _, key := range []string{"acme-1", "acme-2"} {
		res, err := http.Post(srv.URL+"/api/v1/launches/"+key+"/lines?server=acme-serve", "text/plain", strings.NewReader(acmeLog))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	res, err := http.Post(srv.URL+"/api/v1/launches/other-1/lines?server=other", "text/plain", strings.NewReader(acmeLog))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	// Taught without applying it to stored launches.
	res, err = http.Post(srv.URL+"/api/v1/signatures", "application/json", strings.NewReader(`{"meaning":"ready","matcher":"template",
		"pattern":"acme-serve: engine warm, all <num> workers answering","scope":"server","scope_value":"acme-serve","reason":"warm workers answer"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("signature: %d", res.StatusCode)
	}
	args := []string{"reclassify", "--url", srv.URL, "--token", webtest.AdminToken, "--server", "acme-serve", "--since", "1h"}
	code, out, errOut := runCmd(append(args, "--dry-run")...)
	if code != 0 || !strings.Contains(out, "acme-1 loading → ready") || !strings.Contains(out, "acme-2 loading → ready") ||
		!strings.Contains(out, "2 launches read, 2 would change, 0 failed") || strings.Contains(out, "other-1") ||
		!strings.Contains(errOut, "[1/2] acme-2: loading → ready") || !strings.Contains(errOut, "[2/2] acme-1") {
		t.Fatalf("--dry-run: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if st := launchStatus(t, srv.URL, "acme-1"); st != "loading" {
		t.Fatalf("--dry-run changed acme-1: %s", st)
	}
	code, out, errOut = runCmd(args...)
	if code != 0 || !strings.Contains(out, "2 launches read, 2 reclassified, 0 failed") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, key := range []string{"acme-1", "acme-2"} {
		if st := launchStatus(t, srv.URL, key); st != "ready" {
			t.Errorf("%s %s after reclassify, want ready", key, st)
		}
	}
	// Again: nothing changes; a named launch; an unknown one fails.
	code, out, _ = runCmd(args...)
	if code != 0 || !strings.Contains(out, "2 launches read, 0 reclassified") {
		t.Errorf("again: exit %d\n%s", code, out)
	}
	code, out, errOut = runCmd("reclassify", "--url", srv.URL, "--token", webtest.AdminToken, "other-1", "nope")
	if code != 1 || !strings.Contains(out, "2 launches read, 0 reclassified, 1 failed") || !strings.Contains(errOut, "nope") {
		t.Errorf("named: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runCmd("reclassify", "--url", srv.URL, "--since", "yesterday"); code != 2 || !strings.Contains(errOut, "since") {
		t.Errorf("bad --since: exit %d %s", code, errOut)
	}
	if code, _, _ := runCmd("reclassify", "--url", "http://127.0.0.1:1", "--token", "x"); code != exitUnreachable {
		t.Errorf("unreachable: exit %d", code)
	}
}
