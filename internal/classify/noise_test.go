package classify_test

import (
	"testing"

	"launchwatch/internal/classify"
)

func TestLineTemplate(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		want  string
		noise bool
	}{
		"Warming kernels:  10%|█         | 4/40 [00:01<00:09, 3.9it/s]":      {"Warming kernels: <progress>", true},
		"Warming kernels:  95%|█████████▌| 38/40 [00:09<00:00, 3.9it/s]":     {"Warming kernels: <progress>", true},
		"Warming kernels:   0%|   | 0/40\rWarming kernels:  50%|██  | 20/40": {"Warming kernels: <progress>", true},
		"(Worker pid=77) Shards: 50% Completed | 1/2 [00:01<00:01, 1.5s/it]": {"(Worker <rank>) Shards: <progress>", true},
		"\x1b[1;36m(Worker pid=77)\x1b[0m        ^^^^^^^^^^":                 {classify.NoiseCarets, true},
		"ERROR 03-14 10:00:09 [core.py:500]     ~~~~~~^^^^^":                 {classify.NoiseCarets, true},
		"[rank3]:     ^^^":                           {classify.NoiseCarets, true},
		"==========================================": {classify.NoiseRule, true},
		"   ":                                {classify.NoiseBlank, true},
		"ValueError: need 12 blocks, have 3": {"ValueError: need <num> blocks, have <num>", false},
		"INFO 03-14 10:00:09 [api.py:12] GET /v1/models 200": {"INFO <num> <time> [api.py:<num>] GET <path> <num>", false},
		"x = a ^ b": {"x = a ^ b", false},
		"WARNING 03-14 10:00:02 [config.py:95] chunked prefill is on (max 2048) ---": {"WARNING <num> <time> [config.py:<num>] chunked prefill is on (max <num>) ---", false},
	}
	for in, want := range tests {
		got, noise := classify.LineTemplate(in)
		if got != want.want || noise != want.noise {
			t.Errorf("LineTemplate(%q) = %q, %v; want %q, %v", in, got, noise, want.want, want.noise)
		}
	}
}
