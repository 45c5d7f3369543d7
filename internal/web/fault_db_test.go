package web_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"launchwatch/internal/web"
)

// faultPoster posts numbered batches of one launch until all are stored,
// retrying a batch the server answered 503, and counts the answers.
type faultPoster struct {
	name    string
	request func(batch int) *http.Request
	batches int
	stored  *atomic.Int64 // batches stored, over all posters
	answers map[int]int   // status → count
	faults  []string      // answers a shipper must not get
}

func (p *faultPoster) run(ctx context.Context) {
	client := &http.Client{Timeout: 30 * time.Second}
	for batch := 0; batch < p.batches; {
		if ctx.Err() != nil {
			p.faults = append(p.faults, fmt.Sprintf("batch %d not stored in time", batch))
			return
		}
		res, err := client.Do(p.request(batch))
		if err != nil {
			p.faults = append(p.faults, fmt.Sprintf("batch %d: %v", batch, err))
			return
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		p.answers[res.StatusCode]++
		switch {
		case res.StatusCode == http.StatusOK || res.StatusCode == http.StatusNoContent:
			batch++
			p.stored.Add(1)
		case res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") != "":
			// Keep the lines and try again, as a shipper does (a short
			// pause instead of the Retry-After seconds keeps the test short).
			time.Sleep(20 * time.Millisecond)
		default:
			p.faults = append(p.faults, fmt.Sprintf("batch %d: %d %s (Retry-After %q)", batch, res.StatusCode,
				bytes.TrimSpace(body), res.Header.Get("Retry-After")))
		}
	}
}

const faultLinesPerBatch = 20

func nativeFaultRequest(base, launch string) func(int) *http.Request {
	return func(batch int) *http.Request {
		var body strings.Builder
		for i := range faultLinesPerBatch {
			fmt.Fprintf(&body, "%s line %d\n", launch, batch*faultLinesPerBatch+i+1)
		}
		req, _ := http.NewRequest("POST", fmt.Sprintf("%s/api/v1/launches/%s/lines?seq=%d", base, launch, batch*faultLinesPerBatch+1),
			strings.NewReader(body.String()))
		req.Header.Set("Content-Type", "text/plain")
		return authorize(req)
	}
}

func otlpFaultRequest(base, launch string) func(int) *http.Request {
	return func(batch int) *http.Request {
		var recs []string
		for i := range faultLinesPerBatch {
			n := batch*faultLinesPerBatch + i + 1
			recs = append(recs, fmt.Sprintf(`{"timeUnixNano":"%d","body":{"stringValue":"%s line %d"}}`,
				t0.Add(time.Duration(n)*time.Millisecond).UnixNano(), launch, n))
		}
		body := fmt.Sprintf(`{"resourceLogs":[{"resource":{"attributes":[{"key":"launchwatch.launch","value":{"stringValue":%q}}]},`+
			`"scopeLogs":[{"logRecords":[%s]}]}]}`, launch, strings.Join(recs, ","))
		req, _ := http.NewRequest("POST", base+"/v1/logs", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return authorize(req)
	}
}

// TestDatabaseCrashGivesNo500: PostgreSQL stopped with `pg_ctl stop -m
// immediate` (and started again) under four OTLP and four native posters:
// every answer is 200/204, or 503 with Retry-After, never a 500, and after
// the retries every launch holds each of its lines once, in order.
func TestDatabaseCrashGivesNo500(t *testing.T) {
	t.Parallel()
	f := startFaultCluster(t, web.Config{})
	const batches = 40
	var stored atomic.Int64
	var posters []*faultPoster
	for i := range 4 {
		for _, kind := range []string{"native", "otlp"} {
			launch := fmt.Sprintf("%s-%d", kind, i)
			req := nativeFaultRequest(f.url, launch)
			if kind == "otlp" {
				req = otlpFaultRequest(f.url, launch)
			}
			posters = append(posters, &faultPoster{name: launch, request: req, batches: batches, stored: &stored, answers: map[int]int{}})
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for _, p := range posters {
		wg.Go(func() { p.run(ctx) })
	}
	// Crash while the posters are in full flow: a fifth of the batches in.
	waitFor(t, 30*time.Second, "a fifth of the batches stored", func() bool {
		return stored.Load() >= int64(len(posters)*batches/5)
	})
	f.crash()
	wg.Wait()

	unavailable := 0
	for _, p := range posters {
		for _, fault := range p.faults {
			t.Errorf("%s: %s", p.name, fault)
		}
		unavailable += p.answers[http.StatusServiceUnavailable]
		t.Logf("%s: answers %v", p.name, p.answers)
	}
	if unavailable == 0 {
		t.Errorf("no poster saw the crash (no 503): the test did not test it")
	}
	b := &testBundle{t: t, url: f.url}
	for _, p := range posters {
		var want []string
		for n := 1; n <= batches*faultLinesPerBatch; n++ {
			want = append(want, fmt.Sprintf("%s line %d", p.name, n))
		}
		lines := b.lines(p.name)
		if got := texts(lines); !slices.Equal(got, want) {
			t.Errorf("%s holds %d lines, want %d once each in order", p.name, len(got), len(want))
		}
	}
}

// TestHungDatabaseGives503: with every PostgreSQL process SIGSTOPped, an
// ingest post (native and OTLP) answers 503 with Retry-After within 10 s,
// and /readyz says the database does not answer; once it runs again the
// same batch is stored.
func TestHungDatabaseGives503(t *testing.T) {
	t.Parallel()
	f := startFaultCluster(t, web.Config{})
	b := &testBundle{t: t, url: f.url}
	native, otlp := nativeFaultRequest(f.url, "hung-native"), otlpFaultRequest(f.url, "hung-otlp")
	for _, req := range []*http.Request{native(0), otlp(0)} {
		if r := send(t, req); r.status/100 != 2 {
			t.Fatalf("before the freeze: %d %s", r.status, r.body)
		}
	}
	thaw := f.freeze()
	var wg sync.WaitGroup
	for _, req := range []*http.Request{native(1), otlp(1)} {
		wg.Go(func() {
			start := time.Now()
			r := send(t, req)
			took := time.Since(start)
			t.Logf("%s on a hung database: %d after %s", req.URL.Path, r.status, took.Round(time.Millisecond))
			if r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" || took > 10*time.Second {
				t.Errorf("%s %s on a hung database: %d (Retry-After %q) after %s, want 503 with Retry-After within 10s: %s",
					req.Method, req.URL.Path, r.status, r.header.Get("Retry-After"), took.Round(time.Millisecond), r.body)
			}
		})
	}
	r := b.do("GET", "/readyz", "", nil)
	if r.status != http.StatusServiceUnavailable || !strings.Contains(string(r.body), "does not answer") {
		t.Errorf("/readyz on a hung database: %d %s", r.status, r.body)
	}
	wg.Wait()
	thaw()
	// The shipper's retry is stored once the database runs again.
	waitFor(t, 30*time.Second, "the retried batches stored", func() bool {
		return send(t, native(1)).status == http.StatusOK && send(t, otlp(1)).status == http.StatusOK
	})
	for _, key := range []string{"hung-native", "hung-otlp"} {
		if n := len(b.lines(key)); n != 2*faultLinesPerBatch {
			t.Errorf("%s holds %d lines, want %d", key, n, 2*faultLinesPerBatch)
		}
	}
}

// send posts req (from a goroutine too: no t.Fatal) and reads the answer.
func send(t *testing.T, req *http.Request) response {
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(authorize(req))
	if err != nil {
		t.Errorf("%s %s: %v", req.Method, req.URL, err)
		return response{}
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: body}
}

// waitFor polls cond until it holds, failing the test after within.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBusyDatabaseIsNotCutButAHungOneIs: a batch that waits on the
// database longer than the probe period (here for its launch's row lock)
// goes on while the database answers the probe, and ends 503 once the
// database hangs (every process SIGSTOPped) within the probe period plus
// the probe's bound.
func TestBusyDatabaseIsNotCutButAHungOneIs(t *testing.T) {
	t.Parallel()
	const probeAfter = time.Second
	f := startFaultCluster(t, web.Config{DatabaseProbeAfter: probeAfter})
	native := nativeFaultRequest(f.url, "busy")
	if r := send(t, native(0)); r.status != http.StatusOK {
		t.Fatalf("first batch: %d %s", r.status, r.body)
	}
	ctx := context.Background()
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // the lock only
	if _, err := tx.Exec(ctx, `SELECT 1 FROM launches WHERE key = 'busy' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	answer := make(chan response, 1)
	go func() { answer <- send(t, native(1)) }()
	select {
	case r := <-answer:
		t.Fatalf("the batch waiting for its launch answered %d %s while the database answers probes", r.status, r.body)
	case <-time.After(4 * probeAfter):
	}
	thaw := f.freeze()
	defer thaw() // before the rollback above, which needs a running server
	frozen := time.Now()
	select {
	case r := <-answer:
		if r.status != http.StatusServiceUnavailable {
			t.Errorf("the batch on a hung database answered %d %s, want 503", r.status, r.body)
		}
		t.Logf("503 %s after the freeze", time.Since(frozen).Round(time.Millisecond))
	case <-time.After(probeAfter + 2*time.Second + 5*time.Second):
		t.Fatalf("no answer %s after the database hung", time.Since(frozen).Round(time.Second))
	}
}
