package classify

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"launchwatch/internal/corpustest"
)

// TestDottedNameRegexpMatchesRegexp holds the exception-line shortcut, and
// the automaton behind it, to its regexp on every corpus line (trimmed, as
// the grammar sees them) and on names, brackets, colons, blanks and
// non-ASCII bytes put together at random.
func TestDottedNameRegexpMatchesRegexp(t *testing.T) {
	var lines []string
	files, _ := filepath.Glob(filepath.Join(corpustest.Dir(t), "*.log"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			lines = append(lines, strings.TrimSpace(ParsePrefix(l, 0).Body))
		}
	}
	parts := []string{"a", "Z", "_", "9", ".", "Error", "Warning", "Exit", "[", "]", ":", " ", "\t", "\n", "x y", "é", "\xff", "(", "-", "KeyError", "torch.cuda."}
	rng := rand.New(rand.NewPCG(13, 9))
	for range 50000 {
		var b strings.Builder
		for range rng.IntN(8) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		lines = append(lines, b.String())
	}
	for _, d := range []*dottedNameRegexp{reStrictExc, reLooseExc} {
		matched := 0
		for _, s := range lines {
			got, want := d.MatchString(s), d.re.re.MatchString(s)
			if got != want {
				t.Fatalf("%s on %q: %v, regexp says %v", d.re.re, s, got, want)
			}
			if want {
				matched++
			}
		}
		if matched < 100 {
			t.Fatalf("%s matched only %d lines: the comparison says little", d.re.re, matched)
		}
	}
}
