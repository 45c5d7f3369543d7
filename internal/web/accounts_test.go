package web_test

import (
	"context"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/auth"
	"launchwatch/internal/clock"
	"launchwatch/internal/store"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// TestIngestNeedsAnIngestToken: every ingest route and process report
// answers 401 to nobody, 403 to a read token, 200 to an ingest token sent
// as Bearer or as HTTP Basic's password, and 401 to a revoked token.
func TestIngestNeedsAnIngestToken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ingestTok, readTok := b.srv.NewToken(t, "ingest"), b.srv.NewToken(t, "read")
	otlp, _ := otlpRequest(map[string]string{"launchwatch.launch": "scoped-otlp"}, "otlp line").MarshalProto()
	routes := []struct{ path, ct, body string }{
		{"/api/v1/launches/scoped/lines?server=sglang", "text/plain", "one line\n"},
		{"/api/v1/launches/scoped/heartbeat", "application/json", "{}"},
		{"/api/v1/launches/scoped/health", "application/json", `{"ok":false}`},
		{"/loki/api/v1/push", "application/json", `{"streams":[{"stream":{"launch":"scoped-loki"},"values":[["1700000000000000000","loki line"]]}]}`},
		{"/v1/logs", "application/x-protobuf", string(otlp)},
		{"/otlp/v1/logs", "application/x-protobuf", string(otlp)},
		{"/api/v1/launches/scoped/exit", "application/json", `{"code":0}`},
	}
	basic := "Basic " + basicAuth("launchwatch", ingestTok)
	for _, r := range routes {
		for _, tc := range []struct {
			name, authorization string
			want                int
		}{
			{"nobody", "", http.StatusUnauthorized},
			{"a read token", "Bearer " + readTok, http.StatusForbidden},
			{"a made-up token", "Bearer lw_made-up", http.StatusUnauthorized},
			{"an ingest token", "Bearer " + ingestTok, http.StatusOK},
			{"an ingest token over Basic", basic, http.StatusOK},
		} {
			got := b.do("POST", r.path, r.ct, []byte(r.body), "Authorization", tc.authorization)
			if got.status == http.StatusNoContent && tc.want == http.StatusOK {
				continue // Loki's own answer to a push
			}
			if got.status != tc.want {
				t.Errorf("POST %s as %s: %d %s, want %d", r.path, tc.name, got.status, got.body, tc.want)
			}
			if got.status == http.StatusUnauthorized && !strings.Contains(got.header.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("POST %s as %s: 401 without WWW-Authenticate", r.path, tc.name)
			}
		}
	}
	// The shipper's token reads the status of its launch (run and wait),
	// not the list of every launch, nor its lines.
	if r := b.do("GET", "/api/v1/launches/scoped?wait=0", "", nil, "Authorization", "Bearer "+ingestTok); r.status != 200 {
		t.Errorf("an ingest token reading its launch: %d", r.status)
	}
	for _, p := range []string{"/api/v1/launches", "/api/v1/launches/scoped/lines", "/launches/scoped"} {
		if r := b.do("GET", p, "", nil, "Authorization", "Bearer "+ingestTok); r.status != http.StatusForbidden {
			t.Errorf("an ingest token reading %s: %d, want 403", p, r.status)
		}
	}
}

func basicAuth(user, pass string) string {
	req, _ := http.NewRequest("GET", "http://x/", nil)
	req.SetBasicAuth(user, pass)
	return strings.TrimPrefix(req.Header.Get("Authorization"), "Basic ")
}

