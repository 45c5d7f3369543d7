package classify

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// checkParseIn requires Prefix.parseIn, stripping into sc, to give the
// reference's Prefix (prefix_parse_ref_test.go), and every exported field
// to stay the same once sc's buffer is overwritten: none may be a view of
// it (stripBuf.own).
func checkParseIn(t *testing.T, sc *stripBuf, s string) {
	t.Helper()
	for _, year := range [...]int{2026, 0} {
		var got, want Prefix
		got.parseIn(s, year, sc)
		want.oldParse(s, year)
		if got != want {
			t.Fatalf("parseIn(%q, %d)\n got %#v\nwant %#v", s, year, got, want)
		}
		for i := range sc.buf {
			sc.buf[i] = '#'
		}
		got.full = want.full // the one field that may be a view
		if got != want {
			t.Fatalf("parseIn(%q, %d) after its buffer changed\n got %#v\nwant %#v", s, year, got, want)
		}
		if sc.line != "" {
			t.Fatalf("parseIn(%q, %d) kept its line", s, year)
		}
	}
}

// colourPieces are colour codes in the shapes stripESC reads: complete,
// cut short, lone ESCs, and the visible forms.
var colourPieces = []string{"\x1b[1;36m", "\x1b[0;0m", "\x1b[0m", "\x1b[32m", "\x1b", "\x1b[", "\x1b[1;", "\x1b]8;;x",
	"\x1b\x1b", "\x1b(B", "^[[33m", "\u241b[0m"}

// colourLine puts colour codes between the pieces of a made-up line (or a
// corpus line's words).
func colourLine(rng *rand.Rand, pieces []string) string {
	var b strings.Builder
	for _, p := range pieces {
		if rng.IntN(3) == 0 {
			b.WriteString(colourPieces[rng.IntN(len(colourPieces))])
		}
		b.WriteString(p)
	}
	if rng.IntN(2) == 0 {
		b.WriteString(colourPieces[rng.IntN(len(colourPieces))])
	}
	return b.String()
}

// TestParseInAgreesWithReference checks parseIn with a stripBuf, reused
// from line to line as the classifier does, against the reference parse
// on every corpus and families line, plain, coloured, cut short and in
// envelopes, and on random coloured lines of made-up prefix pieces.
func TestParseInAgreesWithReference(t *testing.T) {
	t.Parallel()
	var sc stripBuf
	rng := rand.New(rand.NewPCG(13, 21))
	lines := agreeLines(t)
	for i, l := range lines {
		checkParseIn(t, &sc, l)
		c := colourLine(rng, strings.SplitAfter(l, " "))
		checkParseIn(t, &sc, c)
		for n := 1; n < len(c) && n < 120; n++ {
			checkParseIn(t, &sc, c[:n])
		}
		for _, kind := range agreeEnvelopes {
			checkParseIn(t, &sc, wrapLine(kind, i, c))
		}
		checkParseIn(t, &sc, mutate(rng, c))
	}
	for range 300_000 {
		n := rng.IntN(9)
		pieces := make([]string, n)
		for j := range pieces {
			pieces[j] = prefixPieces[rng.IntN(len(prefixPieces))]
		}
		s := colourLine(rng, pieces)
		checkParseIn(t, &sc, s)
		checkParseIn(t, &sc, mutate(rng, s))
	}
	// Longer than the buffer takes: stripped into a string of its own.
	long := "\x1b[1;36m(EngineCore_DP0 pid=7)\x1b[0;0m INFO 08-03 21:02:48 [core.py:12] " + strings.Repeat("x\x1b[0m", maxStripBuf)
	checkParseIn(t, &sc, long)
	if cap(sc.buf) > 2*maxStripBuf {
		t.Fatalf("buffer grew to %d bytes", cap(sc.buf))
	}
}

// FuzzParseInAgreesWithReference is the same check on fuzzed lines.
func FuzzParseInAgreesWithReference(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 64 {
		f.Add(colourLine(rng, strings.SplitAfter(randomPrefixLine(rng), " ")))
	}
	var sc stripBuf
	f.Fuzz(func(t *testing.T, s string) { checkParseIn(t, &sc, s) })
}
