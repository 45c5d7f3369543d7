package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"launchwatch/internal/store"
	"launchwatch/internal/web/webtest"
)

// TestLaunchDelete deletes launches through the API and the page's form:
// the launch and its lines go, the deletion is audited with who did it and
// what went, a repeat is a 404, and a form without the typed key deletes
// nothing.
func TestLaunchDelete(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	t.Run("API", func(t *testing.T) {
		b.postText("/api/v1/launches/del-api/lines?server=vllm", "INFO starting engine\nINFO loading weights\nINFO Application startup complete.\n")
		if r := b.do("DELETE", "/api/v1/launches/del-api", "", nil); r.status != http.StatusNoContent {
			t.Fatalf("DELETE: %d %s, want 204", r.status, r.body)
		}
		if r := b.do("GET", "/api/v1/launches/del-api?wait=0", "", nil); r.status != http.StatusNotFound {
			t.Errorf("GET after DELETE: %d, want 404", r.status)
		}
		if r := b.do("DELETE", "/api/v1/launches/del-api", "", nil); r.status != http.StatusNotFound {
			t.Errorf("second DELETE: %d, want 404", r.status)
		}
		if r := b.do("DELETE", "/api/v1/launches/never-was", "", nil); r.status != http.StatusNotFound {
			t.Errorf("DELETE of an unknown launch: %d, want 404", r.status)
		}
		events, err := b.store.AuditFor(ctx, store.LaunchSubject("del-api"))
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || events[0].Action != "launch.delete" || events[0].Actor != "token:bootstrap" {
			t.Fatalf("audit of the deletion: %+v, want one launch.delete by token:bootstrap", events)
		}
		d := events[0].Detail
		if d["launch"] != "del-api" || d["server"] != "vllm" || d["lines"] != float64(3) {
			t.Errorf("audit detail %v, want launch del-api, server vllm, 3 lines", d)
		}
	})

	t.Run("Form", func(t *testing.T) {
		b.postText("/api/v1/launches/del-form/lines", "INFO one line\n")
		page := b.do("GET", "/launches/del-form", "", nil)
		if !strings.Contains(string(page.body), `data-testid="delete-form"`) {
			t.Fatal("the launch page shows an admin no delete form")
		}
		res := b.postForm("/launches/del-form/delete", url.Values{"confirm": {"del-for"}}, false)
		if res.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("delete with a mistyped key: %d, want 422", res.StatusCode)
		}
		if _, err := b.store.LaunchByKey(ctx, "del-form"); err != nil {
			t.Fatalf("a mistyped confirmation deleted the launch: %v", err)
		}
		res = b.postForm("/launches/del-form/delete", url.Values{"confirm": {"del-form"}}, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("delete: %d, want 303", res.StatusCode)
		}
		if _, err := b.store.LaunchByKey(ctx, "del-form"); err != store.ErrNotFound {
			t.Fatalf("launch after its deletion: %v, want not found", err)
		}
		events, err := b.store.AuditFor(ctx, store.LaunchSubject("del-form"))
		if err != nil || len(events) != 1 || events[0].Actor != "ada" {
			t.Fatalf("audit: %+v %v, want one event by ada", events, err)
		}
	})

	t.Run("ControlsFollowTheRole", func(t *testing.T) {
		b.postText("/api/v1/launches/del-roles/lines", "INFO one line\n")
		for role, want := range map[string][2]bool{"viewer": {false, false}, "reviewer": {true, false}} {
			cookie := &http.Cookie{Name: "lw_session", Value: b.srv.Session(t, "del-"+role, role)}
			req, _ := http.NewRequest("GET", b.url+"/launches/del-roles", nil)
			req.AddCookie(cookie)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body := readBody(t, res)
			got := [2]bool{strings.Contains(body, `data-testid="pin-form"`), strings.Contains(body, `data-testid="delete-form"`)}
			if got != want {
				t.Errorf("%s sees pin form, delete form = %v, want %v", role, got, want)
			}
		}
	})

	t.Run("KeyReusedAfterDelete", func(t *testing.T) {
		// A decision on the old launch's alarm must not show on a new
		// launch of the same key: the audit log outlives the launch.
		b.postText("/api/v1/launches/del-reuse/lines", crashingLog)
		for _, verdict := range []string{"confirm", "dismiss"} { // two decisions: the card lists its history
			b.apiJSON("POST", "/api/v1/launches/del-reuse/alarms/1/decision", webtest.AdminToken,
				`{"verdict":"`+verdict+`","reason":"known flaky probe"}`, 200)
		}
		if page := string(b.do("GET", "/launches/del-reuse", "", nil).body); !strings.Contains(page, "known flaky probe") {
			t.Fatal("the launch page does not show its alarm's decisions")
		}
		b.do("DELETE", "/api/v1/launches/del-reuse", "", nil)
		b.postText("/api/v1/launches/del-reuse/lines", crashingLog)
		page := string(b.do("GET", "/launches/del-reuse", "", nil).body)
		if strings.Contains(page, "known flaky probe") {
			t.Error("the new launch's page shows the deleted launch's decision")
		}
	})
}
