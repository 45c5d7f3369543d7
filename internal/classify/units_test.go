package classify_test

import (
	"strings"
	"testing"
	"time"

	"launchwatch/internal/classify"
)

func TestParsePrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line, level, rank, source, body string
		time                            time.Time
	}{
		{line: "[2026-01-12 05:01:25 DP7 TP7 EP7] Memory pool end. avail mem=3.32 GB", rank: "DP7 TP7 EP7", source: "DP7 TP7 EP7",
			body: "Memory pool end. avail mem=3.32 GB", time: time.Date(2026, 1, 12, 5, 1, 25, 0, time.UTC)},
		{line: "\x1b[1;36m(EngineCore_DP0 pid=114700)\x1b[0;0m ERROR 07-31 15:52:26 [core.py:708]   File \"/x.py\", line 1, in f\r",
			level: "ERROR", rank: "DP0", source: "EngineCore_DP0 pid=114700", body: "  File \"/x.py\", line 1, in f",
			time: time.Date(2025, 7, 31, 15, 52, 26, 0, time.UTC)},
		{line: "INFO:     127.0.0.1:1 - \"GET / HTTP/1.1\" 200 OK", level: "INFO", body: "127.0.0.1:1 - \"GET / HTTP/1.1\" 200 OK"},
		{line: "2024-12-11T10:04:03.877415Z ERROR text_generation_launcher: Method Warmup encountered an error.", level: "ERROR",
			body: "text_generation_launcher: Method Warmup encountered an error.", time: time.Date(2024, 12, 11, 10, 4, 3, 877415000, time.UTC)},
		{line: "2026-04-05 16:52:19,388 - CUTE_DSL - WARNING - [handle_import_error] - Unexpected error", level: "WARNING",
			body: "[handle_import_error] - Unexpected error", time: time.Date(2026, 4, 5, 16, 52, 19, 388000000, time.UTC)},
		{line: "E0000 00:00:1760469722.892123    4394 cuda_dnn.cc:8579] Unable to register cuDNN factory", level: "ERROR", body: "Unable to register cuDNN factory"},
		{line: "[rank0]:[W803 21:49:24.248813923 ProcessGroupNCCL.cpp:1575] Warning: WARNING: destroy_process_group()", level: "WARNING", rank: "rank0",
			source: "rank0", body: "Warning: WARNING: destroy_process_group()"},
		{line: "[TensorRT-LLM][WARNING] normalize_log_probs is not specified", level: "WARNING", body: "normalize_log_probs is not specified"},
		{line: "2025-10-14 19:22:02.871009: E external/local_xla/xla/cuda_fft.cc:467] Unable to register cuFFT factory", level: "ERROR",
			body: "Unable to register cuFFT factory", time: time.Date(2025, 10, 14, 19, 22, 2, 871009000, time.UTC)},
		{line: "  File \"/x.py\", line 1, in f", body: "  File \"/x.py\", line 1, in f"},
		{line: "Traceback (most recent call last):", body: "Traceback (most recent call last):"},
		{line: "2023-08-28T02:59:16.348667054-07:00 2023-08-28T09:59:16.348402Z ERROR text_generation_launcher: Shard 0 failed to start",
			level: "ERROR", body: "text_generation_launcher: Shard 0 failed to start", time: time.Date(2023, 8, 28, 9, 59, 16, 348402000, time.UTC)},
		{line: `{"timestamp":"2025-08-29T14:40:17.288163Z","level":"ERROR","message":"Method Warmup encountered an error.","target":"text_generation_launcher"}`,
			level: "ERROR", body: "text_generation_launcher: Method Warmup encountered an error.", time: time.Date(2025, 8, 29, 14, 40, 17, 288163000, time.UTC)},
		{line: "(RayWorkerWrapper pid=2960, ip=10.1.1.1) INFO 01-01 10:00:00 [x.py:1] hi", level: "INFO", source: "RayWorkerWrapper pid=2960, ip=10.1.1.1",
			body: "hi", time: time.Date(2025, 1, 1, 10, 0, 0, 0, time.UTC)},
		{line: "[DP2 TP2] Scheduler hit an exception: Traceback (most recent call last):", rank: "DP2 TP2", source: "DP2 TP2",
			body: "Scheduler hit an exception: Traceback (most recent call last):"},
		{line: "(1/4) loading", body: "(1/4) loading"},
		{line: "(VllmWorker rank=1 pid=2445156)     worker.shutdown()", rank: "rank1", source: "VllmWorker rank=1 pid=2445156", body: "    worker.shutdown()"},
	}
	for _, tt := range tests {
		p := classify.ParsePrefix(tt.line, 2025)
		if p.Level != tt.level || p.Rank != tt.rank || p.Source != tt.source || p.Body != tt.body || !p.Time.Equal(tt.time) {
			t.Errorf("ParsePrefix(%q) = level %q rank %q source %q time %v body %q", tt.line, p.Level, p.Rank, p.Source, p.Time, p.Body)
		}
	}
}

