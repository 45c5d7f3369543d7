package classify_test

import (
	"slices"
	"testing"

	"launchwatch/internal/classify"
)

// TestPackSignatures checks every signature of every embedded pack against
// its own test lines (must match) and not_tests lines (must not).
func TestPackSignatures(t *testing.T) {
	t.Parallel()
	packs, err := classify.Packs()
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]bool{}
	n := 0
	for _, p := range packs {
		families[p.Family] = true
		for _, g := range p.Signatures {
			n++
			server := ""
			if len(g.Servers) > 0 {
				server = g.Servers[0]
			}
			for _, line := range g.Tests {
				if ids := classify.MatchSignature(line, server); !slices.Contains(ids, g.ID) {
					t.Errorf("%s: test line does not match (got %v): %q", g.ID, ids, line)
				}
			}
			for _, line := range g.NotTests {
				if ids := classify.MatchSignature(line, server); slices.Contains(ids, g.ID) {
					t.Errorf("%s: not_test line matches: %q", g.ID, line)
				}
			}
		}
	}
	for _, f := range []string{"python", "pytorch", "nccl", "signals", "sglang", "vllm", "tgi"} {
		if !families[f] {
			t.Errorf("no %s rule pack", f)
		}
	}
	t.Logf("%d signatures in %d packs", n, len(packs))
}
