package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// routeNeeds is what every route needs, written down apart from the
// server's own table: a route registered without an entry here fails
// TestEveryRouteHasItsPolicy, so no route is added without a decision on
// who may use it. Levels: public, ingest, status (ingest or read), read,
// review, admin.
var routeNeeds = map[string]string{
	"GET /healthz": "public", "GET /readyz": "public",
	"GET /login": "public", "POST /login": "public", "GET /setup": "public", "POST /setup": "public",
	"POST /logout": "read",

	"GET /": "read", "GET /launches/:key": "read", "GET /launches/:key/tail": "read",
	"GET /launches/:key/alarms/:no/context": "read", "GET /launches/:key/alarms": "read", "GET /launches/:key/config": "read",
	"GET /launches/:key/volume":             "read",
	"POST /launches/:key/alarms/:no/decide": "review", "POST /launches/:key/annotations": "review",
	"POST /launches/:key/pin": "review", "POST /launches/:key/delete": "admin",
	"GET /rules": "read", "GET /rules/new": "review", "GET /rules/preview": "review", "POST /rules": "review",
	"POST /rules/:id/toggle": "review", "GET /rules/:id/edit": "review", "POST /rules/:id": "review",
	"GET /review": "read", "POST /review/decide": "review", "GET /compare": "read",
	"GET /signatures": "read", "GET /signatures/new": "review", "GET /signatures/preview": "review",
	"POST /signatures": "review", "POST /signatures/:id/toggle": "review", "GET /launches/:key/reclassify": "review",
	"POST /launches/:key/reclassify": "review",

	"GET /admin/users": "admin", "POST /admin/users": "admin", "POST /admin/users/:id": "admin",
	"GET /admin/tokens": "admin", "POST /admin/tokens": "admin", "POST /admin/tokens/:id/revoke": "admin",
	"GET /audit": "admin", "GET /api/v1/audit/chain": "admin",
	"GET /admin/webhooks": "admin", "POST /admin/webhooks": "admin", "POST /admin/webhooks/:id/test": "admin",
	"POST /admin/webhooks/:id/delete": "admin", "GET /api/v1/webhooks": "admin", "POST /api/v1/webhooks": "admin",
	"DELETE /api/v1/webhooks/:id": "admin", "POST /api/v1/webhooks/:id/test": "admin",
	"GET /api/v1/webhooks/:id/deliveries": "admin",

	"POST /api/v1/launches/:key/lines": "ingest", "POST /api/v1/launches/:key/heartbeat": "ingest",
	"POST /api/v1/launches/:key/health": "ingest", "POST /api/v1/launches/:key/exit": "ingest",
	"GET /api/v1/launches/:key/lines": "read", "GET /api/v1/launches": "read",
	"GET /api/v1/launches/:key": "status", "GET /api/v1/launches/:key/live": "status", "GET /api/v1/live": "read",
	"GET /api/v1/launches/:key/seqs":                 "status",
	"POST /api/v1/launches/:key/alarms/:no/decision": "review", "DELETE /api/v1/launches/:key": "admin",
	"POST /api/v1/launches/:key/reclassify": "review",
	"POST /api/v1/launches/:key/pin":        "review", "POST /api/v1/launches/:key/unpin": "review",
	"GET /api/v1/rules": "read", "POST /api/v1/rules": "review", "PATCH /api/v1/rules/:id": "review",
	"GET /api/v1/signatures": "read", "POST /api/v1/signatures": "review", "PATCH /api/v1/signatures/:id": "review",
	"GET /api/v1/signatures/pack": "read", "POST /api/v1/signatures/pack": "review",
	"GET /api/v1/tokens": "admin", "POST /api/v1/tokens": "admin", "DELETE /api/v1/tokens/:id": "admin",

	"GET /incidents": "read", "GET /incidents/new": "read", "POST /incidents": "review", "GET /incidents/:id": "read",
	"POST /incidents/:id": "review", "POST /incidents/:id/launches": "review", "POST /incidents/:id/notes": "review",
	"POST /incidents/:id/notes/:note": "review", "POST /incidents/:id/actions": "review",
	"POST /incidents/:id/actions/:item": "review", "GET /incidents/:id/postmortem": "read",
	"GET /incidents/:id/postmortem.md": "read",
	"POST /api/v1/incidents":           "review", "GET /api/v1/incidents": "read", "GET /api/v1/incidents/:id": "read",
	"PATCH /api/v1/incidents/:id": "review", "POST /api/v1/incidents/:id/notes": "review",

	"GET /quality": "read", "GET /problems": "read", "GET /problems/:fp": "read", "POST /problems/:fp/decide": "review",
	"GET /api/v1/export/alarms.jsonl": "read",

	"POST /loki/api/v1/push": "ingest", "POST /v1/logs": "ingest", "POST /otlp/v1/logs": "ingest",
	"GET /metrics": "read",
}

