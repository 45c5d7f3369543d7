package web_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"launchwatch/internal/web"
)

// port is the test server's port.
func (b *testBundle) port() string {
	u, err := url.Parse(b.url)
	if err != nil {
		b.t.Fatal(err)
	}
	return u.Port()
}

// dialStatus opens the live websocket with header and returns the HTTP
// status of the handshake (101 when it was accepted).
func (b *testBundle) dialStatus(path string, header http.Header) int {
	b.t.Helper()
	ws, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(b.url, "http")+path, adminHeader(header))
	if err == nil {
		ws.Close()
	}
	if res == nil {
		b.t.Fatalf("dial %s: %v", path, err)
	}
	return res.StatusCode
}

func ruleFormBody(pattern string) url.Values {
	return url.Values{"matcher": {"regex"}, "pattern": {pattern}, "scope": {"all"}, "reason": {"noise"},
		"expiry": {"days"}, "expiry_days": {"7"}}
}

func TestHostCheck(t *testing.T) {
	t.Parallel()

	t.Run("OtherHostIsMisdirected", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/h-1/lines?server=sglang", "hello\n")
		form := []byte(ruleFormBody("CUDA out of memory").Encode())
		for _, tc := range []struct {
			method, path, contentType string
			body                      []byte
			html                      bool
		}{
			{"GET", "/", "", nil, true},
			{"GET", "/launches/h-1", "", nil, true},
			{"POST", "/rules", "application/x-www-form-urlencoded", form, true},
			{"GET", "/api/v1/launches/h-1", "", nil, false},
			{"POST", "/api/v1/launches/h-1/lines", "text/plain", []byte("forged\n"), false},
			{"GET", "/static/htmx.min.js", "", nil, true},
			{"GET", "/metrics", "", nil, false},
		} {
			r := b.do(tc.method, tc.path, tc.contentType, tc.body, "Host", "evil.example", "Sec-Fetch-Site", "same-origin")
			if r.status != http.StatusMisdirectedRequest {
				t.Errorf("%s %s with Host evil.example: %d, want 421", tc.method, tc.path, r.status)
				continue
			}
			if ct := r.header.Get("Content-Type"); strings.HasPrefix(ct, "text/html") != tc.html {
				t.Errorf("%s %s: 421 answered as %s", tc.method, tc.path, ct)
			}
			if !tc.html && !strings.Contains(errorMessage(t, r), "evil.example") {
				t.Errorf("%s %s: %s", tc.method, tc.path, r.body)
			}
		}
		if got := b.lines("h-1"); len(got) != 1 {
			t.Errorf("a misdirected ingest stored lines: %q", texts(got))
		}
		if n := b.dialStatus("/api/v1/live", http.Header{"Host": {"evil.example"}}); n != http.StatusMisdirectedRequest {
			t.Errorf("websocket upgrade with Host evil.example: %d, want 421", n)
		}
		if n := b.dialStatus("/api/v1/launches/h-1/live", http.Header{"Host": {"evil.example"}, "Origin": {"http://evil.example"}}); n != http.StatusMisdirectedRequest {
			t.Errorf("launch websocket with Host evil.example: %d, want 421", n)
		}
		// A DNS name rebound to 127.0.0.1, with its own port, is not ours either.
		if r := b.do("GET", "/", "", nil, "Host", "rebind.attacker.example:"+b.port()); r.status != http.StatusMisdirectedRequest {
			t.Errorf("rebound name: %d, want 421", r.status)
		}
		// Probes by IP still work.
		if r := b.do("GET", "/healthz", "", nil, "Host", "10.1.2.3:8080"); r.status != http.StatusOK {
			t.Errorf("/healthz with another host: %d, want 200", r.status)
		}
	})

	t.Run("LoopbackNamesAccepted", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		port := b.port()
		for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "127.3.4.5:" + port, "[::1]:" + port} {
			if r := b.do("GET", "/", "", nil, "Host", host); r.status != http.StatusOK {
				t.Errorf("Host %s: %d, want 200", host, r.status)
			}
			if n := b.dialStatus("/api/v1/live", http.Header{"Host": {host}, "Origin": {"http://" + host}}); n != http.StatusSwitchingProtocols {
				t.Errorf("websocket from a page of %s: %d, want 101", host, n)
			}
		}
		for _, host := range []string{"localhost", "localhost:1", "127.0.0.1:1", "10.0.0.1:" + port, "localhost.evil.example:" + port} {
			if r := b.do("GET", "/", "", nil, "Host", host); r.status != http.StatusMisdirectedRequest {
				t.Errorf("Host %s: %d, want 421", host, r.status)
			}
		}
		// A page elsewhere may not open the websocket, nor post the forms.
		if n := b.dialStatus("/api/v1/live", http.Header{"Origin": {"http://evil.example"}}); n != http.StatusForbidden {
			t.Errorf("websocket from another origin: %d, want 403", n)
		}
		if n := b.dialStatus("/api/v1/live", http.Header{"Origin": {"http://localhost:" + port}}); n != http.StatusForbidden {
			t.Errorf("websocket from localhost's page to 127.0.0.1: %d, want 403 (another origin)", n)
		}
		r := b.do("POST", "/rules", "application/x-www-form-urlencoded", []byte(ruleFormBody("CUDA out of memory").Encode()),
			"Origin", "http://evil.example")
		if r.status != http.StatusForbidden {
			t.Errorf("cross-origin form post: %d, want 403", r.status)
		}
	})

	t.Run("PublicURL", func(t *testing.T) {
		t.Parallel()
		pub, _ := url.Parse("https://LW.example.com/")
		b := setupWith(t, web.Config{PublicURL: pub})
		for host, want := range map[string]int{"lw.example.com": 200, "lw.example.com:443": 200,
			"127.0.0.1:" + b.port(): 421, "localhost:" + b.port(): 421, "lw.example.com:8443": 421} {
			if r := b.do("GET", "/", "", nil, "Host", host); r.status != want {
				t.Errorf("Host %s: %d, want %d", host, r.status, want)
			}
		}
		h := http.Header{"Host": {"lw.example.com"}, "Origin": {"https://lw.example.com"}}
		if n := b.dialStatus("/api/v1/live", h); n != http.StatusSwitchingProtocols {
			t.Errorf("websocket from the public origin: %d, want 101", n)
		}
		h.Set("Origin", "http://lw.example.com")
		if n := b.dialStatus("/api/v1/live", h); n != http.StatusForbidden {
			t.Errorf("websocket from http:// (not the public origin): %d, want 403", n)
		}
		form := []byte(ruleFormBody("CUDA out of memory").Encode())
		if r := b.do("POST", "/rules", "application/x-www-form-urlencoded", form, "Host", "lw.example.com",
			"Origin", "http://lw.example.com"); r.status != http.StatusForbidden {
			t.Errorf("form post from http:// (not the public origin): %d, want 403", r.status)
		}
		if r := b.do("POST", "/rules", "application/x-www-form-urlencoded", form, "Host", "lw.example.com",
			"Origin", "https://lw.example.com", "Sec-Fetch-Site", "same-origin"); r.status != http.StatusOK || !strings.Contains(string(r.body), `data-testid="rule-row"`) {
			t.Errorf("form post from the public origin: %d, want the rule saved and the rules page: %s", r.status, r.body)
		}
	})
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/sh-1/lines?server=sglang", "hello\n")
	for _, path := range []string{"/", "/launches/sh-1", "/rules", "/review", "/api/v1/launches/sh-1",
		"/api/v1/launches/missing", "/launches/missing", "/static/app.css", "/healthz"} {
		r := b.do("GET", path, "", nil)
		csp := r.header.Get("Content-Security-Policy")
		for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'self'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("GET %s (%d): Content-Security-Policy %q lacks %s", path, r.status, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("GET %s: Content-Security-Policy allows inline code: %q", path, csp)
		}
		for h, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
			"Referrer-Policy": "same-origin"} {
			if got := r.header.Get(h); got != want {
				t.Errorf("GET %s: %s = %q, want %q", path, h, got, want)
			}
		}
	}
	r := b.do("GET", "/", "", nil, "Host", "evil.example")
	if r.status != http.StatusMisdirectedRequest || r.header.Get("X-Frame-Options") != "DENY" {
		t.Errorf("the 421 answer: %d without the headers", r.status)
	}
}

