package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// benchLaunches is how many launches each benchmark iteration measures,
// benchParallel how many at once.
const (
	benchLaunches = 50
	benchParallel = 10
)

// BenchmarkWaitVerdict measures the time from the POST of the line that
// decides a launch to the exit of `launchwatch wait` (its real code path,
// runWait, over the live websocket) against a real server with the default
// settle bound, p50 and p99 over benchLaunches launches:
//   - settled-by-line: the traceback is followed by a line in the same batch,
//     so the classifier settles it at once;
//   - settled-by-time: the traceback is the launch's last line, so it
//     settles when the bound after the batch passed (the settler);
//   - exit-report: the traceback is the last line and the deciding POST is
//     the process's exit report, which settles at once.
//
// Run: go test -run '^$' -bench BenchmarkWaitVerdict -benchtime 1x ./cmd/launchwatch/
func BenchmarkWaitVerdict(b *testing.B) {
	srv := webtest.Start(b, web.Config{})
	for _, tc := range []struct {
		name   string
		decide func(key string) // the deciding POST
	}{
		{"settled-by-line", func(key string) {
			benchPost(b, srv.URL, key, waitFrames+waitFinal+"INFO 04-02 09:28:25 shutting down workers\n")
		}},
		{"settled-by-time", func(key string) { benchPost(b, srv.URL, key, waitFrames+waitFinal) }},
		{"exit-report", func(key string) {
			benchPost(b, srv.URL, key, waitFrames+waitFinal)
			benchExit(b, srv.URL, key)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var all []time.Duration
			for i := range b.N {
				all = append(all, measureWaits(b, srv, fmt.Sprintf("%s-%d", tc.name, i), tc.decide)...)
			}
			slices.Sort(all)
			b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(all[(len(all)*99)/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(0, "ns/op") // the latencies are the result, not the iteration time
		})
	}
}

// measureWaits runs benchLaunches launches, benchParallel at a time, each
// followed by runWait, and returns how long after the deciding POST began
// each wait exited.
func measureWaits(b *testing.B, srv *webtest.Server, prefix string, decide func(string)) []time.Duration {
	var mu sync.Mutex
	var out []time.Duration
	sem := make(chan struct{}, benchParallel)
	var wg sync.WaitGroup
	for n := range benchLaunches {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			key := fmt.Sprintf("%s-%d", prefix, n)
			benchPost(b, srv.URL, key, waitLoading)
			buf := &syncBuffer{}
			exited := make(chan int, 1)
			go func() {
				exited <- runWait(context.Background(), []string{key, "--url", srv.URL, "--timeout", "60s", "--token", webtest.AdminToken}, buf, buf)
			}()
			// Measure from a following wait: it printed the launch's status.
			for !strings.Contains(buf.String(), key+" ") {
				select {
				case code := <-exited:
					b.Errorf("%s: wait exited %d before the deciding line: %q", key, code, buf.String())
					return
				case <-time.After(time.Millisecond):
				}
			}
			start := time.Now()
			decide(key)
			code := <-exited
			d := time.Since(start)
			if code != 1 {
				b.Errorf("%s: wait exit %d, output %q", key, code, buf.String())
			}
			mu.Lock()
			out = append(out, d)
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

func benchPost(b *testing.B, url, key, body string) {
	res, err := http.Post(url+"/api/v1/launches/"+key+"/lines?server=vllm", "text/plain", strings.NewReader(body))
	if err != nil {
		b.Error(err)
		return
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b.Errorf("post %s: %d", key, res.StatusCode)
	}
}

func benchExit(b *testing.B, url, key string) {
	res, err := http.Post(url+"/api/v1/launches/"+key+"/exit", "application/json", strings.NewReader(`{"code":1}`))
	if err != nil {
		b.Error(err)
		return
	}
	res.Body.Close()
}