func TestTemplateMasksVariableParts(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 2 has a total capacity of 14.62 GiB",
			"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB. GPU 7 has a total capacity of 79.10 GiB"},
		{"what():  [PG 3 Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9141, OpType=_ALLGATHER_BASE) ran for 600020 milliseconds",
			"what():  [PG 0 Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=_ALLGATHER_BASE) ran for 600001 milliseconds"},
		{"Child process unexpectedly failed with an exit code 9. pid=3905457", "Child process unexpectedly failed with an exit code 9. pid=12"},
		{"KeyError: 'model.layers.3.mlp'", "KeyError: 'model.layers.17.mlp'"},
		{"OSError: /root/.cache/huggingface/hub/models--a/snapshots/0e9e39f249a16976 does not exist",
			"OSError: /data/models/b/snapshots/141fc3a09386a8ba does not exist"},
		{"Segfault at 0x7f3b6e7236fc at 2026-01-12 05:01:25", "Segfault at 0x0000dead at 2025-03-01 10:00:00"},
	}
	for _, p := range pairs {
		a, b := classify.Template(p[0]), classify.Template(p[1])
		if a != b {
			t.Errorf("templates differ:\n %q\n %q", a, b)
		}
		if classify.Fingerprint(classify.AlarmOther, a) != classify.Fingerprint(classify.AlarmOther, b) {
			t.Errorf("fingerprints differ for %q", a)
		}
	}
	if got := classify.Template("Tried to allocate 3.94 GiB on GPU 2"); got != "Tried to allocate <size> on <rank>" {
		t.Errorf("Template = %q", got)
	}
	if classify.Template("ValueError: a") == classify.Template("KeyError: a") {
		t.Error("different exceptions share a template")
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want map[string]string
	}{
		{"model_path='m', tp_size=8, json_model_override_args='{\"a\": 1, \"b\": [1, 2]}', dist=None) trailing, x=1",
			map[string]string{"model_path": "m", "tp_size": "8", "json_model_override_args": `{"a": 1, "b": [1, 2]}`, "dist": "None"}},
		{"{'model_tag': 'poolside/x', 'max_model_len': 262144, 'speculative_config': {'method': 'dflash', 'n': 15}}",
			map[string]string{"model_tag": "poolside/x", "max_model_len": "262144", "speculative_config": "{'method': 'dflash', 'n': 15}"}},
		{"model='/opt/m', speculative_config=None, seed=0", map[string]string{"model": "/opt/m", "speculative_config": "None", "seed": "0"}},
		{"nothing here", nil},
	}
	for _, tt := range tests {
		got := classify.ParseConfig(tt.in)
		if len(got) != len(tt.want) {
			t.Errorf("ParseConfig(%q) = %v", tt.in, got)
			continue
		}
		for k, v := range tt.want {
			if got[k] != v {
				t.Errorf("ParseConfig(%q)[%q] = %q, want %q", tt.in, k, got[k], v)
			}
		}
	}
	huge := "a=" + strings.Repeat("v", 1<<20) + ", " + strings.Repeat("k=1, ", 10000)
	if got := classify.ParseConfig(huge); len(got["a"]) > 512 {
		t.Errorf("value kept %d bytes", len(got["a"]))
	}
}

func TestMatchRules(t *testing.T) {
	t.Parallel()
	oom := classify.Alarm{ID: 1, Kind: classify.AlarmOOM,
		Headline: "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB"}
	oom.Template = classify.Template(oom.Headline)
	oom.Fingerprint = classify.Fingerprint(oom.Kind, oom.Template)
	tests := []struct {
		name   string
		rules  []classify.Rule
		server string
		labels map[string]string
		want   int64
		ok     bool
	}{
		{"TemplateAllLaunches", []classify.Rule{{ID: 7, Matcher: classify.MatchTemplate,
			Pattern: classify.Template("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 MiB")}}, "vllm", nil, 7, true},
		{"Fingerprint", []classify.Rule{{ID: 8, Matcher: classify.MatchTemplate, Pattern: oom.Fingerprint}}, "vllm", nil, 8, true},
		{"SubstringIgnoresCase", []classify.Rule{{ID: 3, Matcher: classify.MatchSubstring, Pattern: "cuda OUT of memory"}}, "", nil, 3, true},
		{"RegexOtherServer", []classify.Rule{{ID: 4, Matcher: classify.MatchRegex, Pattern: `allocate \d`, Server: "sglang"}}, "vllm", nil, 0, false},
		{"RegexSameServer", []classify.Rule{{ID: 4, Matcher: classify.MatchRegex, Pattern: `allocate \d`, Server: "sglang"}}, "sglang", nil, 4, true},
		{"LabelScopeMissing", []classify.Rule{{ID: 5, Matcher: classify.MatchSubstring, Pattern: "memory", Labels: map[string]string{"team": "a"}}},
			"vllm", map[string]string{"team": "b"}, 0, false},
		{"LabelScopeMatches", []classify.Rule{{ID: 5, Matcher: classify.MatchSubstring, Pattern: "memory", Labels: map[string]string{"team": "a"}}},
			"vllm", map[string]string{"team": "a", "gpu": "h100"}, 5, true},
		{"KindScope", []classify.Rule{{ID: 6, Matcher: classify.MatchSubstring, Pattern: "memory", Kind: classify.AlarmNCCL}}, "", nil, 0, false},
		{"FirstOfSeveral", []classify.Rule{{ID: 9, Matcher: classify.MatchRegex, Pattern: `(`}, {ID: 10, Matcher: classify.MatchSubstring, Pattern: "nope"},
			{ID: 11, Matcher: classify.MatchSubstring, Pattern: "Tried"}, {ID: 12, Matcher: classify.MatchSubstring, Pattern: "CUDA"}}, "", nil, 11, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			id, ok := classify.MatchRules(tt.rules, oom, tt.server, tt.labels)
			if id != tt.want || ok != tt.ok {
				t.Errorf("MatchRules = %d, %v; want %d, %v", id, ok, tt.want, tt.ok)
			}
		})
	}
	if _, err := classify.CompileRules([]classify.Rule{{ID: 1, Matcher: "glob", Pattern: "x"}, {ID: 2, Matcher: classify.MatchRegex, Pattern: "("}}); err == nil {
		t.Error("CompileRules accepted invalid rules")
	}
}
