package eval

import "testing"

// TestWrapMatchesPerturb pins Wrap to the bytes ../shared/tools/perturb.py writes.
func TestWrapMatchesPerturb(t *testing.T) {
	lines := make([]string, 1001)
	for i := range lines {
		lines[i] = "LINE"
	}
	want := map[string]map[int]string{
		"k8s":      {0: "2026-01-28T10:04:05.000000123Z stdout F LINE", 27: "2026-01-28T10:04:05.999000123Z stdout F LINE", 1000: "2026-01-28T10:04:42.000000123Z stdout F LINE"},
		"compose":  {0: "vllm-1  | LINE"},
		"journald": {1: "Jan 28 10:04:05 gpu-7 vllm[12345]: LINE", 1000: "Jan 28 10:04:42 gpu-7 vllm[12345]: LINE"},
		"kubectl":  {0: "[pod/vllm-0/server] LINE"},
	}
	for kind, cases := range want {
		got, err := Wrap(kind, "vllm-x-y", lines)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range cases {
			if got[i] != w {
				t.Errorf("%s line %d = %q, want %q", kind, i, got[i], w)
			}
		}
	}
	if _, err := Wrap("nope", "x", lines); err == nil {
		t.Error("an unknown envelope is not refused")
	}
}
