package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// gapLog is a made-up launch log of n lines with events that cross the
// classifier's checkpoints (every 512 seqs): startup phases, a configuration
// dump, a traceback the server survives, ERROR runs, a warning with a
// traceback under it, readiness, a fatal traceback near the end.
func gapLog(n int) []string {
	lines := make([]string, n+1)
	ts := func(i int) string { return fmt.Sprintf("[2026-04-02 09:%02d:%02d", 10+i/60%50, i%60) }
	for i := 1; i <= n; i++ {
		lines[i] = fmt.Sprintf("%s TP%d] Decode batch. #running-req: %d, #token: %d, gen throughput (token/s): %d.%02d", ts(i), i%4, i%17, i*13, 900+i%300, i%100)
	}
	set := func(at int, text ...string) {
		for k, t := range text {
			lines[at+k] = fmt.Sprintf("%s TP0] %s", ts(at+k), t)
		}
	}
	set(3, "server_args=ServerArgs(model_path='/models/m-7b', tp_size=4, mem_fraction_static=0.81, log_level='info')")
	set(10, "Load weight begin. avail mem=70.12 GB")
	for s := 1; s <= 8; s++ {
		set(10+s*20, fmt.Sprintf("Loading safetensors checkpoint shards: %d/8", s))
	}
	set(300, "Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=52.40 GB")
	set(320, "KV Cache is allocated. #tokens: 412000, K size: 12.50 GB, V size: 12.50 GB")
	set(505, "Capture cuda graph begin. This can take up to several minutes. avail mem=20.05 GB")
	set(530, "Capture cuda graph end. Time elapsed: 11.20 s. mem usage=1.40 GB. avail mem=18.60 GB.")
	lines[600] = ts(600) + "] The server is fired up and ready to roll!"
	// A request that failed, logged as a traceback across seq 1024.
	lines[1020] = ts(1020) + " TP0] ERROR:    Exception in ASGI application"
	lines[1021] = "Traceback (most recent call last):"
	lines[1022] = `  File "/srv/app/routes.py", line 88, in generate`
	lines[1023] = "    out = await engine.generate(req)"
	lines[1024] = `  File "/srv/app/engine.py", line 41, in generate`
	lines[1025] = "    raise ValueError(f\"prompt too long: {n} tokens\")"
	lines[1026] = "ValueError: prompt too long: 99000 tokens"
	// An ERROR run that the server keeps serving through.
	for k := range 4 {
		lines[1300+k] = fmt.Sprintf("%s TP1] ERROR scheduler: request %d failed to decode", ts(1300+k), 77+k)
	}
	lines[1400] = ts(1400) + " TP0] WARNING optional kernel unavailable, falling back"
	lines[1401] = "Traceback (most recent call last):"
	lines[1402] = `  File "/srv/app/kernels.py", line 5, in <module>`
	lines[1403] = "ModuleNotFoundError: No module named 'fast_kernels'"
	// The same failure from two ranks, 30 lines apart: one alarm, whose
	// second copy arrives after a checkpoint (see RankCopyAfterCheckpoint).
	for k, rank := range []string{"TP0", "TP1"} {
		at := 1500 + 30*k
		lines[at] = fmt.Sprintf("%s %s] Scheduler hit an exception: Traceback (most recent call last):", ts(at), rank)
		lines[at+1] = `  File "/srv/app/scheduler.py", line 210, in recv_requests`
		lines[at+2] = "    reqs = self.recv_from_tokenizer()"
		lines[at+3] = "RuntimeError: NCCL communicator was aborted on rank 1"
	}
	// A fatal crash near the end.
	set(n-8, "Scheduler hit an exception: Traceback (most recent call last):")
	lines[n-7] = `  File "/srv/app/scheduler.py", line 300, in event_loop`
	lines[n-6] = "    self.run_batch(batch)"
	lines[n-5] = `  File "/srv/app/scheduler.py", line 512, in run_batch`
	lines[n-4] = "    logits = self.model.forward(batch)"
	lines[n-3] = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.10 GiB. GPU 0 has a total capacity of 79.10 GiB"
	return lines
}

// postLines posts the given seqs of log as one NDJSON batch.
func postLines(t *testing.T, b *testBundle, key string, log []string, seqs []int) {
	t.Helper()
	var body strings.Builder
	for _, s := range seqs {
		fmt.Fprintf(&body, `{"seq": %d, "line": %q}`+"\n", s, log[s])
	}
	b.postNDJSON("/api/v1/launches/"+key+"/lines?server=sglang", body.String())
}

