package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"launchwatch/internal/notify"
	"launchwatch/internal/store"
	"launchwatch/internal/web"
)

// allowPrivateHooks is a server with --webhook-allow-private, for tests
// whose receiver is a local httptest server.
var allowPrivateHooks = web.Config{WebhookAllowPrivate: true}

// hookReceiver is a real HTTP endpoint recording the bodies it is sent.
type hookReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var body map[string]any
		raw, _ := io.ReadAll(req.Body)
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("receiver: %v: %s", err, raw)
		}
		r.mu.Lock()
		r.bodies = append(r.bodies, body)
		r.mu.Unlock()
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *hookReceiver) got() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.bodies...)
}

// deliver runs one pass of a delivery worker on the server's database, as
// a web process's worker would.
func (b *testBundle) deliver() {
	b.t.Helper()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	w := notify.New(b.store, notify.Config{PublicURL: b.url, Clock: b.srv.Clock, Client: &http.Client{Transport: tr, Timeout: 10 * time.Second}})
	if _, err := w.Work(context.Background()); err != nil {
		b.t.Fatal(err)
	}
}

func TestWebhookAPI(t *testing.T) {
	t.Parallel()
	b := setupWith(t, allowPrivateHooks) // the receiver is on 127.0.0.1
	rcv := newHookReceiver(t)
	b.postText("/api/v1/launches/api-hook-1/lines", "INFO engine: up\n")

	t.Run("RefusesBadInput", func(t *testing.T) {
		for _, tt := range []struct{ body, field string }{
			{`{"url":"ftp://files.example.com/x","format":"json","events":["crashed"]}`, "url"},
			{`{"url":"not a url","format":"json","events":["crashed"]}`, "url"},
			{`{"url":"javascript:alert(1)","format":"json","events":["crashed"]}`, "url"},
			{`{"url":"https://","format":"json","events":["crashed"]}`, "url"},
			{`{"url":"https://hooks.example.com/x","format":"xml","events":["crashed"]}`, "format"},
			{`{"url":"https://hooks.example.com/x","format":"json","events":[]}`, "events"},
			{`{"url":"https://hooks.example.com/x","format":"json","events":["boom"]}`, "events"},
			{`{"url":"https://hooks.example.com/x","format":"json","events":["ready"],"label":"=x"}`, "label"},
		} {
			r := b.do("POST", "/api/v1/webhooks", "application/json", []byte(tt.body))
			var ans struct{ Fields map[string]string }
			if err := json.Unmarshal(r.body, &ans); r.status != http.StatusUnprocessableEntity || err != nil || ans.Fields[tt.field] == "" {
				t.Errorf("%s: %d %s, want 422 naming %s", tt.body, r.status, r.body, tt.field)
			}
		}
		if r := b.do("POST", "/api/v1/webhooks", "application/json", []byte(`{"url":`)); r.status != http.StatusBadRequest {
			t.Errorf("broken JSON: %d %s", r.status, r.body)
		}
		if r := b.do("GET", "/api/v1/webhooks", "", nil); !strings.Contains(string(r.body), `"webhooks":[]`) {
			t.Errorf("a refused webhook was stored: %s", r.body)
		}
	})

	var made struct {
		ID            int64
		URL, Format   string
		Events        []string
		Server, Label string
		CreatedBy     string `json:"created_by"`
	}
	r := b.do("POST", "/api/v1/webhooks", "application/json",
		[]byte(`{"url":"`+rcv.srv.URL+`/in","format":"json","events":["alarm","crashed"],"server":"","label":"team=infra"}`))
	if r.status != http.StatusCreated {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	must(t, json.Unmarshal(r.body, &made))
	if made.ID == 0 || made.URL != rcv.srv.URL+"/in" || made.Format != "json" || strings.Join(made.Events, ",") != "alarm,crashed" ||
		made.Label != "team=infra" || !strings.HasPrefix(made.CreatedBy, "token:") {
		t.Errorf("created %s", r.body)
	}
	id := strconv.FormatInt(made.ID, 10)

	if r := b.do("POST", "/api/v1/webhooks/"+id+"/test", "", nil); r.status != http.StatusAccepted {
		t.Fatalf("test: %d %s", r.status, r.body)
	}
	b.deliver()
	got := rcv.got()
	if len(got) != 1 || got[0]["event"] != "test" || got[0]["launch"] != "api-hook-1" || got[0]["url"] != b.url+"/launches/api-hook-1" {
		t.Fatalf("test deliveries = %v", got)
	}
	var log struct {
		Deliveries []struct {
			Event, Launch, State string
			Attempts             int
			LastStatus           *int `json:"last_status"`
		}
	}
	r = b.do("GET", "/api/v1/webhooks/"+id+"/deliveries", "", nil)
	must(t, json.Unmarshal(r.body, &log))
	if len(log.Deliveries) != 1 || log.Deliveries[0].State != "delivered" || log.Deliveries[0].Attempts != 1 ||
		*log.Deliveries[0].LastStatus != 200 || log.Deliveries[0].Launch != "api-hook-1" {
		t.Errorf("log = %s", r.body)
	}
	if r := b.do("GET", "/api/v1/webhooks", "", nil); !strings.Contains(string(r.body), `"delivered":1`) {
		t.Errorf("list = %s", r.body)
	}

	if r := b.do("DELETE", "/api/v1/webhooks/"+id, "", nil); r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	for _, r := range []response{b.do("DELETE", "/api/v1/webhooks/"+id, "", nil), b.do("POST", "/api/v1/webhooks/"+id+"/test", "", nil),
		b.do("GET", "/api/v1/webhooks/"+id+"/deliveries", "", nil)} {
		if r.status != http.StatusNotFound {
			t.Errorf("after delete: %d %s, want 404", r.status, r.body)
		}
	}
	events, err := b.store.AuditFor(context.Background(), store.WebhookSubject(made.ID))
	must(t, err)
	var actions []string
	for _, e := range events {
		actions = append(actions, e.Action)
	}
	slices.Sort(actions)
	if strings.Join(actions, ",") != "webhook.create,webhook.delete,webhook.test" {
		t.Errorf("audit = %v", actions)
	}
}

// The admin page makes a target, sends it a test and shows the delivery
// in its log, refuses a bad URL with the form kept, and deletes it.
func TestWebhooksAdminPage(t *testing.T) {
	t.Parallel()
	b := setupWith(t, allowPrivateHooks) // the receiver is on 127.0.0.1
	rcv := newHookReceiver(t)
	res := b.postForm("/admin/webhooks", url.Values{"url": {"gopher://hooks.example.com/"}, "format": {"slack"}, "events": {"crashed"}}, false)
	if res.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("bad URL: %d", res.StatusCode)
	}
	body, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(body), "must be an http:// or https:// URL") || !strings.Contains(string(body), `value="gopher://hooks.example.com/"`) {
		t.Errorf("the refused form does not say why or lost its URL: %s", body)
	}

	res = b.postForm("/admin/webhooks", url.Values{"url": {rcv.srv.URL}, "format": {"slack"}, "events": {"crashed", "ready"}, "server": {"sglang"}}, false)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("create: %d", res.StatusCode)
	}
	doc := b.page("/admin/webhooks", http.StatusOK)
	if n := testid(doc, "webhook").Length(); n != 1 || testid(doc, "webhook-url").Text() != rcv.srv.URL {
		t.Fatalf("page shows %d webhooks: %s", n, testid(doc, "webhook").Text())
	}
	action, _ := doc.Find(`form[action$="/test"]`).Attr("action")
	if res := b.postForm(action, url.Values{}, false); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("send test: %d", res.StatusCode)
	}
	b.deliver()
	if got := rcv.got(); len(got) != 1 || !strings.Contains(got[0]["text"].(string), "test notification") {
		t.Fatalf("receiver got %v", got)
	}
	doc = b.page("/admin/webhooks", http.StatusOK)
	if s := testid(doc, "delivery-state").Text(); s != "delivered" || testid(doc, "delivery-attempts").Text() != "1" {
		t.Errorf("log row: state %q attempts %q", s, testid(doc, "delivery-attempts").Text())
	}
	action, _ = doc.Find(`form[action$="/delete"]`).Attr("action")
	if res := b.postForm(action, url.Values{}, false); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	if doc := b.page("/admin/webhooks", http.StatusOK); testid(doc, "webhook").Length() != 0 {
		t.Errorf("deleted webhook still shown")
	}
}