// TestTokensAPI: an admin makes a token (its secret shown once), lists
// tokens with their last use and no secret, and revokes one, which stops
// working at once; a token expires on the server's clock.
func TestTokensAPI(t *testing.T) {
	t.Parallel()
	fake := clock.NewFake(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	srv := webtest.Start(t, web.Config{}, webtest.WithClock(fake))
	b := &testBundle{t: t, url: srv.URL, store: srv.Store, srv: srv}

	made := b.apiJSON("POST", "/api/v1/tokens", webtest.AdminToken, `{"name":"ci shipper","scope":"ingest","expires_in":"90d"}`, 201)
	secret, _ := made["token"].(string)
	if !strings.HasPrefix(secret, "lw_") || made["scope"] != "ingest" || made["created_by"] != "token:bootstrap" {
		t.Fatalf("created %v", made)
	}
	if exp, _ := made["expires_at"].(string); !strings.HasPrefix(exp, "2027-02-28T09:00:00") {
		t.Errorf("expires_at %q, want 90 days after 2026-11-30 09:00", exp)
	}
	if r := b.do("POST", "/api/v1/launches/tk/lines?server=sglang", "text/plain", []byte("hi\n"), "Authorization", "Bearer "+secret); r.status != 200 {
		t.Fatalf("the new token ingests: %d %s", r.status, r.body)
	}
	list := b.do("GET", "/api/v1/tokens", "", nil)
	if strings.Contains(string(list.body), secret) || strings.Contains(string(list.body), `"token"`) {
		t.Errorf("the list shows a secret: %s", list.body)
	}
	if !strings.Contains(string(list.body), `"name":"ci shipper"`) || !strings.Contains(string(list.body), `"last_used_at":"2026-11-30T09:00:00Z"`) {
		t.Errorf("the list lacks the token or its last use: %s", list.body)
	}
	for _, bad := range []string{`{"name":"x","scope":"write"}`, `{"name":"","scope":"read"}`, `{"name":"x","scope":"read","expires_in":"soon"}`,
		`{"name":"x","scope":"read","expires_in":"-3d"}`} {
		if r := b.do("POST", "/api/v1/tokens", "application/json", []byte(bad)); r.status != http.StatusUnprocessableEntity {
			t.Errorf("POST %s: %d %s, want 422", bad, r.status, r.body)
		}
	}
	if r := b.do("POST", "/api/v1/tokens", "application/json", []byte(`{"name":"x","scope":"read","admin":true}`)); r.status != http.StatusBadRequest {
		t.Errorf("an unknown field: %d, want 400", r.status)
	}
	// A token ends at its expiry on the server's clock.
	fake.Advance(91 * 24 * time.Hour)
	if r := b.do("GET", "/api/v1/launches/tk?wait=0", "", nil, "Authorization", "Bearer "+secret); r.status != http.StatusUnauthorized {
		t.Errorf("an expired token: %d, want 401", r.status)
	}
	// Revoked: 401 at once, and the list says when.
	readTok := b.apiJSON("POST", "/api/v1/tokens", webtest.AdminToken, `{"name":"reader","scope":"read"}`, 201)
	if r := b.do("DELETE", "/api/v1/tokens/"+jsonID(readTok), "", nil); r.status != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	if r := b.do("GET", "/api/v1/launches", "", nil, "Authorization", "Bearer "+readTok["token"].(string)); r.status != http.StatusUnauthorized {
		t.Errorf("a revoked token: %d, want 401", r.status)
	}
	if r := b.do("DELETE", "/api/v1/tokens/99999", "", nil); r.status != http.StatusNotFound {
		t.Errorf("revoking an unknown token: %d, want 404", r.status)
	}
	audit, err := srv.Store.AuditLog(context.Background(), store.AuditQuery{Subject: "token:"})
	if err != nil || len(audit) < 3 {
		t.Fatalf("audit %v %v", audit, err)
	}
	if audit[0].Action != "token.revoke" || audit[0].Actor != "token:bootstrap" {
		t.Errorf("newest token event %+v, want the revocation by the bootstrap token", audit[0])
	}
}

func jsonID(m map[string]any) string {
	id, _ := m["id"].(float64)
	return strconv.FormatInt(int64(id), 10)
}

// TestBootstrapToken: ensuring a bootstrap secret makes an admin token;
// ensuring it again changes nothing; a new secret revokes the old one.
func TestBootstrapToken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	now := time.Now()
	for i, want := range []bool{true, false} {
		changed, err := b.store.EnsureBootstrapToken(ctx, auth.HashSecret("lw_first-bootstrap-secret"), now)
		if err != nil || changed != want {
			t.Fatalf("ensure %d: changed %v, %v; want %v", i, changed, err, want)
		}
	}
	if r := b.do("GET", "/api/v1/tokens", "", nil, "Authorization", "Bearer lw_first-bootstrap-secret"); r.status != 200 {
		t.Fatalf("the bootstrap token is admin: %d", r.status)
	}
	if _, err := b.store.EnsureBootstrapToken(ctx, auth.HashSecret("lw_second-bootstrap-secret"), now); err != nil {
		t.Fatal(err)
	}
	if r := b.do("GET", "/api/v1/tokens", "", nil, "Authorization", "Bearer lw_first-bootstrap-secret"); r.status != http.StatusUnauthorized {
		t.Errorf("the replaced bootstrap token: %d, want 401", r.status)
	}
	if r := b.do("GET", "/api/v1/tokens", "", nil, "Authorization", "Bearer lw_second-bootstrap-secret"); r.status != 200 {
		t.Errorf("the new bootstrap token: %d", r.status)
	}
}

