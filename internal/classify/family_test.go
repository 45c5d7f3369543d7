package classify_test

import (
	"strings"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/eval"
)

// Made-up logs whose lines name other families than their own.
const (
	sglangSaysVLLMMissing = `[2031-02-03 04:05:00] vllm is not installed; some quantization methods are unavailable
[2031-02-03 04:05:00] WARNING: Failed to import vllm custom ops, pip install vllm to enable them
[2031-02-03 04:05:01] server_args=ServerArgs(model_path='m', tp_size=2, port=30000)
[2031-02-03 04:05:03 TP0] Init torch distributed begin.
[2031-02-03 04:05:03 TP1] Init torch distributed begin.
[2031-02-03 04:05:05 TP0] Load weight begin. avail mem=70.00 GB
[2031-02-03 04:05:09] INFO:     Started server process [4242]
[2031-02-03 04:05:09] INFO:     Application startup complete.
[2031-02-03 04:05:12] The server is fired up and ready to roll!`

	vllmLog = `INFO 02-03 04:05:00 [__init__.py:200] Automatically detected platform cuda.
(APIServer pid=4242) INFO 02-03 04:05:01 [api_server.py:1800] vLLM API server version 9.9.9
(APIServer pid=4242) INFO 02-03 04:05:02 [utils.py:300] sglang is not installed, skipping the sglang kernel backend
(EngineCore_DP0 pid=4343) INFO 02-03 04:05:03 [core.py:70] Initializing a V1 LLM engine (v9.9.9) with config: model='m'
(EngineCore_DP0 pid=4343) INFO 02-03 04:05:05 [gpu_model_runner.py:2000] Loading model from scratch...
(APIServer pid=4242) INFO:     Started server process [4242]
(APIServer pid=4242) INFO:     Application startup complete.`
)

func feedAll(st *classify.State, log string) {
	var lines []classify.Line
	for i, l := range strings.Split(log, "\n") {
		lines = append(lines, classify.Line{Seq: int64(i + 1), Text: l})
	}
	st.Feed(lines)
}

func TestFamilyByAccumulatedEvidence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, server, log, want string
		ready                   int64
	}{
		// The first lines name vLLM only to say it is missing: the launch
		// stays SGLang, so uvicorn's line (before warmup) is not readiness.
		{name: "SGLangSayingVLLMIsNotInstalled", log: sglangSaysVLLMMissing, want: "sglang", ready: 9},
		{name: "VLLMMentioningSGLang", log: vllmLog, want: "vllm", ready: 7},
		{name: "TGI", log: `2031-02-03T04:05:06.000001Z  INFO text_generation_launcher: Args { model_id: "m" }
2031-02-03T04:05:07.000001Z  INFO download: text_generation_launcher: Starting check and download process for m`, want: "tgi"},
		{name: "OllamaSource", log: `time=2031-02-03T04:05:06.000Z level=INFO source=images.go:700 msg="total blobs: 3"
time=2031-02-03T04:05:06.100Z level=INFO source=gpu.go:200 msg="looking for compatible GPUs"`, want: "ollama"},
		{name: "LlamaCppTags", log: `srv          init: using 15 threads for HTTP server
srv    load_model: loading model '/models/tiny-q4.gguf'`, want: "llamacpp"},
		// One weak mention is not enough to take a family.
		{name: "TwoWeakMentionsAreAFamily", log: `[2031-02-03 04:05:01] Using the vllm fused_moe kernel for layer 0
[2031-02-03 04:05:01] Using the vllm fused_moe kernel for layer 1`, want: "vllm"},
		{name: "OneMentionIsNotAFamily", log: `  File "/env/lib/python3.12/site-packages/vllm/utils.py", line 9, in f`, want: ""},
		// Two weak vLLM path mentions made the launch vLLM, until SGLang's
		// own readiness line: it is read as ready (it proves its family)
		// and corrects the family.
		{name: "LateReadinessLineOfTheRightFamily", log: `[2031-02-03 04:05:01] Using the vllm fused_moe kernel for layer 0
[2031-02-03 04:05:01] Using the vllm fused_moe kernel for layer 1
[2031-02-03 04:05:12] The server is fired up and ready to roll!`, want: "sglang", ready: 3},
		// A family given to New is kept whatever the lines say.
		{name: "ExplicitServerWins", server: "vllm", log: sglangSaysVLLMMissing, want: "vllm", ready: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			st := classify.New(tt.server)
			feedAll(st, tt.log)
			if got := st.Server(); got != tt.want {
				t.Errorf("family %q, want %q", got, tt.want)
			}
			var ready int64
			if r := st.Summary().Ready; r != nil {
				ready = r.Seq
			}
			if ready != tt.ready {
				t.Errorf("ready at line %d, want %d", ready, tt.ready)
			}
		})
	}
}

