package classify_test

import (
	"encoding/json"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/eval"
)

// BenchmarkFeedEnvelopes measures classification throughput on the corpus
// mix wrapped in each collector envelope, and as Docker json-file records
// (every line a JSON object), in batches of 500 lines as ingest feeds them.
func BenchmarkFeedEnvelopes(b *testing.B) {
	lines, _ := benchMix(b, false)
	kinds := append([]string{"plain"}, eval.Envelopes...)
	for _, kind := range append(kinds, "json-file") {
		b.Run(kind, func(b *testing.B) {
			wrapped := lines
			switch kind {
			case "plain":
			case "json-file":
				wrapped = make([]string, len(lines))
				for i, l := range lines {
					rec, _ := json.Marshal(map[string]string{"log": l + "\n", "stream": "stderr", "time": "2026-02-03T04:05:06.123456789Z"})
					wrapped[i] = string(rec)
				}
			default:
				var err error
				if wrapped, err = eval.Wrap(kind, "bench-x", lines); err != nil {
					b.Fatal(err)
				}
			}
			var size int64
			var batches [][]classify.Line
			for i := 0; i < len(wrapped); i += 500 {
				var batch []classify.Line
				for j := i; j < min(len(wrapped), i+500); j++ {
					batch = append(batch, classify.Line{Seq: int64(j + 1), Text: wrapped[j]})
					size += int64(len(wrapped[j])) + 1
				}
				batches = append(batches, batch)
			}
			b.SetBytes(size)
			cpu0 := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				st := classify.New("")
				for _, batch := range batches {
					st.Feed(batch)
				}
			}
			if cpu := (cpuTime() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(float64(size)*float64(b.N)/cpu/1e6, "cpu-MB/s")
				b.ReportMetric(float64(len(wrapped))*float64(b.N)/cpu, "cpu-lines/s")
			}
		})
	}
}