// TestSignInAndOut: the sign-in page makes a server-side session (an
// HttpOnly, SameSite=Lax cookie) that signs the browser in; a wrong
// password is 401 and, repeated, slows to 429; signing out ends the
// session; both are in the audit log.
func TestSignInAndOut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.srv.NewUser(t, "grace", "reviewer", "grace-password")
	login := func(name, pw string) *http.Response {
		form := url.Values{"name": {name}, "password": {pw}, "next": {"/review"}}
		req, _ := http.NewRequest("POST", b.url+"/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if r := b.do("GET", "/login", "", nil, "Authorization", ""); r.status != 200 || !strings.Contains(string(r.body), `name="password"`) {
		t.Fatalf("sign-in page: %d", r.status)
	}
	if res := login("grace", "not-her-password"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong password: %d, want 401", res.StatusCode)
	}
	if res := login("nobody", "grace-password"); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("an unknown name: %d, want 401", res.StatusCode)
	}
	res := login("GRACE", "grace-password") // names are not case-sensitive
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/review" {
		t.Fatalf("sign in: %d to %q", res.StatusCode, res.Header.Get("Location"))
	}
	var session *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == "lw_session" {
			session = c
		}
	}
	if session == nil || !session.HttpOnly || session.SameSite != http.SameSiteLaxMode || session.Secure {
		t.Fatalf("session cookie %+v, want HttpOnly, SameSite=Lax, not Secure over plain http", session)
	}
	page := b.do("GET", "/review", "", nil, "Authorization", "", "Cookie", "lw_session="+session.Value)
	if page.status != 200 || !strings.Contains(string(page.body), "grace") {
		t.Fatalf("the session's page: %d", page.status)
	}
	// A reviewer may not open the admin pages.
	if r := b.do("GET", "/admin/users", "", nil, "Authorization", "", "Cookie", "lw_session="+session.Value); r.status != http.StatusForbidden {
		t.Errorf("a reviewer on /admin/users: %d, want 403", r.status)
	}
	// Signing out needs the CSRF token, then ends the session.
	if out := b.postForm("/logout", url.Values{"csrf_token": {"forged"}}, false, session); out.StatusCode != http.StatusForbidden {
		t.Errorf("sign-out without the CSRF token: %d, want 403", out.StatusCode)
	}
	if out := b.postForm("/logout", url.Values{}, false, session); out.StatusCode != http.StatusSeeOther {
		t.Fatalf("sign-out: %d", out.StatusCode)
	}
	req, _ := http.NewRequest("GET", b.url+"/review", nil)
	req.AddCookie(session)
	if res, err := noRedirect.Do(req); err != nil || res.StatusCode != http.StatusSeeOther {
		t.Errorf("the ended session still works")
	}
	// Guessing: five failures for a name, then 429 with Retry-After.
	for range 5 {
		login("grace", "guess")
	}
	if res := login("grace", "grace-password"); res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
		t.Errorf("after five failures: %d (Retry-After %q), want 429", res.StatusCode, res.Header.Get("Retry-After"))
	}
	events, err := b.store.AuditLog(context.Background(), store.AuditQuery{Subject: "user:grace"})
	if err != nil {
		t.Fatal(err)
	}
	actions := map[string]int{}
	for _, e := range events {
		actions[e.Action]++
	}
	if actions["auth.sign_in"] != 1 || actions["auth.sign_out"] != 1 || actions["auth.sign_in_failed"] < 1 {
		t.Errorf("audit of grace's sign-ins: %v", actions)
	}
}