// TestFamilyHysteresis: a launch well established as one family does not
// flip on a few lines that name another.
func TestFamilyHysteresis(t *testing.T) {
	t.Parallel()
	st := classify.New("")
	feedAll(st, vllmLog)
	more := []classify.Line{
		{Seq: 100, Text: `  File "/env/lib/python3.12/site-packages/sglang/srt/layers/x.py", line 1, in f`},
		{Seq: 101, Text: `  File "/env/lib/python3.12/site-packages/sglang/srt/layers/y.py", line 2, in g`},
		{Seq: 102, Text: `[2031-02-03 04:05:06 TP0] made-up scheduler line`},
	}
	st.Feed(more)
	if got := st.Server(); got != "vllm" {
		t.Errorf("family %q after a few SGLang mentions, want vllm", got)
	}
}

// TestFamilyBatchInvariance: the family, readiness and every verdict are the
// same whatever the batch split, with the state saved and restored between
// batches.
func TestFamilyBatchInvariance(t *testing.T) {
	t.Parallel()
	logs := []string{
		sglangSaysVLLMMissing,
		vllmLog,
		vllmLog + "\n" + sglangSaysVLLMMissing,
		`  File "/env/lib/python3.12/site-packages/vllm/a.py", line 9, in f
  File "/env/lib/python3.12/site-packages/vllm/b.py", line 9, in g
[2031-02-03 04:05:09] INFO:     Application startup complete.
[2031-02-03 04:05:12] The server is fired up and ready to roll!`,
	}
	for li, log := range logs {
		lines := strings.Split(log, "\n")
		one, err := eval.Feed(lines, "", eval.LineByLine, false)
		if err != nil {
			t.Fatal(err)
		}
		whole := classify.New("")
		feedAll(whole, log)
		for seed := uint64(0); seed < 40; seed++ {
			batched, err := eval.Feed(lines, "", eval.RandomBatches(seed), true)
			if err != nil {
				t.Fatal(err)
			}
			if d := eval.Diff(one, batched); d != "" {
				t.Fatalf("log %d seed %d: batch split changes the result: %s", li, seed, d)
			}
			if got := splitFamily(t, lines, seed); got != whole.Server() {
				t.Fatalf("log %d seed %d: family %q with save/restore, %q in one batch", li, seed, got, whole.Server())
			}
		}
	}
}

// splitFamily feeds lines in seeded batches, saving and restoring the state
// between them, and returns the final family.
func splitFamily(t *testing.T, lines []string, seed uint64) string {
	t.Helper()
	next := eval.RandomBatches(seed)
	st := classify.New("")
	for i := 0; i < len(lines); {
		end := min(len(lines), i+max(1, next()))
		var batch []classify.Line
		for j := i; j < end; j++ {
			batch = append(batch, classify.Line{Seq: int64(j + 1), Text: lines[j]})
		}
		st.Feed(batch)
		b, err := st.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if st, err = classify.Restore(b); err != nil {
			t.Fatal(err)
		}
		i = end
	}
	return st.Server()
}
