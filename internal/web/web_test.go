package web_test

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// testBundle is a real web server on a fresh database.
type testBundle struct {
	t     testing.TB
	url   string
	store *store.Store
	srv   *webtest.Server
}

func setup(t testing.TB) *testBundle {
	return setupWith(t, web.Config{})
}

func setupWith(t testing.TB, cfg web.Config) *testBundle {
	t.Helper()
	srv := webtest.Start(t, cfg)
	return &testBundle{t: t, url: srv.URL, store: srv.Store, srv: srv}
}

// testWriter sends a server's log to t.Log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (b *testBundle) do(method, path, contentType string, body []byte, headers ...string) response {
	b.t.Helper()
	req, err := http.NewRequest(method, b.url+path, bytes.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	// Requests act as the server's admin token unless the test gives its
	// own Authorization ("" for none: an anonymous request).
	req.Header.Set("Authorization", "Bearer "+webtest.AdminToken)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Authorization" && headers[i+1] == "" {
			req.Header.Del("Authorization")
			continue
		}
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: data}
}

func (b *testBundle) postText(path, body string) pipeline.Ack {
	b.t.Helper()
	return b.ack(b.do("POST", path, "text/plain", []byte(body)))
}

func (b *testBundle) postNDJSON(path, body string) pipeline.Ack {
	b.t.Helper()
	return b.ack(b.do("POST", path, "application/x-ndjson", []byte(body)))
}

func (b *testBundle) ack(r response) pipeline.Ack {
	b.t.Helper()
	if r.status != http.StatusOK {
		b.t.Fatalf("status %d: %s", r.status, r.body)
	}
	var a pipeline.Ack
	if err := json.Unmarshal(r.body, &a); err != nil {
		b.t.Fatalf("ack %s: %v", r.body, err)
	}
	return a
}

type launchView struct {
	Key      string            `json:"key"`
	Name     string            `json:"name"`
	Server   string            `json:"server"`
	Host     string            `json:"host"`
	Labels   map[string]string `json:"labels"`
	Status   string            `json:"status"`
	LastSeq  int64             `json:"last_seq"`
	ReadySeq *int64            `json:"ready_seq"`
	// Endpoints is never null: [] when the server announced none.
	Endpoints *[]string `json:"endpoints"`
	Counts    struct {
		Lines      int64 `json:"lines"`
		Alarms     int   `json:"alarms"`
		OpenAlarms int   `json:"open_alarms"`
	} `json:"counts"`
	Times struct {
		FirstLine *string `json:"first_line"`
		LastLine  *string `json:"last_line"`
	} `json:"times"`
}

func (b *testBundle) launch(key string) launchView {
	b.t.Helper()
	r := b.do("GET", "/api/v1/launches/"+key, "", nil)
	if r.status != http.StatusOK {
		b.t.Fatalf("GET launch %s: %d %s", key, r.status, r.body)
	}
	var l launchView
	if err := json.Unmarshal(r.body, &l); err != nil {
		b.t.Fatal(err)
	}
	return l
}

// settled reads a launch as a poller does right after its last batch: the
// read waits until a fatal alarm that is settling settled (at most the
// settle bound), so the status is the verdict.
func (b *testBundle) settled(key string) launchView {
	b.t.Helper()
	return b.launch(key)
}

type lineView struct {
	Seq    int64  `json:"seq"`
	TS     string `json:"ts"`
	Stream string `json:"stream"`
	Kind   string `json:"kind"`
	Alarm  *int   `json:"alarm"`
	Text   string `json:"text"`
}

type linesPage struct {
	Lines     []lineView `json:"lines"`
	NextAfter *int64     `json:"next_after"`
}

// lines returns every stored line of a launch, following the pages.
func (b *testBundle) lines(key string) []lineView {
	b.t.Helper()
	var all []lineView
	after := int64(0)
	for {
		r := b.do("GET", "/api/v1/launches/"+key+"/lines?limit=10000&after="+itoa(after), "", nil)
		if r.status != http.StatusOK {
			b.t.Fatalf("GET lines: %d %s", r.status, r.body)
		}
		var p linesPage
		if err := json.Unmarshal(r.body, &p); err != nil {
			b.t.Fatal(err)
		}
		all = append(all, p.Lines...)
		if p.NextAfter == nil {
			return all
		}
		after = *p.NextAfter
	}
}

func (b *testBundle) exists(key string) bool {
	b.t.Helper()
	r := b.do("GET", "/api/v1/launches/"+key, "", nil)
	switch r.status {
	case http.StatusOK:
		return true
	case http.StatusNotFound:
		return false
	}
	b.t.Fatalf("GET launch %s: %d %s", key, r.status, r.body)
	return false
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func texts(lines []lineView) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}

// csrfToken is the CSRF token the pages of a session carry (their
// csrf-token meta), read as a browser would.
func (b *testBundle) csrfToken(session string) string {
	b.t.Helper()
	r := b.do("GET", "/rules", "", nil, "Authorization", "", "Cookie", "lw_session="+session)
	m := regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)"`).FindSubmatch(r.body)
	if r.status != 200 || m == nil {
		b.t.Fatalf("no CSRF token on /rules for the session (%d)", r.status)
	}
	return html.UnescapeString(string(m[1]))
}

// authorize makes req act as the test server's admin token.
func authorize(req *http.Request) *http.Request {
	req.Header.Set("Authorization", "Bearer "+webtest.AdminToken)
	return req
}

// adminHeader is a header that acts as the test server's admin token, for
// websocket dials.
func adminHeader(h http.Header) http.Header {
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	if _, ok := h["Authorization"]; !ok {
		h.Set("Authorization", "Bearer "+webtest.AdminToken)
	} else if h.Get("Authorization") == "" {
		h.Del("Authorization")
	}
	return h
}
