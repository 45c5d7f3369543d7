package notify_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/notify"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
	"launchwatch/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// receiver is a real HTTP endpoint that records what it is sent and fails
// the first fail requests with a 503.
type receiver struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []delivery
	fail int
}

type delivery struct {
	id, event string
	body      map[string]any
	raw       string
}

func newReceiver(t *testing.T, fail int) *receiver {
	r := &receiver{fail: fail}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(req.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("receiver: body is not JSON: %v: %s", err, raw)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.got = append(r.got, delivery{id: req.Header.Get("X-Launchwatch-Delivery"), event: req.Header.Get("X-Launchwatch-Event"), body: body, raw: string(raw)})
		if len(r.got) <= r.fail {
			http.Error(w, "receiver is down for maintenance", http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) deliveries() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.got...)
}

// testBundle is a database with an ingest pipeline and a fake clock that
// the pipeline and the workers share.
type testBundle struct {
	ctx   context.Context
	st    *store.Store
	pipe  *pipeline.Pipeline
	clock *clock.Fake
}

func setup(t *testing.T) *testBundle {
	t.Helper()
	pool, _ := storetest.NewDB(t)
	st := store.New(pool)
	clk := clock.NewFake(time.Date(2031, 3, 4, 10, 0, 0, 0, time.UTC))
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	return &testBundle{ctx: context.Background(), st: st, pipe: pipeline.New(st, log, pipeline.WithClock(clk)), clock: clk}
}

// worker returns a new worker, as a restarted web process would make.
func (b *testBundle) worker(t *testing.T, cfg notify.Config) *notify.Worker {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	cfg.Clock, cfg.Client = b.clock, &http.Client{Transport: tr, Timeout: 10 * time.Second}
	if cfg.PublicURL == "" {
		cfg.PublicURL = "https://launchwatch.example.org"
	}
	return notify.New(b.st, cfg)
}

func (b *testBundle) hook(t *testing.T, url, format string, events ...string) store.Webhook {
	t.Helper()
	w, err := b.st.CreateWebhook(b.ctx, store.Webhook{URL: url, Format: format, Events: events, CreatedBy: "test", CreatedAt: b.clock.Now()})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// crash ships a short crashing log of launch key and reports its exit code 1.
func (b *testBundle) crash(t *testing.T, key string) {
	t.Helper()
	lines := []decode.Line{
		{Seq: 1, Text: "INFO 10:00:01 engine: loading model acme/tiny-demo-7b"},
		{Seq: 2, Text: "Traceback (most recent call last):"},
		{Seq: 3, Text: `  File "/opt/engine/boot.py", line 17, in start`},
		{Seq: 4, Text: "RuntimeError: widget pool exhausted on device 3"},
	}
	if _, err := b.pipe.Ingest(b.ctx, key, launchid.Attrs{Server: "sglang", Host: "gpu-node-7", Labels: map[string]string{"team": "infra"}}, lines); err != nil {
		t.Fatal(err)
	}
	one := 1
	if _, err := b.pipe.Exit(b.ctx, key, &one, "", false); err != nil {
		t.Fatal(err)
	}
}

func (b *testBundle) deliveryLog(t *testing.T, hook int64) []store.WebhookDelivery {
	t.Helper()
	ds, err := b.st.WebhookDeliveries(b.ctx, hook, 100)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// A receiver that fails twice still gets the delivery: each attempt is
// made by a new worker (a restarted process), when the backoff the clock
// is moved through says, and not before.
func TestFailingReceiverGetsDeliveryAfterBackoff(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, 2)
	h := b.hook(t, rcv.srv.URL+"/hook", "json", "crashed")
	b.crash(t, "demo-crash-1")

	next, err := b.worker(t, notify.Config{}).Work(b.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := rcv.deliveries(); len(got) != 1 {
		t.Fatalf("first attempt: %d requests, want 1", len(got))
	}
	if want := b.clock.Now().Add(notify.DefaultBackoff(1)); !next.Equal(want) {
		t.Errorf("next attempt due %v, want %v", next, want)
	}
	log := b.deliveryLog(t, h.ID)
	if len(log) != 1 || log[0].State != "pending" || log[0].Attempts != 1 || log[0].LastStatus == nil || *log[0].LastStatus != 503 ||
		log[0].LastError != "HTTP 503" {
		// Only the status: nothing of the answer's body is kept, which
		// would let a target show what an internal page says.
		t.Fatalf("log after a failed attempt: %+v, want last error \"HTTP 503\" and no body", log)
	}

	// Not due yet: nothing is sent.
	b.clock.Advance(notify.DefaultBackoff(1) - time.Second)
	if _, err := b.worker(t, notify.Config{}).Work(b.ctx); err != nil {
		t.Fatal(err)
	}
	if got := rcv.deliveries(); len(got) != 1 {
		t.Fatalf("before the backoff passed: %d requests, want 1", len(got))
	}
	b.clock.Advance(time.Second)
	if _, err := b.worker(t, notify.Config{}).Work(b.ctx); err != nil {
		t.Fatal(err)
	}
	b.clock.Advance(notify.DefaultBackoff(2))
	if _, err := b.worker(t, notify.Config{}).Work(b.ctx); err != nil {
		t.Fatal(err)
	}

	got := rcv.deliveries()
	if len(got) != 3 {
		t.Fatalf("%d requests, want 3 (two refused, one taken)", len(got))
	}
	for _, d := range got[1:] {
		if d.raw != got[0].raw || d.id != got[0].id {
			t.Errorf("a retry differs from the first attempt: %s %q vs %s %q", d.id, d.raw, got[0].id, got[0].raw)
		}
	}
	body := got[0].body
	if body["event"] != "crashed" || body["launch"] != "demo-crash-1" || got[0].event != "crashed" ||
		body["url"] != "https://launchwatch.example.org/launches/demo-crash-1" ||
		!strings.Contains(body["summary"].(string), "widget pool exhausted") {
		t.Errorf("payload = %s", got[0].raw)
	}
	log = b.deliveryLog(t, h.ID)
	if len(log) != 1 || log[0].State != "delivered" || log[0].Attempts != 3 || *log[0].LastStatus != 200 {
		t.Errorf("log after delivery: %+v", log)
	}
	// Delivered: no worker sends it again, however late.
	b.clock.Advance(24 * time.Hour)
	if _, err := b.worker(t, notify.Config{}).Work(b.ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(rcv.deliveries()); n != 3 {
		t.Errorf("%d requests after delivery, want 3", n)
	}
}

// Run sends what is queued when it starts and tries a refused delivery
// again when the clock reaches its backoff, with no sleep anywhere.
func TestRunRetriesOnTheClock(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, 1)
	h := b.hook(t, rcv.srv.URL, "json", "crashed")
	b.crash(t, "demo-run")
	w := b.worker(t, notify.Config{Poll: time.Hour})
	waiting := b.clock.Waiting()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx)
	}()
	defer func() { cancel(); <-done }()
	<-waiting // Run made its first pass and waits on the clock
	if got := rcv.deliveries(); len(got) != 1 {
		t.Fatalf("%d requests after the first pass, want 1", len(got))
	}
	b.clock.Advance(notify.DefaultBackoff(1))
	deadline := time.Now().Add(30 * time.Second)
	for b.deliveryLog(t, h.ID)[0].State != "delivered" {
		if time.Now().After(deadline) {
			t.Fatalf("not delivered after the backoff: %+v", b.deliveryLog(t, h.ID))
		}
		runtime.Gosched()
	}
	if got := rcv.deliveries(); len(got) != 2 {
		t.Errorf("%d requests, want 2", len(got))
	}
}

// A process that stops while a delivery's POST is in flight still records
// it: the receiver answered, so the delivery is delivered, and a worker
// that runs after it (another process, or this one restarted) sends it no
// second time. Before, the stop rolled the record back and the crash
// reached the receiver twice.
func TestStopDuringDeliveryRecordsIt(t *testing.T) {
	t.Parallel()
	b := setup(t)
	arrived, answer := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	posts := 0
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		mu.Lock()
		posts++
		first := posts == 1
		mu.Unlock()
		if first {
			close(arrived)
			<-answer // the process is told to stop meanwhile
		}
	}))
	t.Cleanup(rcv.Close)
	h := b.hook(t, rcv.URL, "json", "crashed")
	b.crash(t, "demo-stop")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.worker(t, notify.Config{Poll: time.Hour}).Run(ctx)
	}()
	<-arrived
	cancel()
	close(answer)
	<-done
	if got := b.deliveryLog(t, h.ID); len(got) != 1 || got[0].State != "delivered" || got[0].Attempts != 1 {
		t.Fatalf("delivery log after the stop %+v, want one delivered at its first attempt", got)
	}
	if _, err := b.worker(t, notify.Config{}).Work(b.ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if posts != 1 {
		t.Errorf("the receiver got %d POSTs, want 1", posts)
	}
}