// caller is one kind of principal: an API token of a scope, a browser
// session of a role, or nobody.
type caller struct {
	name  string
	token string // Bearer token
	role  string // a browser session of a new user with this role
	level string // what it holds: none, ingest, read, review, admin
}

// allows is the scope table of the README, written out.
func (c caller) allows(need string) bool {
	switch need {
	case "public":
		return true
	case "ingest":
		return c.level == "ingest" || c.level == "admin"
	case "status":
		return c.level != "none"
	case "read":
		return c.level == "read" || c.level == "review" || c.level == "admin"
	case "review":
		return c.level == "review" || c.level == "admin"
	case "admin":
		return c.level == "admin"
	}
	panic("unknown level " + need)
}

// TestEveryRouteHasItsPolicy walks every registered route as every kind
// of caller (anonymous; ingest, read, review and admin tokens; viewer,
// reviewer and admin sessions with their CSRF token): a caller below the
// route's level is refused (401 anonymous, 403 otherwise), one at or above
// it is not. Requests carry empty or invalid bodies, so allowed ones stop
// at validation and change nothing the next request depends on.
func TestEveryRouteHasItsPolicy(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	b := &testBundle{t: t, url: srv.URL, store: srv.Store, srv: srv}
	b.postText("/api/v1/launches/acc-1/lines?server=sglang", crashingLog)
	ruleID := b.apiJSON("POST", "/api/v1/rules", webtest.AdminToken,
		`{"matcher":"substring","pattern":"probe kernel","scope":"server","scope_value":"sglang","reason":"noise"}`, 201)["id"]
	spareToken := b.apiJSON("POST", "/api/v1/tokens", webtest.AdminToken, `{"name":"spare","scope":"read"}`, 201)["id"]
	spareUser := srv.NewUser(t, "spare", "viewer", "spare-password")

	callers := []caller{{name: "anonymous", level: "none"},
		{name: "ingest token", token: srv.NewToken(t, "ingest"), level: "ingest"},
		{name: "read token", token: srv.NewToken(t, "read"), level: "read"},
		{name: "review token", token: srv.NewToken(t, "review"), level: "review"},
		{name: "admin token", token: srv.NewToken(t, "admin"), level: "admin"},
		{name: "viewer", role: "viewer", level: "read"},
		{name: "reviewer", role: "reviewer", level: "review"},
		{name: "admin", role: "admin", level: "admin"}}

	e := srv.Handler.Config.Handler.(*echo.Echo)
	for _, rt := range e.Routes() {
		key := rt.Method + " " + rt.Path
		if strings.HasPrefix(rt.Path, "/static") {
			continue // files, public (TestStaticFilesArePublic)
		}
		need, ok := routeNeeds[key]
		if !ok {
			t.Errorf("route %s has no entry in routeNeeds: decide who may use it", key)
			continue
		}
		path := strings.NewReplacer(":key", "acc-1", ":no", "1", ":id", "0").Replace(rt.Path)
		switch {
		case strings.HasPrefix(rt.Path, "/rules/:id") || rt.Path == "/api/v1/rules/:id":
			path = strings.Replace(rt.Path, ":id", fmt.Sprint(ruleID), 1)
		case strings.Contains(rt.Path, "tokens/:id"):
			path = strings.Replace(rt.Path, ":id", fmt.Sprint(spareToken), 1)
		case rt.Path == "/admin/users/:id":
			path = strings.Replace(rt.Path, ":id", fmt.Sprint(spareUser.ID), 1)
		case rt.Method == "DELETE" && rt.Path == "/api/v1/launches/:key":
			path = "/api/v1/launches/acc-none" // allowed: 404, and acc-1 stays for the other routes
		case rt.Path == "/api/v1/launches/:key":
			path += "?wait=0"
		}
		statuses := map[int]bool{}
		for _, c := range callers {
			status := b.callAs(c, rt.Method, path)
			statuses[status] = true
			refused := status == http.StatusUnauthorized || status == http.StatusForbidden ||
				(status == http.StatusSeeOther && rt.Method == "GET" && need != "public")
			switch {
			case need == "public":
			case c.allows(need) && refused:
				t.Errorf("%s as %s: %d, want it allowed (needs %s)", key, c.name, status, need)
			case !c.allows(need) && c.level == "none" && status != http.StatusUnauthorized && status != http.StatusSeeOther:
				t.Errorf("%s anonymous: %d, want 401 (or 303 to sign in for a page)", key, status)
			case !c.allows(need) && c.level != "none" && status != http.StatusForbidden:
				t.Errorf("%s as %s: %d, want 403 (needs %s)", key, c.name, status, need)
			}
		}
		if need == "public" && (statuses[http.StatusForbidden] || len(statuses) > 1 && !strings.HasSuffix(key, " /login")) {
			// A public route answers everyone alike (the sign-in page sends
			// the signed-in on, and slows down repeated failures).
			t.Errorf("public %s answers callers differently: %v", key, statuses)
		}
	}
}

