package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// syntheticLaunch writes n made-up lines of a long-running server: a
// startup with progress bars, then request logs with varying numbers and
// an occasional warning; crashed launches end in a traceback.
func syntheticLaunch(n int, crashed bool) []string {
	var batches []string
	var b strings.Builder
	for i := 1; i <= n; i++ {
		switch {
		case i < 200:
			fmt.Fprintf(&b, "Loading synth shards: %3d%%|%-10s| %d/200 [00:%02d<00:00, 9.1it/s]\n", i/2, strings.Repeat("█", i/20), i, i%60)
		case i%5000 == 0:
			fmt.Fprintf(&b, "WARNING 05-02 12:%02d:%02d [sched.py:77] queue depth %d above soft limit\n", i/60%60, i%60, i%97)
		case i%3 == 0:
			fmt.Fprintf(&b, "INFO 05-02 12:%02d:%02d [metrics.py:88] Avg prompt throughput: %d.%d tokens/s, running: %d reqs\n", i/60%60, i%60, i%900, i%10, i%64)
		default:
			fmt.Fprintf(&b, "INFO:     10.0.%d.%d:%d - \"POST /v1/completions HTTP/1.1\" 200 OK\n", i%250, i%200, 30000+i%9000)
		}
		if i%10000 == 0 || i == n {
			batches = append(batches, b.String())
			b.Reset()
		}
	}
	if crashed {
		batches = append(batches, `ERROR 05-02 13:00:00 [core.py:12] EngineCore hit an exception.
ERROR 05-02 13:00:00 [core.py:12] Traceback (most recent call last):
ERROR 05-02 13:00:00 [core.py:12]   File "/srv/synth/step.py", line 40, in step
ERROR 05-02 13:00:00 [core.py:12]     out = run(batch)
ERROR 05-02 13:00:00 [core.py:12]           ^^^^^^^^^^
ERROR 05-02 13:00:00 [core.py:12] ValueError: batch of 4097 sequences exceeds the scheduler limit 4096
`)
	}
	return batches
}

// BenchmarkCompareLarge compares two launches of 200k lines each, as
// /compare serves it; ms/op is the server time of one comparison (local
// HTTP included). The summary of each launch is kept at ingest; the
// one-off build of a summary for a launch stored before it existed is
// logged too.
func BenchmarkCompareLarge(b *testing.B) {
	bundle := setup(b)
	const n = 200_000
	for key, crashed := range map[string]bool{"big-1": false, "big-2": true} {
		for _, batch := range syntheticLaunch(n, crashed) {
			bundle.postText("/api/v1/launches/"+key+"/lines?server=vllm&name=synth", batch)
		}
	}
	get := func() {
		req, _ := http.NewRequest("GET", bundle.url+"/compare?a=big-1&b=big-2", nil)
		res, err := http.DefaultClient.Do(authorize(req))
		if err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
	bundle.report("/api/v1/launches/big-2/exit", `{"code": 1}`, "crashed")
	doc := bundle.page("/compare?a=big-1&b=big-2", 200) // also warms the connection and the plan cache
	if first := doc.Find(`[data-testid="only-b"] [data-testid="template"]`).First(); first.AttrOr("data-tier", "") != "root cause" ||
		!strings.Contains(first.Text(), "ValueError: batch of 4097") {
		b.Fatalf("first entry %q", first.Text())
	}
	if _, err := bundle.store.Pool().Exec(context.Background(), `UPDATE launches SET templates_built = false`); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	get()
	b.Logf("first compare of two %d-line launches without a summary (built from every line): %s", n, time.Since(start).Round(time.Millisecond))
	b.ResetTimer()
	start = time.Now()
	for b.Loop() {
		get()
	}
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/compare")
}