// By default a webhook cannot make the server a probe of its own network:
// a target on a loopback, link-local (cloud metadata), private or shared
// address, or a name that resolves to one, is refused with a 422 that says
// why, by the API and by the admin page, and nothing is stored.
func TestWebhookToPrivateAddressIs422(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newHookReceiver(t) // a real receiver on 127.0.0.1
	for _, target := range []string{
		rcv.srv.URL + "/in",
		"http://[::1]:8080/in",
		"http://169.254.169.254/latest/meta-data/",
		"http://[fd00:ec2::254]/latest/meta-data/",
		"http://10.0.0.7:9093/api/v2/alerts",
		"http://192.168.1.20/",
		"http://172.20.0.5/",
		"http://100.100.100.200/latest/meta-data/",
		"http://[::ffff:127.0.0.1]:8080/",
		"http://localhost:" + strings.TrimPrefix(rcv.srv.URL, "http://127.0.0.1:") + "/in",
	} {
		r := b.do("POST", "/api/v1/webhooks", "application/json", []byte(`{"url":"`+target+`","format":"json","events":["crashed"]}`))
		var ans struct{ Fields map[string]string }
		if err := json.Unmarshal(r.body, &ans); r.status != http.StatusUnprocessableEntity || err != nil ||
			!strings.Contains(ans.Fields["url"], "--webhook-allow-private") {
			t.Errorf("%s: %d %s, want 422 saying the address is refused", target, r.status, r.body)
		}
	}
	r := b.do("POST", "/api/v1/webhooks", "application/json", []byte(`{"url":"`+rcv.srv.URL+`/in","format":"json","events":["crashed"]}`))
	if !strings.Contains(string(r.body), "127.0.0.1 is a loopback address") {
		t.Errorf("the refusal does not say why: %s", r.body)
	}
	res := b.postForm("/admin/webhooks", url.Values{"url": {rcv.srv.URL}, "format": {"json"}, "events": {"crashed"}}, false)
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), "loopback address") {
		t.Errorf("the admin form: %d, want 422 saying loopback", res.StatusCode)
	}
	if r := b.do("GET", "/api/v1/webhooks", "", nil); !strings.Contains(string(r.body), `"webhooks":[]`) {
		t.Errorf("a refused webhook was stored: %s", r.body)
	}
	// A public address (not resolved: the literal is the address) is fine.
	if r := b.do("POST", "/api/v1/webhooks", "application/json", []byte(`{"url":"https://203.0.114.9/hook","format":"json","events":["crashed"]}`)); r.status != http.StatusCreated {
		t.Errorf("a public address: %d %s, want 201", r.status, r.body)
	}
}
