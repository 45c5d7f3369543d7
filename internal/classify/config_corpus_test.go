package classify

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"launchwatch/internal/corpustest"
)

// corpusConfigTexts is the text of every configuration dump the classifier
// notes in the corpus and the families logs (what feedBuf.parseConfig
// receives), grouped by log: each log is read line by line into a fresh
// State, as Feed would.
func corpusConfigTexts(t testing.TB) [][]string {
	t.Helper()
	var files []string
	for _, dir := range []string{corpustest.Dir(t), "../../testdata/families"} {
		fs, err := filepath.Glob(filepath.Join(dir, "*.log"))
		if err != nil || len(fs) == 0 {
			t.Fatalf("no logs in %s: %v", dir, err)
		}
		files = append(files, fs...)
	}
	var texts [][]string
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		st := New("")
		var fb feedBuf
		for i, l := range strings.Split(string(data), "\n") {
			st.line(&fb, &Line{Seq: int64(i + 1), Text: l})
			st.d.Last = int64(i + 1)
		}
		if len(fb.cfg.texts) > 0 {
			texts = append(texts, fb.cfg.texts)
			n += len(fb.cfg.texts)
		}
	}
	if n < 10 {
		t.Fatalf("only %d configuration dumps in the corpus and families", n)
	}
	return texts
}

// TestConfigCorpusMatchesReference holds the parser to both references on
// every configuration dump of the corpus and the families logs, alone and
// as the dumps of one Feed, and ParseConfig on every line of them (most
// are no dump, but any text may reach it).
func TestConfigCorpusMatchesReference(t *testing.T) {
	t.Parallel()
	for _, texts := range corpusConfigTexts(t) {
		for _, s := range texts {
			got := buildConfig([]string{s})
			for _, want := range []map[string]string{parseConfigRef(s), buildConfigPrev([]string{s})} {
				if !sameConfig(got, want) {
					t.Fatalf("dump %q:\n got %v\nwant %v", s, got, want)
				}
			}
		}
		got := buildConfig(texts)
		for _, want := range []map[string]string{refFeedConfig(texts), buildConfigPrev(texts)} {
			if !sameConfig(got, want) {
				t.Fatalf("dumps %q:\n got %v\nwant %v", texts, got, want)
			}
		}
	}
	for _, l := range corpustest.Lines(t, "../../testdata/families") {
		for _, s := range []string{l, configBody(l), l[min(len(l), len(l)/3):]} {
			got := ParseConfig(s)
			for _, want := range []map[string]string{parseConfigRef(s), ParseConfigPrev(s)} {
				if !sameConfig(got, want) {
					t.Fatalf("line %q:\n got %v\nwant %v", s, got, want)
				}
			}
		}
	}
}

// sameConfig is maps.Equal that also tells nil from empty.
func sameConfig(a, b map[string]string) bool {
	return maps.Equal(a, b) && (a == nil) == (b == nil)
}

// BenchmarkBuildConfig parses the configuration dumps of the corpus and the
// families logs: each alone (a Feed whose batch holds one dump) and a log's
// together (a Feed of the whole log), with the new and the previous code.
func BenchmarkBuildConfig(b *testing.B) {
	logs := corpusConfigTexts(b)
	var one [][]string
	size := 0
	for _, texts := range logs {
		for _, t := range texts {
			one = append(one, []string{t})
			size += len(t)
		}
	}
	for _, bc := range []struct {
		name  string
		build func([]string) map[string]string
		feeds [][]string
	}{
		{"Each", buildConfig, one},
		{"EachPrev", buildConfigPrev, one},
		{"Logs", buildConfig, logs},
		{"LogsPrev", buildConfigPrev, logs},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			cpu0 := configCPUTime()
			for b.Loop() {
				for _, texts := range bc.feeds {
					bc.build(texts)
				}
			}
			// The machine is shared: CPU time per op is steadier than wall time.
			b.ReportMetric(float64(configCPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// configCPUTime is the CPU time the process has used (GC included).
func configCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkConfigScan is the scanner of buildConfig alone on the corpus's
// dumps, without the map.
func BenchmarkConfigScan(b *testing.B) {
	var bodies []string
	size := 0
	for _, texts := range corpusConfigTexts(b) {
		for _, t := range texts {
			bodies = append(bodies, configBody(t))
			size += len(t)
		}
	}
	b.SetBytes(int64(size))
	var spans []configSpan
	for b.Loop() {
		for _, s := range bodies {
			spans, _, _ = configScan(s, 0, spans[:0], maxConfigKeys)
		}
	}
}
