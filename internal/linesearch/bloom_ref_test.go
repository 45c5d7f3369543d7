package linesearch

import (
	"bytes"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"launchwatch/internal/corpustest"
)

// refBloomAdd is the search filter as it was before it was made cheaper:
// AddText must set the same bits (the index of lines stored before must
// stay valid).
func refBloomAdd(b Bloom, text string) {
	set := func(a, c, d byte) {
		x := uint32(a)<<16 | uint32(c)<<8 | uint32(d)
		for _, h := range [2]uint32{(x * 2654435761) >> (32 - bloomLog), ((x ^ 0x5bd1e995) * 2246822519) >> (32 - bloomLog)} {
			b[h>>3] |= 0x80 >> (h & 7)
		}
	}
	lowerByte := func(c byte) byte {
		if c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	t := text
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			t = foldText(text)
			break
		}
	}
	if len(t) < 3 {
		return
	}
	x, y := lowerByte(t[0]), lowerByte(t[1])
	for i := 2; i < len(t); i++ {
		z := lowerByte(t[i])
		set(x, y, z)
		x, y = y, z
	}
}

// BenchmarkBloomAdd is the search filter of the corpus and family lines
// alone, by AddText and by the reference.
func BenchmarkBloomAdd(b *testing.B) {
	lines := logLines(b)
	var size int64
	for _, l := range lines {
		size += int64(len(l)) + 1
	}
	for _, c := range []struct {
		name string
		add  func(Bloom, string)
	}{{"Fast", Bloom.AddText}, {"Reference", refBloomAdd}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			f := NewBloom()
			for b.Loop() {
				for _, l := range lines {
					c.add(f, l)
				}
			}
		})
	}
}

// TestBloomAgreesWithReference checks that the filter of every line of the
// corpus and of random made-up lines holds the reference's bits.
func TestBloomAgreesWithReference(t *testing.T) {
	t.Parallel()
	for _, l := range append(logLines(t), randomLines()...) {
		got, ref := NewBloom(), NewBloom()
		got.AddText(l)
		refBloomAdd(ref, l)
		if !bytes.Equal(got, ref) {
			t.Fatalf("filter of %q differs from the reference", l)
		}
	}
}

// logLines is every line of every log of the shared corpus and of
// testdata/families (read at run time, never copied into a fixture).
func logLines(t testing.TB) []string {
	t.Helper()
	return corpustest.Lines(t, filepath.Join("..", "..", "testdata", "families"))
}

// randomLines are lines of made-up pieces: mixed case, the three
// characters that fold to ASCII letters, bar glyphs, invalid UTF-8.
func randomLines() []string {
	var lines []string
	pieces := []string{"a", "Z", "Q", " ", "İ", "\u212a", "ſ", "█", "é", "\xff", "\xc4", "\xe2\x84", "\x00", "Error", "GPU 3",
		"[rank0]:", "\r", "\x1b[0m", "ÉCOLE", "\u0130stanbul", "\xed\xa0\x80", "x"}
	rng := rand.New(rand.NewPCG(7, 9))
	for range 20_000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		lines = append(lines, b.String())
	}
	return lines
}
