package classify

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"launchwatch/internal/corpustest"
)

// found lists the distinct patterns a scan reports, ascending.
func found(scan func(string, func(int32)), s string) []int32 {
	var got []int32
	scan(s, func(p int32) {
		if !slices.Contains(got, p) {
			got = append(got, p)
		}
	})
	slices.Sort(got)
	return got
}

// TestMatcherAgreesWithAhoCorasick checks the gram matcher against the
// automaton it replaced on the literals of the embedded packs: on lines
// made of those literals in mixed case, cut, glued and salted with bytes
// that collide under the gram folding, and on every line of the corpus.
func TestMatcherAgreesWithAhoCorasick(t *testing.T) {
	rs := defaultRules()
	lits := append([]string(nil), builtinLiterals[:]...)
	for _, g := range rs.sigs {
		lits = append(lits, g.Any...)
	}
	lits = append(lits, endpointLiterals...)
	lits = append(lits, "ab", "Q", "x_[", "://", "Zq:", "[@^_", "Ünï", "µs", "a\x7fb_", "Q[Z]", "%||x", "|%|", "]]")
	gm, ac := newMatcher(lits), newACMatcher(lits)
	check := func(s string) {
		t.Helper()
		if a, b := found(gm.scan, s), found(ac.scan, s); !slices.Equal(a, b) {
			t.Fatalf("line %q: gram matcher %v, automaton %v", s, a, b)
		}
	}
	// Every literal at even and odd positions, alone, ending the line or
	// followed by a byte, in both cases.
	for _, l := range lits {
		for lead := range 8 {
			for _, tail := range []string{"", "x", " ;"} {
				check(strings.Repeat("-", lead) + l + tail)
				check(strings.Repeat("-", lead) + strings.ToUpper(l) + tail)
			}
		}
	}
	rng := rand.New(rand.NewPCG(13, 6))
	salt := []string{" ", "\r", "%", "|", "\x7f", "@", "`", "{", "[", "_", "\x00", "\xc3", "é", "A", "z", "\n"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(6) {
			l := lits[rng.IntN(len(lits))]
			switch rng.IntN(4) {
			case 0:
				l = strings.ToUpper(l)
			case 1:
				if len(l) > 1 {
					l = l[rng.IntN(len(l)):]
				}
			case 2:
				if len(l) > 1 {
					l = l[:rng.IntN(len(l))]
				}
			}
			b.WriteString(l)
			for range rng.IntN(3) {
				b.WriteString(salt[rng.IntN(len(salt))])
			}
		}
		check(b.String())
	}
	files, _ := filepath.Glob(filepath.Join(corpustest.Dir(t), "*.log"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			check(l)
		}
	}
}

// BenchmarkMatcher compares the literal scan of every corpus line by the
// gram matcher and by the automaton it replaced.
func BenchmarkMatcher(b *testing.B) {
	rs := defaultRules()
	lits := append([]string(nil), builtinLiterals[:]...)
	for _, g := range rs.sigs {
		lits = append(lits, g.Any...)
	}
	files, _ := filepath.Glob(filepath.Join(corpustest.Dir(b), "*.log"))
	var lines []string
	var size int64
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		for _, l := range strings.Split(string(data), "\n") {
			lines = append(lines, l)
			size += int64(len(l)) + 1
		}
	}
	n := 0
	hit := func(int32) { n++ }
	for _, c := range []struct {
		name string
		scan func(string, func(int32))
	}{{"Gram", newMatcher(lits).scan}, {"AhoCorasick", newACMatcher(lits).scan}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			for b.Loop() {
				for _, l := range lines {
					c.scan(l, hit)
				}
			}
		})
	}
}

// TestFoldWord checks the eight-byte fold against lower on every byte
// value in every position.
func TestFoldWord(t *testing.T) {
	t.Parallel()
	for c := range 256 {
		for pos := range 8 {
			for _, fill := range []byte{0, 'A', 'z', 0x80, 0xff, '@', '['} {
				var b [8]byte
				for i := range b {
					b[i] = fill
				}
				b[pos] = byte(c)
				s := string(b[:])
				got := foldWord(load64(s, 0))
				var want uint64
				for i := 7; i >= 0; i-- {
					want = want<<8 | uint64(lower(b[i]))
				}
				if got != want {
					t.Fatalf("foldWord(%q) = %#x, want %#x", s, got, want)
				}
			}
		}
	}
}

// TestIndexByLastByte holds the short-needle search to strings.Index on
// random strings over the bytes of its needles.
func TestIndexByLastByte(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	const alphabet = "%|%\r-|"
	for range 50000 {
		var s, f []byte
		for range rng.IntN(12) {
			s = append(s, alphabet[rng.IntN(len(alphabet))])
		}
		for range 1 + rng.IntN(3) {
			f = append(f, alphabet[rng.IntN(len(alphabet))])
		}
		if got, want := indexByLastByte(string(s), string(f)), strings.Index(string(s), string(f)); got != want {
			t.Fatalf("%q in %q: %d, strings.Index says %d", f, s, got, want)
		}
	}
}
