package classify

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"launchwatch/internal/corpustest"
)

// agreeLines is every line of every log of the shared corpus and of
// testdata/families, read at run time (never copied into a fixture).
func agreeLines(t testing.TB) []string {
	t.Helper()
	return corpustest.Lines(t, filepath.Join("..", "..", "testdata", "families"))
}

// templatePieces are made-up fragments that reach every branch of Template
// and LineTemplate: quotes, paths, numbers of every shape, units, ranks,
// hex ids, bars, carets, rules, tags, colours, redraws, invalid UTF-8.
var templatePieces = []string{
	" ", "  ", "\t", "'", "\"", "`", "'quoted'", "\"dq x\"", "`bt`", "/", "/usr/lib/x.so", "a/b", "~/.cache",
	"0x1F", "0X", "0xzz", "12", "3.5", "3.", "1,024", "1,", "10:00:09", "03-14", "2026-01-02", "1-2", "-",
	"GiB", " GiB", "MiB", "KiB", "GB", "MB", "KB", "kB", "TiB", "TB", "bytes", "B", "Bx", " B", "milliseconds",
	"0e9e39f249a1", "deadbeef", "DEADBEEF12", "abcdefgh", "abcdef12", "TP3", "DP0", "tp3", "TPx", "rank5", "rank",
	"Rank ", "rank ", "GPU ", "gpu ", "pid=", "pid ", "device ", "cuda:", "PG ", "rank=", "local_rank=",
	"word", "Error", "_x_", "é", "ü", "\xff", "\xc3", "█", "▌", "▏", "%|", "% ", "%", "|", "it/s]", "s/it]",
	"[00:05<00:00, 6.5it/s]", "^", "^^^^", "~~~", "~~^^", "===", "----", "***", "###", "___", "...", ")", "]",
	"(", "[", "(Worker pid=7)", "[rank0]:", "[TP1]", ": ", " | ", "\r", "\r  ", "\x1b[1;36m", "\x1b[0m", "^[[32m",
	"\u241b[0m", "INFO 03-14 10:00:09 [api.py:12] ", "ERROR 2026-01-02 03:04:05,678 ", "[2026-01-12 05:01:25 TP0] ",
	"W0102 03:04:05.678901 123 x.cc:5] ", "=", "*", "#", "_", ".", "x = a ^ b", "\x00", "\x7f", "@", "+",
}

func randomTemplateLine(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(14) {
		b.WriteString(templatePieces[rng.IntN(len(templatePieces))])
		if rng.IntN(5) == 0 {
			b.WriteString(strings.Repeat(templatePieces[rng.IntN(len(templatePieces))], rng.IntN(8)))
		}
	}
	if rng.IntN(50) == 0 { // over maxHeadline
		b.WriteString(strings.Repeat("é1 ", 200+rng.IntN(3)))
	}
	return b.String()
}

// TestTemplateAgreesWithReference checks Template and LineTemplate against
// the implementation they replaced (template_ref_test.go) on every line of
// the corpus and the families, each line's pieces cut at every 5th byte,
// and on random lines of made-up fragments.
func TestTemplateAgreesWithReference(t *testing.T) {
	t.Parallel()
	lines := agreeLines(t)
	for _, l := range lines {
		checkTemplate(t, l)
		for i := 5; i < len(l) && i < 700; i += 5 { // prefixes and suffixes reach the ends of tokens
			checkTemplate(t, l[:i])
			checkTemplate(t, l[i:])
		}
	}
	rng := rand.New(rand.NewPCG(13, 6))
	for range 400_000 {
		checkTemplate(t, randomTemplateLine(rng))
	}
	t.Logf("%d corpus and family lines, 400000 random ones", len(lines))
}

// FuzzTemplateAgreesWithReference is the same check on fuzzed lines.
func FuzzTemplateAgreesWithReference(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 64 {
		f.Add(randomTemplateLine(rng))
	}
	f.Fuzz(checkTemplate)
}

// checkTemplate fails t unless Template, LineTemplate and their appending
// forms agree with the reference on s; appendTemplate appends after a
// prefix, so that its masks see a buffer that does not start empty.
func checkTemplate(t *testing.T, s string) {
	t.Helper()
	want := refTemplate(s)
	if got := Template(s); got != want {
		t.Fatalf("Template(%q) = %q, reference %q", s, got, want)
	}
	var buf [templateBuf]byte
	if got := appendTemplate(append(buf[:0], "pid "...), s); string(got) != "pid "+want {
		t.Fatalf("appendTemplate(\"pid \", %q) = %q, reference %q", s, got, "pid "+want)
	}
	wantLine, wantNoise := refLineTemplate(s)
	if got, noise := LineTemplate(s); got != wantLine || noise != wantNoise {
		t.Fatalf("LineTemplate(%q) = %q, %v; reference %q, %v", s, got, noise, wantLine, wantNoise)
	}
	if got, noise := AppendLineTemplate(buf[:0], s); string(got) != wantLine || noise != wantNoise {
		t.Fatalf("AppendLineTemplate(%q) = %q, %v; reference %q, %v", s, got, noise, wantLine, wantNoise)
	}
}

// BenchmarkLineTemplate is the template of every corpus and family line,
// by LineTemplate and by the reference implementation.
func BenchmarkLineTemplate(b *testing.B) {
	lines := agreeLines(b)
	var size int64
	for _, l := range lines {
		size += int64(len(l)) + 1
	}
	for _, c := range []struct {
		name string
		fn   func(string) (string, bool)
	}{{"Fast", LineTemplate}, {"Reference", refLineTemplate}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range lines {
					c.fn(l)
				}
			}
			b.ReportMetric(float64(len(lines))*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// BenchmarkAppendLineTemplate is what ingest does per line (templateAcc):
// the template of every corpus and family line appended to a buffer kept
// from line to line.
func BenchmarkAppendLineTemplate(b *testing.B) {
	lines := agreeLines(b)
	var size int64
	for _, l := range lines {
		size += int64(len(l)) + 1
	}
	b.SetBytes(size)
	b.ReportAllocs()
	buf := make([]byte, 0, templateBuf)
	for b.Loop() {
		for _, l := range lines {
			buf, _ = AppendLineTemplate(buf[:0], l)
		}
	}
}
