package classify_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/eval"
)

// FuzzFeed feeds arbitrary text line by line and in a fuzzed batch split with
// a save/restore between batches: no panic, and the same final view.
func FuzzFeed(f *testing.F) {
	seeds := []string{
		"Traceback (most recent call last):\n  File \"x\", line 1, in y\n    z()\nValueError: boom\nretry() will retry",
		"terminate called after throwing an instance of 'c10::Error'\n  what():  CUDA error\nframe #0: x",
		"[2025-01-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n  File \"a\", line 1, in b\nKeyError: 1\n[2025-01-01 10:00:00 TP1] Scheduler hit an exception: Traceback (most recent call last):\nKeyError: 1",
		"(Worker_TP0 pid=1) ERROR 01-01 10:00:00 [a.py:1] Traceback (most recent call last):\n(Worker_TP1 pid=2) ERROR 01-01 10:00:00 [a.py:1] Traceback (most recent call last):\n(Worker_TP0 pid=1) ERROR 01-01 10:00:00 [a.py:1] RuntimeError: x\n(Worker_TP1 pid=2) ERROR 01-01 10:00:00 [a.py:1] RuntimeError: x",
		"INFO:     Application startup complete.\nSIGTERM received\nEngineDeadError: x\n\x1b[1;36m(APIServer pid=1)\x1b[0m INFO:     127.0.0.1 - \"GET / HTTP/1.1\" 200 OK",
		"server_args=ServerArgs(a=1, b='(', c={'x': [1, 2]}\n\r\r\r\nLoading safetensors checkpoint shards: 1/2 [",
	}
	// Windows of the corpus logs: small seeds keep the fuzzer's minimization fast.
	matches, _ := filepath.Glob(filepath.Join(corpusDir(f), "*.log"))
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			f.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		for i := 0; i < len(lines); i += 60 {
			w := strings.Join(lines[i:min(len(lines), i+30)], "\n")
			seeds = append(seeds, truncateSeed(w, 4<<10))
		}
	}
	for i, s := range seeds {
		f.Add(s, uint64(i))
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		lines := strings.Split(text, "\n")
		for _, server := range []string{"", "sglang"} {
			one, err := eval.Feed(lines, server, eval.LineByLine, false)
			if err != nil {
				t.Fatal(err)
			}
			batched, err := eval.Feed(lines, server, eval.RandomBatches(seed), true)
			if err != nil {
				t.Fatal(err)
			}
			if d := eval.Diff(one, batched); d != "" {
				t.Fatalf("server %q: batch split changes the result: %s", server, d)
			}
		}
	})
}

func truncateSeed(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// liveHeapGrowth runs fn and returns the growth of the live heap it left behind.
func liveHeapGrowth(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.GC()
	runtime.ReadMemStats(&after)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// TestHugeLineStaysBounded feeds 10 MB lines (plain, a config dump, a final
// exception line and a progress bar): the state must stay small and must not
// keep the line.
func TestHugeLineStaysBounded(t *testing.T) {
	t.Parallel()
	const size = 10 << 20
	huge := map[string]string{
		"Plain":     strings.Repeat("x", size),
		"Config":    "[2025-01-01 10:00:00] server_args=ServerArgs(" + strings.Repeat("k=v, ", size/5) + ")",
		"Exception": "RuntimeError: CUDA error: " + strings.Repeat("e", size),
		"Progress":  strings.Repeat("\rLoading safetensors checkpoint shards:  5% Completed | 1/19 [00:28<08:24, 28.03s/it]", size/90),
		"Traceback": "Traceback (most recent call last):\n" + strings.Repeat("y", size),
	}
	for name, text := range huge {
		t.Run(name, func(t *testing.T) {
			st := classify.New("sglang")
			var res classify.Result
			lines := strings.Split(text, "\n")
			for i, l := range lines {
				res = st.Feed([]classify.Line{{Seq: int64(i + 1), Text: l}})
			}
			b, err := st.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 16<<10 {
				t.Errorf("state is %d bytes after a 10 MB line", len(b))
			}
			for _, a := range res.Alarms {
				if len(a.Headline) > 1024 || len(a.Template) > 2048 {
					t.Errorf("alarm keeps %d bytes of headline", len(a.Headline))
				}
			}
			for k, v := range res.Config {
				if len(k) > 256 || len(v) > 1024 {
					t.Errorf("config entry of %d+%d bytes", len(k), len(v))
				}
			}
			if len(res.Config) > 5000 {
				t.Errorf("config has %d keys", len(res.Config))
			}
		})
	}
}

// TestLongTracebackStaysBounded feeds a 100,000-line traceback in batches
// with save/restore: one alarm, a small state, and no memory kept per line.
// It is not parallel: it measures the process-wide live heap, and Go runs
// serial tests before any parallel one resumes.
func TestLongTracebackStaysBounded(t *testing.T) {
	const frames = 50_000
	var st *classify.State
	var last classify.Result
	grow := liveHeapGrowth(func() {
		st = classify.New("")
		seq := int64(1)
		feed := func(lines ...string) {
			batch := make([]classify.Line, len(lines))
			for i, l := range lines {
				batch[i] = classify.Line{Seq: seq, Text: l}
				seq++
			}
			last = st.Feed(batch)
		}
		feed("ERROR 01-01 10:00:00 [core.py:1] EngineCore failed to start.", "Traceback (most recent call last):")
		r := rand.New(rand.NewPCG(1, 2))
		for i := 0; i < frames; {
			n := min(frames-i, 1+r.IntN(500))
			batch := make([]string, 0, 2*n)
			for j := 0; j < n; j++ {
				batch = append(batch, `  File "/x/recursive.py", line 12, in f`, "    return f(n - 1)")
			}
			feed(batch...)
			b, err := st.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 16<<10 {
				t.Fatalf("state is %d bytes inside a long traceback", len(b))
			}
			if st, err = classify.Restore(b); err != nil {
				t.Fatal(err)
			}
			i += n
		}
		feed("RecursionError: maximum recursion depth exceeded")
	})
	if len(last.Alarms) != 1 || last.Alarms[0].LastSeq != 2*frames+3 || last.Alarms[0].FirstSeq != 1 ||
		!strings.HasPrefix(last.Alarms[0].Headline, "RecursionError") {
		t.Fatalf("alarms = %+v", last.Alarms)
	}
	if s := st.Summary(); s.Alarms != 1 || s.LiveAlarms != 1 || s.FatalAlarms != 1 {
		t.Errorf("summary = %+v", s)
	}
	if grow > 4<<20 {
		t.Errorf("live heap grew by %d bytes over a 100,000-line traceback", grow)
	}
}
