package classify

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// checkB8 fails t unless appendTemplate and AppendLineTemplate agree with
// their b8d418e copies (template_b8_ref_test.go) on s, appended after a
// prefix so that the masks see a dst that does not start empty.
func checkB8(t *testing.T, s string) {
	t.Helper()
	var got, want [templateBuf]byte
	prefix := []byte("pid ")
	g := appendTemplate(append(got[:0], prefix...), s)
	w := b8AppendTemplate(append(want[:0], prefix...), s)
	if !bytes.Equal(g, w) {
		t.Fatalf("appendTemplate(%q) = %q, b8d418e %q", s, g, w)
	}
	g, gn := AppendLineTemplate(got[:0], s)
	w, wn := b8AppendLineTemplate(want[:0], s)
	if !bytes.Equal(g, w) || gn != wn {
		t.Fatalf("AppendLineTemplate(%q) = %q, %v; b8d418e %q, %v", s, g, gn, w, wn)
	}
}

// TestTemplateAgreesWithB8 checks the template scanner against the one it
// replaced on every corpus and family line, their prefixes and suffixes
// cut at every 5th byte, and on random lines of made-up fragments.
func TestTemplateAgreesWithB8(t *testing.T) {
	t.Parallel()
	lines := agreeLines(t)
	for _, l := range lines {
		checkB8(t, l)
		for i := 5; i < len(l) && i < 700; i += 5 {
			checkB8(t, l[:i])
			checkB8(t, l[i:])
		}
	}
	rng := rand.New(rand.NewPCG(8, 13))
	for range 400_000 {
		checkB8(t, randomTemplateLine(rng))
	}
	t.Logf("%d corpus and family lines, 400000 random ones", len(lines))
}

// FuzzTemplateAgreesWithB8 is the same check on fuzzed lines.
func FuzzTemplateAgreesWithB8(f *testing.F) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 64 {
		f.Add(randomTemplateLine(rng))
	}
	f.Fuzz(checkB8)
}

// BenchmarkAppendLineTemplate is what ingest does per line (templateAcc):
// the template of every corpus and family line appended to a buffer kept
// from line to line, by AppendLineTemplate and by its b8d418e copy.
func BenchmarkAppendLineTemplate(b *testing.B) {
	lines := agreeLines(b)
	var size int64
	for _, l := range lines {
		size += int64(len(l)) + 1
	}
	for _, c := range []struct {
		name string
		fn   func([]byte, string) ([]byte, bool)
	}{{"Fast", AppendLineTemplate}, {"B8", b8AppendLineTemplate}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			buf := make([]byte, 0, templateBuf)
			for b.Loop() {
				for _, l := range lines {
					buf, _ = c.fn(buf[:0], l)
				}
			}
		})
	}
}
