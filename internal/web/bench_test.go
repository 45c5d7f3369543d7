package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// BenchmarkIngestText measures the whole ingest path (HTTP, decoding,
// classification, COPY into a real PostgreSQL) with batches of 1000
// realistic lines, one launch, appended in order as a shipper does.
func BenchmarkIngestText(b *testing.B) {
	bundle := setup(b)
	var body bytes.Buffer
	for i := range 1000 {
		switch {
		case i%100 == 0:
			fmt.Fprintf(&body, "[2026-04-02 09:28:%02d] server_args=ServerArgs(model_path='/models/llama', tp_size=8, mem_fraction_static=0.85, %s)\n", i%60, strings.Repeat("enable_flag_x=False, ", 40))
		case i%7 == 0:
			fmt.Fprintf(&body, "[2026-04-02 09:28:%02d TP%d] Load weight begin. avail mem=%d.12 GB\n", i%60, i%8, 70+i%9)
		default:
			fmt.Fprintf(&body, "[2026-04-02 09:28:%02d TP%d] Decode batch. #running-req: %d, #token: %d, token usage: 0.%02d, gen throughput (token/s): %d.%02d\n", i%60, i%8, i%33, i*17, i%100, 1000+i, i%100)
		}
	}
	payload := body.Bytes()
	b.SetBytes(int64(len(payload)))
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		req, _ := http.NewRequest("POST", bundle.url+"/api/v1/launches/bench/lines?server=sglang", bytes.NewReader(payload))
		req.Header.Set("Content-Type", "text/plain")
		res, err := http.DefaultClient.Do(authorize(req))
		if err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("status %d", res.StatusCode)
		}
	}
	b.ReportMetric(float64(b.N*1000)/time.Since(start).Seconds(), "lines/s")
}
