package store

import (
	"bytes"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/corpustest"
	"launchwatch/internal/linesearch"
	"launchwatch/internal/templates"
)

// refTemplateHash is the template hash as it was before it was made
// cheaper: the fast one must give the same hashes (the summary of lines
// stored before must stay valid). The search filter's reference is
// internal/linesearch's.
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
	return corpustest.Lines(t, filepath.Join("..", "..", "testdata", "families"))
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

// TestSearchIndexAgreesWithReference checks that the filters of chunks of
// 64 lines hold the bits of their lines' own filters (whose agreement
// with the reference internal/linesearch checks), and that template hashes
// agree with the reference's.
func TestSearchIndexAgreesWithReference(t *testing.T) {
	t.Parallel()
	lines := indexLines(t)
	rows := make([]Line, len(lines))
	want := map[int64]linesearch.Bloom{}
	for i, l := range lines {
		rows[i] = Line{Seq: int64(i + 1), Text: l}
		c := rows[i].Seq >> linesearch.ChunkShift
		if want[c] == nil {
			want[c] = linesearch.NewBloom()
		}
		one := linesearch.NewBloom()
		one.AddText(l)
		for k := range one {
			want[c][k] |= one[k]
		}
		tmpl, _ := classify.LineTemplate(l)
		if h, r := templates.Hash(tmpl), refTemplateHash(tmpl); h != r {
			t.Fatalf("templates.Hash(%q) = %d, reference %d", tmpl, h, r)
		}
	}
	got := map[int64]linesearch.Bloom{}
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
	want := map[int64]templates.LineTemplate{}
	kinds := []string{"plain", "error", "warning", string(classify.KindConfig)}
	for i, l := range lines {
		rows[i] = Line{Seq: int64(len(lines) - i), Text: l, Kind: kinds[i%len(kinds)], Level: []string{"", "ERROR", "warn"}[i%3]}
		if rows[i].Kind == string(classify.KindConfig) {
			continue
		}
		tmpl, noise := classify.LineTemplate(l)
		h := refTemplateHash(tmpl)
		sev := templates.LineSeverity(rows[i].Kind, rows[i].Level, false)
		w, ok := want[h]
		if !ok {
			want[h] = templates.LineTemplate{Hash: h, Template: tmpl, Severity: sev, Noise: noise, FirstSeq: rows[i].Seq, Count: 1, Sample: templates.Sample(l)}
			continue
		}
		w.Count++
		w.Severity = max(w.Severity, sev)
		if rows[i].Seq < w.FirstSeq {
			w.FirstSeq, w.Sample = rows[i].Seq, templates.Sample(l)
		}
		want[h] = w
	}
	x := NewLineIndex()
	for i := 0; i < len(rows); i += 1000 {
		x.Add(rows[i:min(i+1000, len(rows))])
	}
	if x.templates.Len() != len(want) {
		t.Fatalf("%d templates, reference %d", x.templates.Len(), len(want))
	}
	for h, w := range want {
		if g := x.templates.Get(h); g == nil || *g != w {
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
	benchLineIndex(b, rows, size)
}

// refTemplateAcc is the template summary as it was built before: a map
// by FNV hash, the template of every line hashed; the benchmark's
// reference (internal/templates checks its Acc's pruning against a copy
// of it, since it cannot import this test).
type refTemplateAcc map[int64]*templates.LineTemplate

func (m refTemplateAcc) add(seq int64, text, kind, level string, inAlarm bool) {
	if kind == string(classify.KindConfig) {
		return
	}
	tmpl, noise := classify.LineTemplate(text)
	h := refTemplateHash(tmpl)
	sev := templates.LineSeverity(kind, level, inAlarm)
	if t, ok := m[h]; ok {
		t.Count++
		t.Severity = max(t.Severity, sev)
		if seq < t.FirstSeq {
			t.FirstSeq, t.Sample = seq, templates.Sample(text)
		}
		return
	}
	m[h] = &templates.LineTemplate{Hash: h, Template: tmpl, Severity: sev, Noise: noise, FirstSeq: seq, Count: 1, Sample: templates.Sample(text)}
}

// shiftDigits adds n to every digit of s (mod 10): another line of the
// same templates, mostly.
func shiftDigits(s string, n int) string {
	if n == 0 {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c >= '0' && c <= '9' {
			b[i] = '0' + (c-'0'+byte(n))%10
		}
	}
	return string(b)
}

// BenchmarkLineIndexAddRepeated is BenchmarkLineIndexAdd on the log lines
// four times, with other numbers each time: a launch's lines repeat their
// templates with other values.
func BenchmarkLineIndexAddRepeated(b *testing.B) {
	var rows []Line
	var size int64
	for rep := range 4 {
		for _, l := range logLines(b) {
			l = shiftDigits(l, rep)
			rows = append(rows, Line{Seq: int64(len(rows) + 1), Text: l, Kind: "plain"})
			size += int64(len(l)) + 1
		}
	}
	benchLineIndex(b, rows, size)
}

// benchLineIndex adds rows to a LineIndex in 1024-line pieces (Fast), and
// line by line to filters and the reference template summary (Reference;
// the filters' own reference is internal/linesearch's BenchmarkBloomAdd).
func benchLineIndex(b *testing.B, rows []Line, size int64) {
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
			blooms, tmpls := map[int64]linesearch.Bloom{}, refTemplateAcc{}
			for _, r := range rows {
				c := r.Seq >> linesearch.ChunkShift
				if blooms[c] == nil {
					blooms[c] = linesearch.NewBloom()
				}
				blooms[c].AddText(r.Text)
				tmpls.add(r.Seq, r.Text, r.Kind, r.Level, false)
			}
		}
	})
}
