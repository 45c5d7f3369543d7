package store

import (
	"bytes"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/corpustest"
)

// refBloomAdd and refTemplateHash are the search filter and the template
// hash as they were before they were made cheaper: the fast ones must
// set the same bits and give the same hashes (the index and the summary
// of lines stored before must stay valid).
func refBloomAdd(b bloom, text string) {
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

func refTemplateHash(template string) int64 {
	h := fnv.New64a()
	h.Write([]byte(template)) //nolint:errcheck // a hash never fails to write
	return int64(h.Sum64())
}

// indexLines is every line of every log of the shared corpus and of
// testdata/families (read at run time, never copied into a fixture), and
// random lines of made-up pieces: mixed case, the three characters that
// fold to ASCII letters, bar glyphs, invalid UTF-8.
func indexLines(t testing.TB) []string {
	t.Helper()
	return append(logLines(t), randomIndexLines()...)
}

// logLines is every line of every log of the shared corpus and of
// testdata/families.
func logLines(t testing.TB) []string {
	t.Helper()
	var lines []string
	for _, dir := range []string{corpustest.Dir(t), filepath.Join("..", "..", "testdata", "families")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.log"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no logs in %s: %v", dir, err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, strings.Split(string(data), "\n")...)
		}
	}
	return lines
}

func randomIndexLines() []string {
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

// TestSearchIndexAgreesWithReference checks that the filters of every
// line, alone and in chunks of 64, hold the same bits as the reference's,
// and that template hashes agree.
func TestSearchIndexAgreesWithReference(t *testing.T) {
	t.Parallel()
	lines := indexLines(t)
	rows := make([]Line, len(lines))
	want := map[int64]bloom{}
	for i, l := range lines {
		got, ref := newBloom(), newBloom()
		got.addText(l)
		refBloomAdd(ref, l)
		if !bytes.Equal(got, ref) {
			t.Fatalf("filter of %q differs from the reference", l)
		}
		rows[i] = Line{Seq: int64(i + 1), Text: l}
		c := rows[i].Seq >> chunkShift
		if want[c] == nil {
			want[c] = newBloom()
		}
		refBloomAdd(want[c], l)
		tmpl, _ := classify.LineTemplate(l)
		if h, r := TemplateHash(tmpl), refTemplateHash(tmpl); h != r {
			t.Fatalf("TemplateHash(%q) = %d, reference %d", tmpl, h, r)
		}
	}
	got := map[int64]bloom{}
	bloomsOf(got, rows)
	if len(got) != len(want) {
		t.Fatalf("%d chunks, reference %d", len(got), len(want))
	}
	for c, b := range want {
		if !bytes.Equal(got[c], b) {
			t.Fatalf("chunk %d differs from the reference", c)
		}
	}
}

// TestLineIndexTemplatesAgree checks the summary LineIndex builds against
// one built line by line with the string LineTemplate and the reference
// hash.
func TestLineIndexTemplatesAgree(t *testing.T) {
	t.Parallel()
	lines := indexLines(t)
	rows := make([]Line, len(lines))
	want := map[int64]LineTemplate{}
	kinds := []string{"plain", "error", "warning", string(classify.KindConfig)}
	for i, l := range lines {
		rows[i] = Line{Seq: int64(len(lines) - i), Text: l, Kind: kinds[i%len(kinds)], Level: []string{"", "ERROR", "warn"}[i%3]}
		if rows[i].Kind == string(classify.KindConfig) {
			continue
		}
		tmpl, noise := classify.LineTemplate(l)
		h := refTemplateHash(tmpl)
		sev := LineSeverity(rows[i].Kind, rows[i].Level, false)
		w, ok := want[h]
		if !ok {
			want[h] = LineTemplate{Hash: h, Template: tmpl, Severity: sev, Noise: noise, FirstSeq: rows[i].Seq, Count: 1, Sample: sample(l)}
			continue
		}
		w.Count++
		w.Severity = max(w.Severity, sev)
		if rows[i].Seq < w.FirstSeq {
			w.FirstSeq, w.Sample = rows[i].Seq, sample(l)
		}
		want[h] = w
	}
	x := NewLineIndex()
	for i := 0; i < len(rows); i += 1000 {
		x.Add(rows[i:min(i+1000, len(rows))])
	}
	if len(x.templates) != len(want) {
		t.Fatalf("%d templates, reference %d", len(x.templates), len(want))
	}
	for h, w := range want {
		if g := x.templates[h]; g == nil || *g != w {
			t.Fatalf("template %d: %+v, reference %+v", h, g, w)
		}
	}
}

// BenchmarkLineIndexAdd is what ingest adds to the search index and the
// template summary per line, on the corpus and family lines in 1024-line
// pieces: by LineIndex and by the reference (filters, string templates
// and hash/fnv as before; the templates by today's LineTemplate).
func BenchmarkLineIndexAdd(b *testing.B) {
	lines := logLines(b)
	rows := make([]Line, len(lines))
	var size int64
	for i, l := range lines {
		rows[i] = Line{Seq: int64(i + 1), Text: l, Kind: "plain"}
		size += int64(len(l)) + 1
	}
	b.Run("Fast", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			x := NewLineIndex()
			for i := 0; i < len(rows); i += 1024 {
				x.Add(rows[i:min(i+1024, len(rows))])
			}
		}
	})
	b.Run("Reference", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			blooms, templates := map[int64]bloom{}, map[int64]*LineTemplate{}
			for _, r := range rows {
				c := r.Seq >> chunkShift
				if blooms[c] == nil {
					blooms[c] = newBloom()
				}
				refBloomAdd(blooms[c], r.Text)
				tmpl, noise := classify.LineTemplate(r.Text)
				h := refTemplateHash(tmpl)
				if t, ok := templates[h]; ok {
					t.Count++
					continue
				}
				templates[h] = &LineTemplate{Hash: h, Template: tmpl, Noise: noise, FirstSeq: r.Seq, Count: 1, Sample: sample(r.Text)}
			}
		}
	})
}

// BenchmarkBloomAdd is the search filter of the corpus and family lines
// alone, by addText and by the reference.
func BenchmarkBloomAdd(b *testing.B) {
	lines := logLines(b)
	var size int64
	for _, l := range lines {
		size += int64(len(l)) + 1
	}
	for _, c := range []struct {
		name string
		add  func(bloom, string)
	}{{"Fast", bloom.addText}, {"Reference", refBloomAdd}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			f := newBloom()
			for b.Loop() {
				for _, l := range lines {
					c.add(f, l)
				}
			}
		})
	}
}
