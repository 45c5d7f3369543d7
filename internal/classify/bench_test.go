package classify_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"launchwatch/internal/classify"
)

// benchMix is every corpus log concatenated (14 KB ServerArgs dumps, vLLM
// engine configs, tqdm lines with carriage returns, tracebacks, access logs),
// plus, when withLongConfig, one synthetic 200 KB config line, split into lines.
func benchMix(b *testing.B, withLongConfig bool) ([]string, int64) {
	b.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir(b), "*.log"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no corpus: %v", err)
	}
	var lines []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")...)
	}
	if withLongConfig {
		var args strings.Builder
		for i := range 4000 {
			args.WriteString("arg_")
			args.WriteString(strings.Repeat("x", i%17))
			args.WriteString("='value with exception and error words', ")
		}
		lines = append(lines, "[2026-01-01 00:00:00] server_args=ServerArgs("+args.String()+"timeout=600)")
	}
	var n int64
	for _, l := range lines {
		n += int64(len(l)) + 1
	}
	return lines, n
}

// BenchmarkFeed measures classification throughput, fed in batches of 500
// lines as ingest would: on the corpus alone and on the corpus with one
// extra 200 KB config line.
func BenchmarkFeed(b *testing.B) {
	b.Run("Corpus", func(b *testing.B) { benchFeed(b, false) })
	b.Run("CorpusAndLongConfig", func(b *testing.B) { benchFeed(b, true) })
}

func benchFeed(b *testing.B, withLongConfig bool) {
	lines, size := benchMix(b, withLongConfig)
	batches := [][]classify.Line{}
	for i := 0; i < len(lines); i += 500 {
		var batch []classify.Line
		for j := i; j < min(len(lines), i+500); j++ {
			batch = append(batch, classify.Line{Seq: int64(j + 1), Text: lines[j]})
		}
		batches = append(batches, batch)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		st := classify.New("")
		for _, batch := range batches {
			st.Feed(batch)
		}
	}
	b.ReportMetric(float64(len(lines))*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	// On a shared machine wall time includes waiting for a core; throughput
	// per second of CPU used by the process (GC included) does not.
	if cpu := (cpuTime() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/cpu/1e6, "cpu-MB/s")
		b.ReportMetric(float64(len(lines))*float64(b.N)/cpu, "cpu-lines/s")
	}
}

// cpuTime is the user+system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// grepPattern is what the shell loops Launchwatch replaces grep for
// (design.md: "Exception|Error|out of memory").
const grepPattern = `Exception|Error|out of memory`

// BenchmarkGrepBaseline runs `grep -ciE` over the same bytes as
// BenchmarkFeed/Corpus and reports grep's own CPU throughput, so the two
// figures can be compared from one run: the classifier does far more per
// byte than a grep, but should stay within a small factor of it.
func BenchmarkGrepBaseline(b *testing.B) {
	grep, err := exec.LookPath("grep")
	if err != nil {
		b.Fatalf("grep: %v", err)
	}
	lines, size := benchMix(b, false)
	f := filepath.Join(b.TempDir(), "mix.log")
	if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	var cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(grep, "-ciE", grepPattern, f)
		if out, err := cmd.Output(); err != nil || len(out) == 0 {
			b.Fatalf("grep: %v %q", err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}

// BenchmarkRatioVsGrep is make bench's classify-vs-grep line without its
// database, in this process (make bench classifies in a process of its
// own, which this one is, apart from its batches kept for every round):
// 200,000 lines of the corpus mix through one State in batches of 500 (so
// a long run's state, not a fresh one per file), then `grep -ciE` three
// times over the same bytes, both as CPU time, and their ratio.
func BenchmarkRatioVsGrep(b *testing.B) {
	mix, _ := benchMix(b, false)
	const n = 200_000
	text := make([]string, n)
	var size int64
	for i := range n {
		text[i] = mix[i%len(mix)]
		size += int64(len(text[i])) + 1
	}
	f := filepath.Join(b.TempDir(), "mix.log")
	if err := os.WriteFile(f, []byte(strings.Join(text, "\n")+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	var classifyCPU, grepCPU time.Duration
	for b.Loop() {
		// The batches are made before the clock starts, as grep's file is
		// written before it runs: only classification is timed.
		var batches [][]classify.Line
		for i := 0; i < n; i += 500 {
			batch := make([]classify.Line, 0, 500)
			for j := i; j < min(n, i+500); j++ {
				batch = append(batch, classify.Line{Seq: int64(j + 1), Text: text[j]})
			}
			batches = append(batches, batch)
		}
		cpu0 := cpuTime()
		st := classify.New("")
		var res classify.Result // as ingest feeds a request's lines
		for _, batch := range batches {
			st.FeedInto(&res, batch)
		}
		classifyCPU += cpuTime() - cpu0
		for range 3 {
			cmd := exec.Command("grep", "-ciE", grepPattern, f)
			if out, err := cmd.Output(); err != nil || len(out) == 0 {
				b.Fatalf("grep: %v %q", err, out)
			}
			grepCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
	}
	classifyMBs := float64(size) * float64(b.N) / classifyCPU.Seconds() / 1e6
	grepMBs := 3 * float64(size) * float64(b.N) / grepCPU.Seconds() / 1e6
	b.ReportMetric(classifyMBs, "classify-cpu-MB/s")
	b.ReportMetric(grepMBs, "grep-cpu-MB/s")
	b.ReportMetric(classifyMBs/grepMBs, "ratio")
}
