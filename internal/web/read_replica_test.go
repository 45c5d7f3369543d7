package web_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"launchwatch/internal/store/storetest"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// Page reads come from a real streaming standby whose replay is paused:
// what was written since is not on the pages of anyone who did not write
// it, while the writer (a token deciding an alarm, a person adding a note)
// reads their own write from the primary — on this web process, and on
// another one given the answer's position (header or cookie). Once the
// standby replays again everyone sees everything; with the standby gone,
// the pages are served by the primary.
func TestPageReadsComeFromTheReplicaAndAWritersOwnFromThePrimary(t *testing.T) {
	t.Parallel()
	pair := storetest.NewPair(t)
	srv := webtest.Start(t, web.Config{}, webtest.WithDatabases(pair.PrimaryURL(), pair.StandbyURL()))
	b := &testBundle{t: t, url: srv.URL, store: srv.Store, srv: srv}
	// Another web process on the same databases.
	other := webtest.Start(t, web.Config{}, webtest.WithDatabases(pair.PrimaryURL(), pair.StandbyURL()), webtest.WithoutAccounts())
	ob := &testBundle{t: t, url: other.URL, store: other.Store, srv: other}

	b.postText("/api/v1/launches/rr/lines?server=sglang", crashingLog)
	reviewer, reader := srv.NewToken(t, "review"), srv.NewToken(t, "read")
	s1, s2 := srv.Session(t, "writer", "reviewer"), srv.Session(t, "bystander", "reviewer")
	pair.WaitReplayed()
	pair.PauseReplay()

	alarmState := func(b *testBundle, token string, headers ...string) string {
		t.Helper()
		r := b.do("GET", "/api/v1/launches/rr?wait=0", "", nil, append([]string{"Authorization", "Bearer " + token}, headers...)...)
		if r.status != 200 {
			t.Fatalf("GET launch: %d %s", r.status, r.body)
		}
		var l struct {
			Alarms []struct {
				State string `json:"state"`
			} `json:"alarms"`
		}
		if err := json.Unmarshal(r.body, &l); err != nil || len(l.Alarms) == 0 {
			t.Fatalf("launch %s: %v", r.body, err)
		}
		return l.Alarms[0].State
	}
	if got := alarmState(b, reader); got != "open" {
		t.Fatalf("alarm 1 is %q before any decision", got)
	}

	// Written while the standby does not replay.
	b.postText("/api/v1/launches/rr-later/lines", "a launch the standby has not replayed\n")
	if r := b.do("GET", "/api/v1/launches/rr-later", "", nil, "Authorization", "Bearer "+reader); r.status != 404 {
		t.Errorf("a launch the standby lacks is answered %d to a reader, want 404 (the page reads are the standby's)", r.status)
	}
	if r := b.do("GET", "/api/v1/launches", "", nil, "Authorization", "Bearer "+reader); strings.Contains(string(r.body), "rr-later") {
		t.Errorf("the list of launches shows a launch the standby lacks: %s", r.body)
	}
	if r := b.do("GET", "/api/v1/launches/rr-later/seqs", "", nil); r.status != 200 {
		t.Errorf("/seqs of a launch the standby lacks: %d, want 200 (the primary's)", r.status)
	}
	decided := b.do("POST", "/api/v1/launches/rr/alarms/1/decision", "application/json",
		[]byte(`{"verdict": "dismiss", "reason": "a drill"}`), "Authorization", "Bearer "+reviewer)
	if decided.status != 200 {
		t.Fatalf("decision: %d %s", decided.status, decided.body)
	}
	after := decided.header.Get(web.ReadAfterHeader)
	if after == "" {
		t.Fatalf("the decision's answer has no %s header", web.ReadAfterHeader)
	}
	if got := alarmState(b, reviewer); got != "dismissed" {
		t.Errorf("the reviewer reads alarm 1 as %q after dismissing it, want dismissed (its own write)", got)
	}
	if got := alarmState(b, reader); got != "open" {
		t.Errorf("a reader who wrote nothing reads alarm 1 as %q, want open (from the paused standby)", got)
	}
	if got := alarmState(ob, reviewer, web.ReadAfterHeader, after); got != "dismissed" {
		t.Errorf("another web process given the write's position reads %q, want dismissed", got)
	}

	// A person's note, from the page's form.
	res := b.postForm("/launches/rr/annotations", url.Values{"body": {"read your own notes"}}, false,
		&http.Cookie{Name: "lw_session", Value: s1})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("note: %d %s", res.StatusCode, readBody(t, res))
	}
	var cookie *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "lw_read_after" {
			cookie = c
		}
	}
	if cookie == nil {
		t.Fatal("the note's answer sets no lw_read_after cookie")
	}
	notes := func(b *testBundle, cookies ...string) int {
		t.Helper()
		r := b.do("GET", "/launches/rr", "", nil, "Authorization", "", "Cookie", strings.Join(cookies, "; "))
		if r.status != 200 {
			t.Fatalf("launch page: %d", r.status)
		}
		return strings.Count(string(r.body), "read your own notes")
	}
	if n := notes(b, "lw_session="+s1); n == 0 {
		t.Error("the note's writer does not see it on the launch page")
	}
	if n := notes(b, "lw_session="+s2); n != 0 {
		t.Error("another person sees the note the paused standby lacks")
	}
	if n := notes(ob, "lw_session="+s1, "lw_read_after="+cookie.Value); n == 0 {
		t.Error("another web process does not honour the writer's lw_read_after cookie")
	}
	if n := notes(ob, "lw_session="+s1); n != 0 {
		t.Error("another web process without the cookie should read the standby")
	}

	// Every page read served by the standby answers (one connection of it
	// serves a request's reads, one after the other).
	for _, path := range []string{"/", "/?q=rr", "/launches/rr", "/launches/rr?q=Traceback", "/launches/rr/config",
		"/launches/rr/alarms/1/context", "/launches/rr/alarms", "/compare?a=rr&b=rr", "/api/v1/launches?q=rr", "/api/v1/launches/rr/lines?limit=5"} {
		if r := b.do("GET", path, "", nil, "Authorization", "Bearer "+reader); r.status != 200 {
			t.Errorf("GET %s from the standby: %d %s", path, r.status, r.body)
		}
	}

	pair.ResumeReplay()
	pair.WaitReplayed()
	if got := alarmState(b, reader); got != "dismissed" {
		t.Errorf("after the standby replayed, a reader reads alarm 1 as %q", got)
	}
	if n := notes(b, "lw_session="+s2); n == 0 {
		t.Error("after the standby replayed, another person does not see the note")
	}

	// The standby dies: the page reads are the primary's, without a 5xx.
	if err := pair.Standby.Kill(); err != nil {
		t.Fatal(err)
	}
	if got := alarmState(b, reader); got != "dismissed" {
		t.Errorf("with the standby gone, a reader reads alarm 1 as %q", got)
	}
	if r := b.do("GET", "/api/v1/launches/rr-later", "", nil, "Authorization", "Bearer "+reader); r.status != 200 {
		t.Errorf("with the standby gone, GET launch: %d %s", r.status, r.body)
	}
	if n := notes(b, "lw_session="+s2); n == 0 {
		t.Error("with the standby gone, the launch page lacks the note")
	}
}
