package failover

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// poster ships a growing list of lines the way the issue asks a native or
// an OTLP client to: one request at a time, in order; a batch that was not
// acknowledged (no answer, a 5xx, a 429) is sent again; and after a failed
// request or a change of the answers' Launchwatch-History it first asks the
// server which lines it holds (GET /seqs) and sends again, in order, every
// line from the first it lacks. A native batch carries its seqs, so a line
// the server holds already is a duplicate; an OTLP record carries no seq —
// the server numbers a launch's records in arrival order and knows a record
// it holds by its stream, time and text — so the server holds a prefix of
// the poster's records, and sending again from its end keeps the order.
type poster struct {
	name, launch string
	url          string // the web node, through the status proxy
	encode       func(first int, lines []string) (path, contentType string, body []byte)
	client       *http.Client

	mu      sync.Mutex
	lines   []string
	changed chan struct{} // closed when lines grow
	acked   int           // lines acknowledged: a prefix
	// lost counts lines that were acknowledged and then found missing;
	// failures the batches that failed; histories the changes of
	// Launchwatch-History seen; checks the times /seqs answered; failedAt
	// is when a request (a batch or /seqs) last failed.
	lost, failures, histories, checks int
	history                           string
	failedAt                          time.Time // the last failure
}

const posterBatch = 200

func newPoster(name, launch, url string, encode func(first int, lines []string) (string, string, []byte)) *poster {
	return &poster{name: name, launch: launch, url: url, encode: encode, changed: make(chan struct{}),
		client: &http.Client{Timeout: 10 * time.Second}}
}

// add queues lines to ship.
func (p *poster) add(lines []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines = append(p.lines, lines...)
	close(p.changed)
	p.changed = make(chan struct{})
}

type posterStats struct {
	acked, lost, failures, histories, checks int
	failedAt                                 time.Time
	queued                                   int
}

func (p *poster) stats() posterStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return posterStats{acked: p.acked, lost: p.lost, failures: p.failures, histories: p.histories, checks: p.checks,
		failedAt: p.failedAt, queued: len(p.lines)}
}

// run ships until ctx ends; a refusal (4xx other than 429) is reported to
// fail and ends it.
func (p *poster) run(ctx context.Context, fail func(string)) {
	check := true // at start too: what does the server hold?
	for ctx.Err() == nil {
		if check {
			if !p.check(ctx) {
				p.pause(ctx)
				continue
			}
			check = false
		}
		p.mu.Lock()
		first, changed := p.acked, p.changed
		batch := p.lines[first:min(len(p.lines), first+posterBatch)]
		p.mu.Unlock()
		if len(batch) == 0 {
			select {
			case <-ctx.Done():
				return
			case <-changed:
			}
			continue
		}
		path, contentType, body := p.encode(first, batch)
		status, history, err := p.post(ctx, path, contentType, body)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil || status >= 500 || status == http.StatusTooManyRequests:
			p.mu.Lock()
			p.failures++
			p.failedAt = time.Now()
			p.mu.Unlock()
			check = err != nil || status >= 500 // the server may have lost what it acknowledged
			p.pause(ctx)
			continue
		case status/100 != 2:
			fail(fmt.Sprintf("%s: batch from line %d refused: %d", p.name, first+1, status))
			return
		}
		p.mu.Lock()
		p.acked = first + len(batch)
		if history != "" && p.history != "" && history != p.history {
			p.histories++
			check = true
		}
		if history != "" {
			p.history = history
		}
		p.mu.Unlock()
	}
}

// pause waits a little before the next try.
func (p *poster) pause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(100 * time.Millisecond):
	}
}

// check asks the server which of the launch's lines it holds and goes on
// from the end of the prefix it holds.
func (p *poster) check(ctx context.Context) (ok bool) {
	defer func() {
		if !ok && ctx.Err() == nil {
			p.mu.Lock()
			p.failedAt = time.Now()
			p.mu.Unlock()
		}
	}()
	req, err := http.NewRequestWithContext(ctx, "GET", p.url+"/api/v1/launches/"+p.launch+"/seqs", nil)
	if err != nil {
		return false
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := p.client.Do(req)
	if err != nil {
		return false
	}
	defer res.Body.Close()
	held := 0
	switch res.StatusCode {
	case http.StatusOK:
		var page struct {
			Runs [][2]int `json:"runs"`
		}
		if err := json.NewDecoder(res.Body).Decode(&page); err != nil {
			return false
		}
		if len(page.Runs) > 0 && page.Runs[0][0] == 1 {
			held = page.Runs[0][1]
		}
	case http.StatusNotFound: // no launch: nothing held
	default:
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.checks++
	if h := res.Header.Get("Launchwatch-History"); h != "" {
		if p.history != "" && h != p.history {
			p.histories++
		}
		p.history = h
	}
	if held < p.acked {
		p.lost += p.acked - held
	}
	// More than acknowledged: a batch whose answer was lost was stored.
	p.acked = min(held, len(p.lines))
	return true
}

func (p *poster) post(ctx context.Context, path, contentType string, body []byte) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, "POST", p.url+path, bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := p.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	io.Copy(io.Discard, res.Body) //nolint:errcheck // the status says it
	return res.StatusCode, res.Header.Get("Launchwatch-History"), nil
}

// nativeBatch is an NDJSON batch with its seqs (line i is seq i+1).
func nativeBatch(launch string) func(int, []string) (string, string, []byte) {
	return func(first int, lines []string) (string, string, []byte) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		for i, l := range lines {
			enc.Encode(map[string]any{"seq": first + i + 1, "line": l}) //nolint:errcheck // to memory
		}
		return "/api/v1/launches/" + launch + "/lines?server=sglang", "application/x-ndjson", b.Bytes()
	}
}

// otlpBatch is an OTLP/HTTP JSON export of the lines as log records of
// one resource; record i was logged i ms after the poster's epoch, so each
// has an identity of its own (stream, time, text).
func otlpBatch(launch string, epoch time.Time) func(int, []string) (string, string, []byte) {
	type anyValue struct {
		StringValue string `json:"stringValue"`
	}
	type kv struct {
		Key   string   `json:"key"`
		Value anyValue `json:"value"`
	}
	type record struct {
		TimeUnixNano string   `json:"timeUnixNano"`
		Body         anyValue `json:"body"`
	}
	return func(first int, lines []string) (string, string, []byte) {
		recs := make([]record, len(lines))
		for i, l := range lines {
			at := epoch.Add(time.Duration(first+i) * time.Millisecond)
			recs[i] = record{TimeUnixNano: strconv.FormatInt(at.UnixNano(), 10), Body: anyValue{l}}
		}
		body := map[string]any{"resourceLogs": []any{map[string]any{
			"resource":  map[string]any{"attributes": []kv{{"launchwatch.launch", anyValue{launch}}, {"launchwatch.server", anyValue{"sglang"}}}},
			"scopeLogs": []any{map[string]any{"scope": map[string]any{"name": "failover-test"}, "logRecords": recs}},
		}}}
		b, _ := json.Marshal(body)
		return "/v1/logs", "application/json", b
	}
}
