package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// benchLine is a realistic line of a launch's steady state, numbered n.
func benchLine(n int) string {
	switch {
	case n%1000 == 0:
		return fmt.Sprintf("[2026-04-02 09:28:%02d] server_args=ServerArgs(model_path='/models/m', tp_size=8, mem_fraction_static=0.85)", n%60)
	case n%7 == 0:
		return fmt.Sprintf("[2026-04-02 09:28:%02d TP%d] Load weight begin. avail mem=%d.12 GB", n%60, n%8, 70+n%9)
	}
	return fmt.Sprintf("[2026-04-02 09:28:%02d TP%d] Decode batch. #running-req: %d, #token: %d, token usage: 0.%02d, gen throughput (token/s): %d.%02d",
		n%60, n%8, n%33, n*17, n%100, 1000+n, n%100)
}

// postSeqs posts the lines of the given seqs as NDJSON, in batches.
func postSeqs(tb testing.TB, url, key string, seqs []int) {
	tb.Helper()
	for len(seqs) > 0 {
		n := min(len(seqs), 5000)
		var body bytes.Buffer
		for _, s := range seqs[:n] {
			fmt.Fprintf(&body, `{"seq":%d,"line":%q}`+"\n", s, benchLine(s))
		}
		seqs = seqs[n:]
		req, _ := http.NewRequest("POST", url+"/api/v1/launches/"+key+"/lines?server=sglang", &body)
		req.Header.Set("Content-Type", "application/x-ndjson")
		res, err := http.DefaultClient.Do(authorize(req))
		if err != nil {
			tb.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			tb.Fatalf("status %d", res.StatusCode)
		}
	}
}

// BenchmarkGapFill compares, on launches of 100,000 lines, a 1-line batch
// that fills a gap in the middle of its launch with a 1-line batch that
// continues its launch, alternating the two so that both see the same
// machine: it reports both times a batch and their ratio (target: at most
// 3, issue 13). Before classifier checkpoints a gap fill reclassified the
// whole launch (2.7 s beside 2.9 ms).
func BenchmarkGapFill(b *testing.B) {
	const size = 100_000
	bundle := setup(b)
	dense := make([]int, size)
	sparse := make([]int, size) // every other seq: as many gaps as lines
	for i := range dense {
		dense[i], sparse[i] = i+1, 2*(i+1)
	}
	postSeqs(b, bundle.url, "inorder", dense)
	postSeqs(b, bundle.url, "gaps", sparse)
	next, hole := size+1, size+1 // the next line; the middle of the gappy launch, then onwards
	var inOrder, gapFill time.Duration
	for b.Loop() {
		if hole > 2*size {
			b.Fatal("out of gaps: run with a smaller -benchtime")
		}
		start := time.Now()
		postSeqs(b, bundle.url, "inorder", []int{next})
		inOrder += time.Since(start)
		start = time.Now()
		postSeqs(b, bundle.url, "gaps", []int{hole})
		gapFill += time.Since(start)
		next, hole = next+1, hole+2
	}
	n := float64(b.N)
	b.ReportMetric(float64(inOrder.Microseconds())/n/1000, "inorder-ms")
	b.ReportMetric(float64(gapFill.Microseconds())/n/1000, "gapfill-ms")
	b.ReportMetric(gapFill.Seconds()/inOrder.Seconds(), "gap/inorder")
}