// TestSetupLinkMakesTheFirstAdmin: on a server without accounts the
// one-time link shows the form, makes an admin who is signed in at once,
// and then is gone (410), as is a made-up link.
func TestSetupLinkMakesTheFirstAdmin(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{}, webtest.WithoutAccounts())
	b := &testBundle{t: t, url: srv.URL, store: srv.Store, srv: srv}
	secret := auth.NewSecret()
	made, err := srv.Store.ReplaceSetupLink(context.Background(), auth.HashSecret(secret), time.Now().Add(time.Hour))
	if err != nil || !made {
		t.Fatalf("setup link: %v %v", made, err)
	}
	if r := b.do("GET", "/setup?token="+secret, "", nil, "Authorization", ""); r.status != 200 || !strings.Contains(string(r.body), "Create the first admin") {
		t.Fatalf("setup page: %d", r.status)
	}
	if r := b.do("GET", "/setup?token=lw_made-up", "", nil, "Authorization", ""); r.status != http.StatusGone {
		t.Errorf("a made-up link: %d, want 410", r.status)
	}
	post := func(form url.Values) *http.Response {
		req, _ := http.NewRequest("POST", b.url+"/setup", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := post(url.Values{"token": {secret}, "name": {"root"}, "password": {"short"}, "password2": {"short"}}); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("a short password: %d, want 422", res.StatusCode)
	}
	res := post(url.Values{"token": {secret}, "name": {"root"}, "password": {"a long password"}, "password2": {"a long password"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("setup: %d", res.StatusCode)
	}
	u, err := srv.Store.UserByName(context.Background(), "root")
	if err != nil || u.Role != "admin" {
		t.Fatalf("first admin %+v %v", u, err)
	}
	var session string
	for _, c := range res.Cookies() {
		if c.Name == "lw_session" {
			session = c.Value
		}
	}
	if r := b.do("GET", "/admin/tokens", "", nil, "Authorization", "", "Cookie", "lw_session="+session); r.status != 200 {
		t.Errorf("the new admin's tokens page: %d", r.status)
	}
	if res := post(url.Values{"token": {secret}, "name": {"root2"}, "password": {"a long password"}, "password2": {"a long password"}}); res.StatusCode != http.StatusGone {
		t.Errorf("the link used twice: %d, want 410", res.StatusCode)
	}
	if again, err := srv.Store.ReplaceSetupLink(context.Background(), auth.HashSecret(auth.NewSecret()), time.Now().Add(time.Hour)); err != nil || again {
		t.Errorf("a setup link was made although an admin exists: %v %v", again, err)
	}
}

// TestReverseProxySignIn: the proxy's header signs in (and creates) a user
// only from a trusted address; from elsewhere it is ignored.
func TestReverseProxySignIn(t *testing.T) {
	t.Parallel()
	trusted := setupWith(t, web.Config{Auth: web.AuthConfig{ProxyHeader: "X-Forwarded-Email",
		ProxyTrusted: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, ProxyDefaultRole: "reviewer"}})
	r := trusted.do("GET", "/review", "", nil, "Authorization", "", "X-Forwarded-Email", "lin@example.com")
	if r.status != 200 || !strings.Contains(string(r.body), "lin@example.com") {
		t.Fatalf("a proxied page: %d", r.status)
	}
	u, err := trusted.store.UserByName(context.Background(), "lin@example.com")
	if err != nil || u.Role != "reviewer" || u.PasswordHash != "" {
		t.Errorf("the proxy's user %+v %v, want a reviewer without password", u, err)
	}
	// A proxied browser still needs the CSRF token to change anything.
	form := []byte(url.Values{"verdict": {"confirm"}}.Encode())
	if r := trusted.do("POST", "/review/decide", "application/x-www-form-urlencoded", form, "Authorization", "",
		"X-Forwarded-Email", "lin@example.com", "Sec-Fetch-Site", "same-origin"); r.status != http.StatusForbidden {
		t.Errorf("a proxied post without CSRF token: %d, want 403", r.status)
	}

	untrusted := setupWith(t, web.Config{Auth: web.AuthConfig{ProxyHeader: "X-Forwarded-Email",
		ProxyTrusted: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}})
	if r := untrusted.do("GET", "/api/v1/launches", "", nil, "Authorization", "", "X-Forwarded-Email", "admin@example.com"); r.status != http.StatusUnauthorized {
		t.Errorf("the header from an untrusted address: %d, want 401", r.status)
	}
}

// TestCSRF: a session's state-changing request needs its CSRF token, in
// the form or the X-CSRF-Token header; another session's token does not
// do; and a cross-origin post is refused even with the right token.
func TestCSRF(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/cs-1/lines?server=sglang", crashingLog)
	other := b.srv.Session(t, "otto", "admin")
	send := func(token, site string) int {
		req, _ := http.NewRequest("POST", b.url+"/launches/cs-1/annotations", strings.NewReader(url.Values{"body": {"a note"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", site)
		req.AddCookie(&http.Cookie{Name: "lw_session", Value: webtest.AdminSession})
		if token != "" {
			req.Header.Set("X-CSRF-Token", token)
		}
		res, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, tc := range []struct {
		name, token, site string
		want              int
	}{
		{"no token", "", "same-origin", http.StatusForbidden},
		{"another session's token", b.csrfToken(other), "same-origin", http.StatusForbidden},
		{"the right token from another site", b.csrfToken(webtest.AdminSession), "same-site", http.StatusForbidden},
		{"the right token", b.csrfToken(webtest.AdminSession), "same-origin", http.StatusSeeOther},
	} {
		if got := send(tc.token, tc.site); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	// The JSON API with a session cookie needs the header too.
	r := b.do("POST", "/api/v1/launches/cs-1/alarms/1/decision", "application/json", []byte(`{"verdict":"confirm"}`),
		"Authorization", "", "Cookie", "lw_session="+webtest.AdminSession)
	if r.status != http.StatusForbidden || b.alarm("cs-1", 1).State != "open" {
		t.Errorf("an API decision by cookie without CSRF token: %d", r.status)
	}
}

// TestRulesAPI: rules as code, with the form's checks: a blinding pattern
// is 422 with the reason, a reviewer cannot make a rule for all launches
// (403), a scoped one is 201 with its id, a preview saves nothing, and
// PATCH disables it and sets its expiry.
func TestRulesAPI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/ra-1/lines?server=sglang", falseAlarmLog)
	reviewer := b.srv.NewToken(t, "review")
	r := b.do("POST", "/api/v1/rules", "application/json", []byte(`{"matcher":"regex","pattern":".*","scope":"all","reason":"quiet"}`))
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(errorMessage(t, r), "matches every line") &&
		!strings.Contains(errorMessage(t, r), "empty string") {
		t.Errorf(".* rule: %d %s, want 422 with the reason", r.status, r.body)
	}
	r = b.do("POST", "/api/v1/rules", "application/json", []byte(`{"matcher":"substring","pattern":"probe kernel","scope":"all","reason":"noise"}`),
		"Authorization", "Bearer "+reviewer)
	if r.status != http.StatusForbidden || !strings.Contains(errorMessage(t, r), "needs an admin") {
		t.Errorf("a reviewer's rule for all launches: %d %s, want 403", r.status, r.body)
	}
	body := `{"matcher":"substring","pattern":"probe kernel","scope":"server","scope_value":"sglang","reason":"noise","expiry":"days","expiry_days":7`
	pv := b.apiJSON("POST", "/api/v1/rules", reviewer, body+`,"preview":true}`, 200)
	if p, _ := pv["preview"].(map[string]any); p["open"] != float64(1) {
		t.Errorf("preview %v, want the one open alarm", pv)
	}
	if b.alarm("ra-1", 1).State != "open" {
		t.Fatal("a preview changed an alarm")
	}
	made := b.apiJSON("POST", "/api/v1/rules", reviewer, body+`}`, 201)
	id := jsonID(made)
	if rule, _ := made["rule"].(map[string]any); rule["author"] != "token:"+tokenName(t, b, reviewer) {
		t.Errorf("rule %v, want it attributed to the token", made)
	}
	if b.alarm("ra-1", 1).State != "suppressed" {
		t.Errorf("the rule did not suppress the open alarm")
	}
	patched := b.apiJSON("PATCH", "/api/v1/rules/"+id, reviewer, `{"enabled":false,"reason":"checking"}`, 200)
	if patched["enabled"] != false || b.alarm("ra-1", 1).State != "open" {
		t.Errorf("disable: %v, alarm %s", patched, b.alarm("ra-1", 1).State)
	}
	patched = b.apiJSON("PATCH", "/api/v1/rules/"+id, reviewer, `{"expiry":"never"}`, 200)
	if patched["expires_at"] != nil {
		t.Errorf("expiry never: %v", patched)
	}
	if r := b.do("POST", "/api/v1/rules", "application/json", []byte(`{"matcher":"substring","pattern":"probe\u0000","scope":"server","scope_value":"sglang","reason":"x"}`)); r.status != http.StatusBadRequest {
		t.Errorf("a NUL in a rule: %d, want 400", r.status)
	}
	if r := b.do("POST", "/api/v1/rules", "text/plain", []byte(body+`}`)); r.status != http.StatusUnsupportedMediaType {
		t.Errorf("a rule sent as text/plain: %d, want 415", r.status)
	}
	if r := b.do("PATCH", "/api/v1/rules/"+id, "application/json", []byte(`{}`)); r.status != http.StatusBadRequest {
		t.Errorf("an empty patch: %d, want 400", r.status)
	}
	if r := b.do("PATCH", "/api/v1/rules/9999", "application/json", []byte(`{"enabled":true}`)); r.status != http.StatusNotFound {
		t.Errorf("patching an unknown rule: %d, want 404", r.status)
	}
	list := b.do("GET", "/api/v1/rules", "", nil, "Authorization", "Bearer "+b.srv.NewToken(t, "read"))
	if list.status != 200 || !strings.Contains(string(list.body), `"pattern":"probe kernel"`) {
		t.Errorf("rules list: %d %s", list.status, list.body)
	}
}

// tokenName is the name of the token with this secret.
func tokenName(t *testing.T, b *testBundle, secret string) string {
	t.Helper()
	tok, err := b.store.TokenBySecret(context.Background(), auth.HashSecret(secret), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tok.Name
}

// TestDecisionAPI: a review token decides an alarm through the API; the
// decision is the token's; a read token cannot; a dismissal needs a reason;
// dismissing a confirmed alarm needs an admin.
func TestDecisionAPI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/da-1/lines?server=sglang", crashingLog)
	reviewer := b.srv.NewToken(t, "review")
	path := "/api/v1/launches/da-1/alarms/1/decision"
	if r := b.do("POST", path, "application/json", []byte(`{"verdict":"confirm"}`), "Authorization", "Bearer "+b.srv.NewToken(t, "read")); r.status != http.StatusForbidden {
		t.Errorf("a read token deciding: %d, want 403", r.status)
	}
	if r := b.do("POST", path, "application/json", []byte(`{"verdict":"dismiss"}`), "Authorization", "Bearer "+reviewer); r.status != http.StatusUnprocessableEntity {
		t.Errorf("a dismissal without reason: %d, want 422", r.status)
	}
	got := b.apiJSON("POST", path, reviewer, `{"verdict":"confirm","reason":"real OOM"}`, 200)
	if got["state"] != "confirmed" || got["status"] != "crashed" {
		t.Errorf("decision answer %v", got)
	}
	if a := b.alarm("da-1", 1); a.DecidedBy == nil || *a.DecidedBy != "token:"+tokenName(t, b, reviewer) {
		t.Errorf("decided by %v", a.DecidedBy)
	}
	if r := b.do("POST", path, "application/json", []byte(`{"verdict":"dismiss","reason":"drill"}`), "Authorization", "Bearer "+reviewer); r.status != http.StatusForbidden {
		t.Errorf("a reviewer dismissing a confirmed alarm: %d, want 403", r.status)
	}
	b.apiJSON("POST", path, webtest.AdminToken, `{"verdict":"dismiss","reason":"drill"}`, 200)
	if r := b.do("POST", "/api/v1/launches/da-1/alarms/7/decision", "application/json", []byte(`{"verdict":"confirm"}`)); r.status != http.StatusNotFound {
		t.Errorf("an unknown alarm: %d, want 404", r.status)
	}
}

// TestAuditLog: the admin's /audit shows decisions and token events,
// filtered by user and subject; nothing can edit the log.
func TestAuditLog(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/au-1/lines?server=sglang", crashingLog)
	b.postForm("/launches/au-1/alarms/1/decide", url.Values{"verdict": {"confirm"}}, false)
	b.apiJSON("POST", "/api/v1/tokens", webtest.AdminToken, `{"name":"shipper","scope":"ingest"}`, 201)
	doc := b.page("/audit?user=ada", 200)
	if rows := testid(doc, "audit").Find("tbody tr"); rows.Length() != 1 || !strings.Contains(rows.Text(), "alarm.confirm") {
		t.Errorf("audit for ada: %q", rows.Text())
	}
	doc = b.page("/audit?subject=token:", 200)
	if rows := testid(doc, "audit").Find("tbody tr"); !strings.Contains(rows.Text(), "token.create") || strings.Contains(rows.Text(), "alarm.confirm") {
		t.Errorf("audit for tokens: %q", rows.Text())
	}
	ctx := context.Background()
	for _, sql := range []string{`UPDATE audit_events SET actor = 'mallory'`, `DELETE FROM audit_events`, `TRUNCATE audit_events`} {
		if _, err := b.store.Pool().Exec(ctx, sql); err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("%s: %v, want refused", sql, err)
		}
	}
}

// TestUsersAdmin: an admin makes a user on /admin/users, changes its
// role and disables it (which ends its sessions); an admin cannot lock
// themselves out; every change is audited.
func TestUsersAdmin(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res := b.postForm("/admin/users", url.Values{"name": {"hal"}, "role": {"viewer"}, "password": {"hal-password"}}, false)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d %s", res.StatusCode, readBody(t, res))
	}
	for _, bad := range []url.Values{
		{"name": {"HAL"}, "role": {"viewer"}, "password": {"hal-password"}}, // names are case-insensitive
		{"name": {"ivy"}, "role": {"owner"}, "password": {"ivy-password"}},
		{"name": {"ivy"}, "role": {"viewer"}, "password": {"short"}},
		{"name": {"token:ivy"}, "role": {"viewer"}, "password": {"ivy-password"}},
	} {
		if res := b.postForm("/admin/users", bad, false); res.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("create %v: %d, want 422", bad, res.StatusCode)
		}
	}
	hal, err := b.store.UserByName(context.Background(), "hal")
	if err != nil || hal.Role != "viewer" {
		t.Fatalf("hal %+v %v", hal, err)
	}
	id := strconv.FormatInt(hal.ID, 10)
	session := b.srv.Session(t, "other", "viewer") // another user's session stays
	if res := b.postForm("/admin/users/"+id, url.Values{"action": {"role"}, "role": {"reviewer"}}, false); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("role: %d", res.StatusCode)
	}
	// hal signs in, then is disabled: the session ends at once.
	halSession := auth.NewSecret()
	if err := b.store.CreateSession(context.Background(), auth.HashSecret(halSession), hal.ID, time.Now(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if r := b.do("GET", "/review", "", nil, "Authorization", "", "Cookie", "lw_session="+halSession); r.status != 200 {
		t.Fatalf("hal's session: %d", r.status)
	}
	if res := b.postForm("/admin/users/"+id, url.Values{"action": {"disable"}}, false); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("disable: %d", res.StatusCode)
	}
	req, _ := http.NewRequest("GET", b.url+"/review", nil)
	req.AddCookie(&http.Cookie{Name: "lw_session", Value: halSession})
	if res, err := noRedirect.Do(req); err != nil || res.StatusCode != http.StatusSeeOther {
		t.Errorf("a disabled user's session still works")
	}
	if r := b.do("GET", "/review", "", nil, "Authorization", "", "Cookie", "lw_session="+session); r.status != 200 {
		t.Errorf("another user's session ended with hal's: %d", r.status)
	}
	// The admin (ada) cannot disable or demote themselves.
	ada, _ := b.store.UserByName(context.Background(), webtest.AdminName)
	self := "/admin/users/" + strconv.FormatInt(ada.ID, 10)
	if res := b.postForm(self, url.Values{"action": {"disable"}}, false); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("disabling oneself: %d, want 422", res.StatusCode)
	}
	if res := b.postForm(self, url.Values{"action": {"role"}, "role": {"viewer"}}, false); res.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("demoting oneself: %d, want 422", res.StatusCode)
	}
	events, err := b.store.AuditLog(context.Background(), store.AuditQuery{Subject: "user:hal"})
	if err != nil || len(events) != 3 {
		t.Errorf("hal's audit: %+v %v, want create, role, disable", events, err)
	}
	if doc := b.page("/admin/users", 200); !strings.Contains(testid(doc, "users").Text(), "disabled") {
		t.Errorf("the users page does not show hal disabled")
	}
}