// classification is what a launch's classification shows: its lines'
// verdicts, its alarms, phases, status and readiness.
func classification(t *testing.T, b *testBundle, key string) map[string]any {
	t.Helper()
	out := map[string]any{}
	var lines []map[string]any
	after := int64(0)
	for {
		r := b.do("GET", fmt.Sprintf("/api/v1/launches/%s/lines?limit=10000&after=%d", key, after), "", nil)
		var p struct {
			Lines     []map[string]any `json:"lines"`
			NextAfter *int64           `json:"next_after"`
		}
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatal(err)
		}
		for _, l := range p.Lines {
			// When it arrived is not its classification, nor is the time a
			// line without one of its own takes from its neighbours
			// (the launch clock's, which batches in random order move).
			delete(l, "received_at")
			delete(l, "ts")
			lines = append(lines, l)
		}
		if p.NextAfter == nil {
			break
		}
		after = *p.NextAfter
	}
	out["lines"] = lines
	l := b.launchRaw(key + "?wait=0")
	for _, k := range []string{"status", "phase", "progress", "counts", "ready_seq", "alarms", "config", "last_seq"} {
		out[k] = l[k]
	}
	st, err := b.store.LaunchByKey(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	phases, err := b.store.Phases(context.Background(), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	var ps []string
	for _, p := range phases {
		end := int64(0)
		if p.EndSeq != nil {
			end = *p.EndSeq
		}
		ps = append(ps, fmt.Sprintf("%s %d-%d %d/%d", p.Name, p.BeginSeq, end, p.Done, p.Total))
	}
	out["phases"] = ps
	return out
}

// diffClassification reports where got differs from want.
func diffClassification(t *testing.T, name string, got, want map[string]any) {
	t.Helper()
	for k, w := range want {
		g := got[k]
		if k == "lines" {
			gl, wl := g.([]map[string]any), w.([]map[string]any)
			if len(gl) != len(wl) {
				t.Errorf("%s: %d lines, want %d", name, len(gl), len(wl))
				continue
			}
			bad := 0
			for i := range wl {
				if !reflect.DeepEqual(gl[i], wl[i]) {
					if bad++; bad <= 5 {
						t.Errorf("%s: line %d is %v, in order it is %v", name, i+1, gl[i], wl[i])
					}
				}
			}
			continue
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s is %v, in order it is %v", name, k, g, w)
		}
	}
}

// TestGapFillsClassifyAsInOrder: a launch whose lines arrive with gaps,
// filled later one line at a time or in pieces, in any order, ends with
// the classification of the same lines arrived in order: the gap fills
// reclassify from a checkpoint and stop where the state is the same again,
// which must change nothing a full reclassification would not.
func TestGapFillsClassifyAsInOrder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const n = 2200
	log := gapLog(n)
	seqs := func(from, to, step int) []int {
		var out []int
		for s := from; s <= to; s += step {
			out = append(out, s)
		}
		return out
	}
	for from := 1; from <= n; from += 250 {
		postLines(t, b, "in-order", log, seqs(from, min(from+249, n), 1))
	}
	want := classification(t, b, "in-order")

	rng := rand.New(rand.NewPCG(13, 13))
	cases := map[string]func(key string){
		// Every other line first, then each missing line alone, in random order.
		"EveryOtherThenSingles": func(key string) {
			for from := 2; from <= n; from += 400 {
				postLines(t, b, key, log, seqs(from, min(from+398, n), 2))
			}
			odd := seqs(1, n, 2)
			rng.Shuffle(len(odd), func(i, j int) { odd[i], odd[j] = odd[j], odd[i] })
			for _, s := range odd {
				postLines(t, b, key, log, []int{s})
			}
		},
		// In order but for holes in the middle of events, filled last.
		"HolesInEvents": func(key string) {
			holes := map[int]bool{}
			for _, s := range []int{3, 40, 520, 601, 1022, 1023, 1024, 1025, 1302, 1402, n - 5} {
				holes[s] = true
			}
			var first []int
			for s := 1; s <= n; s++ {
				if !holes[s] {
					first = append(first, s)
				}
			}
			for len(first) > 0 {
				k := min(len(first), 300)
				postLines(t, b, key, log, first[:k])
				first = first[k:]
			}
			for _, s := range []int{1024, 1022, 601, n - 5, 3, 1025, 40, 1402, 1023, 520, 1302} {
				postLines(t, b, key, log, []int{s})
			}
		},
		// A gap (1350) before a checkpoint (1520) where events that begin
		// after the gap are still open: the fill converges there, and the
		// rank copy after it (1530) revised one of them, which the fill must
		// not undo.
		"RankCopyAfterCheckpoint": func(key string) {
			postLines(t, b, key, log, seqs(1, 1000, 1))
			first := seqs(1001, 1520, 1)
			first = append(first[:1349-1000], first[1350-1000:]...) // all but 1350
			postLines(t, b, key, log, first)
			postLines(t, b, key, log, seqs(1521, n, 1))
			postLines(t, b, key, log, []int{1350})
		},
		// Batches of 100 in random order.
		"ShuffledBatches": func(key string) {
			var batches [][]int
			for from := 1; from <= n; from += 100 {
				batches = append(batches, seqs(from, min(from+99, n), 1))
			}
			rng.Shuffle(len(batches), func(i, j int) { batches[i], batches[j] = batches[j], batches[i] })
			for _, bt := range batches {
				postLines(t, b, key, log, bt)
			}
		},
	}
	for name, post := range cases {
		key := strings.ToLower(name)
		post(key)
		diffClassification(t, name, classification(t, b, key), want)
	}
	if r := b.do("GET", "/api/v1/launches/in-order", "", nil); r.status != http.StatusOK {
		t.Fatalf("launch: %d", r.status)
	}
}