// callAs sends an empty request as caller c and returns its status: a
// token in Authorization; a session as its cookie with the page's CSRF
// token, from the same origin, as a browser would.
func (b *testBundle) callAs(c caller, method, path string) int {
	b.t.Helper()
	body := []byte{}
	ct := "application/json"
	if !strings.HasPrefix(path, "/api/") && !strings.HasPrefix(path, "/loki/") && !strings.HasPrefix(path, "/v1/") &&
		!strings.HasPrefix(path, "/otlp/") {
		ct = "application/x-www-form-urlencoded"
	}
	if strings.HasPrefix(path, "/loki/") || strings.HasPrefix(path, "/v1/") || strings.HasPrefix(path, "/otlp/") {
		body = []byte("{}")
	}
	req, err := http.NewRequest(method, b.url+path, bytes.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	switch {
	case c.token != "":
		req.Header.Set("Authorization", "Bearer "+c.token)
	case c.role != "":
		session := b.srv.Session(b.t, fmt.Sprintf("%s-%d", c.role, sessionSeq.Add(1)), c.role)
		req.AddCookie(&http.Cookie{Name: "lw_session", Value: session})
		if method != "GET" {
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			req.Header.Set("X-CSRF-Token", b.csrfToken(session))
		}
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// sessionSeq numbers the users callAs makes.
var sessionSeq atomic.Int64

// apiJSON sends a JSON request with token and decodes the object answered
// with want.
func (b *testBundle) apiJSON(method, path, token, body string, want int) map[string]any {
	b.t.Helper()
	r := b.do(method, path, "application/json", []byte(body), "Authorization", "Bearer "+token)
	if r.status != want {
		b.t.Fatalf("%s %s: %d %s, want %d", method, path, r.status, r.body, want)
	}
	var out map[string]any
	if len(r.body) > 0 {
		if err := json.Unmarshal(r.body, &out); err != nil {
			b.t.Fatalf("%s %s: %v: %s", method, path, err, r.body)
		}
	}
	return out
}

// TestStaticFilesArePublic: the sign-in page needs its styles and scripts
// before anyone has signed in, and a health probe has no token: both are
// served to anyone, whatever credential comes along.
func TestStaticFilesArePublic(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, path := range []string{"/static/app.css", "/static/htmx.min.js", "/static/csrf.js", "/healthz", "/readyz"} {
		for _, authz := range []string{"", "Bearer lw_not-a-token"} {
			if r := b.do("GET", path, "", nil, "Authorization", authz); r.status != http.StatusOK {
				t.Errorf("GET %s with Authorization %q: %d, want 200", path, authz, r.status)
			}
		}
	}
}