// TestPagesHaveNoInlineScript: the pages the CSP guards carry no inline
// script, event handler attribute or style attribute it would block.
func TestPagesHaveNoInlineScript(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/ni-1/lines?server=sglang", crashingLog)
	b.settled("ni-1")
	for path, status := range map[string]int{"/": 200, "/launches/ni-1": 200, "/launches/ni-1?errors=1": 200, "/rules": 200,
		"/rules/new?launch=ni-1&alarm=1": 200, "/review": 200, "/compare?a=ni-1&b=ni-1": 200, "/launches/missing": 404} {
		doc := b.page(path, status)
		for _, s := range doc.Find("script").EachIter() {
			if src := s.AttrOr("src", ""); !strings.HasPrefix(src, "/static/") || strings.TrimSpace(s.Text()) != "" {
				t.Errorf("%s: inline or foreign script %q", path, src)
			}
		}
		for _, el := range doc.Find("*").EachIter() {
			for _, a := range el.Nodes[0].Attr {
				if strings.HasPrefix(a.Key, "on") || a.Key == "style" || strings.HasPrefix(a.Key, "hx-on") ||
					strings.HasPrefix(strings.TrimSpace(a.Val), "javascript:") {
					t.Errorf("%s: <%s %s=%q> is blocked by the CSP", path, el.Nodes[0].Data, a.Key, a.Val)
				}
			}
		}
		for _, s := range doc.Find("style").EachIter() {
			t.Errorf("%s: inline <style> %q", path, s.Text())
		}
	}
}

func TestFormLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)

	t.Run("BodyOver1MiB", func(t *testing.T) {
		t.Parallel()
		big := ruleFormBody("CUDA out of memory")
		big.Set("reason", strings.Repeat("x", web.MaxFormBytes))
		body := []byte(big.Encode())
		r := b.do("POST", "/rules", "application/x-www-form-urlencoded", body, "Sec-Fetch-Site", "same-origin")
		if r.status != http.StatusRequestEntityTooLarge || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
			t.Errorf("a 1 MiB+ form: %d %s, want 413 with the error page", r.status, r.header.Get("Content-Type"))
		}
		// Without a Content-Length (chunked), the limit holds while reading.
		req, _ := http.NewRequest("POST", b.url+"/launches/x/annotations", io.MultiReader(bytes.NewReader(body)))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		res, err := http.DefaultClient.Do(authorize(req))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("a chunked 1 MiB+ form: %d, want 413", res.StatusCode)
		}
	})

	t.Run("MultipartOver1MiB", func(t *testing.T) {
		t.Parallel()
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("verdict", "confirm") //nolint:errcheck // to memory
		fw, _ := mw.CreateFormFile("upload", "big.bin")
		fw.Write(bytes.Repeat([]byte("x"), 3<<20)) //nolint:errcheck // to memory
		mw.Close()
		r := b.do("POST", "/review/decide", mw.FormDataContentType(), buf.Bytes(), "Sec-Fetch-Site", "same-origin")
		if r.status != http.StatusRequestEntityTooLarge {
			t.Errorf("a 3 MiB multipart form: %d, want 413", r.status)
		}
	})

	t.Run("UnderTheLimitStillWorks", func(t *testing.T) {
		t.Parallel()
		res := b.postForm("/rules", ruleFormBody("CUDA out of memory"), false)
		if res.StatusCode != http.StatusSeeOther {
			t.Errorf("an ordinary rule form: %d, want 303", res.StatusCode)
		}
	})

	t.Run("UnparsableForm", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct{ contentType, body string }{
			{"application/x-www-form-urlencoded", "name=%zz&verdict=confirm"},
			{"application/x-www-form-urlencoded", "name=%FF%FE&verdict=confirm&reason=x"},
			{"application/x-www-form-urlencoded", "name=a%00b&verdict=confirm&reason=x"},
			{"multipart/form-data; boundary=nope", "garbage"},
			{"multipart/form-data", "garbage"},
		} {
			r := b.do("POST", "/review/decide", tc.contentType, []byte(tc.body), "Sec-Fetch-Site", "same-origin")
			if r.status != http.StatusBadRequest {
				t.Errorf("%s %q: %d, want 400", tc.contentType, tc.body, r.status)
			}
		}
	})
}

// TestMalformedSessionCookieIsIgnored: a session cookie that is not one
// (bad escapes, NUL, quotes, an unknown or expired secret) makes the
// request anonymous, never a 500: pages send to sign-in, posts are 401, and
// beside a valid token it changes nothing.
func TestMalformedSessionCookieIsIgnored(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/mc-1/lines?server=sglang", crashingLog)
	b.settled("mc-1")
	for _, raw := range []string{"lw_session=%FF%FE", "lw_session=%zz", "lw_session=a%00b", "lw_session=\"unterminated",
		"lw_session=lw_not-a-session-anyone-has", "lw_session=" + strings.Repeat("x", 4000)} {
		for _, path := range []string{"/rules", "/rules/new?launch=mc-1&alarm=1", "/review", "/launches/mc-1"} {
			req, _ := http.NewRequest("GET", b.url+path, nil)
			req.Header.Set("Cookie", raw)
			res, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login?next=") {
				t.Errorf("GET %s with Cookie %.40s: %d (Location %q), want 303 to sign in", path, raw, res.StatusCode, res.Header.Get("Location"))
			}
			if r := b.do("GET", path, "", nil, "Cookie", raw); r.status != http.StatusOK {
				t.Errorf("GET %s with Cookie %.40s and a token: %d, want 200", path, raw, r.status)
			}
		}
		r := b.do("POST", "/rules", "application/x-www-form-urlencoded", []byte(ruleFormBody("CUDA out of memory").Encode()),
			"Cookie", raw, "Authorization", "", "Sec-Fetch-Site", "same-origin")
		if r.status != http.StatusUnauthorized {
			t.Errorf("rule post with Cookie %.40s: %d, want 401", raw, r.status)
		}
	}
	if doc := b.page("/rules", 200); testid(doc, "rule-row").Length() != 0 {
		t.Errorf("a rule was stored by an anonymous post")
	}
}

func TestRuleFormRefusesBlindingMatchers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct{ matcher, pattern, why string }{
		{"regex", ".*", "matches the empty string"},
		{"regex", ".+", "ordinary log lines"},
		{"regex", "^", "matches the empty string"},
		{"substring", "error", "error lines"},
		{"substring", "INFO", "ordinary log lines"},
	} {
		form := ruleFormBody(tc.pattern)
		form.Set("matcher", tc.matcher)
		res := b.postForm("/rules", form, false)
		body := readBody(t, res)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tc.why) {
			t.Errorf("%s %q: %d, want 422 saying %q", tc.matcher, tc.pattern, res.StatusCode, tc.why)
		}
	}
	if doc := b.page("/rules", 200); testid(doc, "rule-row").Length() != 0 {
		t.Errorf("a refused rule was stored")
	}
}

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
