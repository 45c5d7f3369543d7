package templates

import (
	"hash/fnv"
	"maps"
	"path/filepath"
	"slices"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/corpustest"
)

// refHash is the template hash as it was before it was made cheaper: the
// fast one must give the same hashes (the summaries of lines stored
// before must stay valid). internal/store checks Hash against it on every
// line it indexes.
func refHash(template string) int64 {
	h := fnv.New64a()
	h.Write([]byte(template)) //nolint:errcheck // a hash never fails to write
	return int64(h.Sum64())
}

// refAcc is the template summary as it was built before: a map by FNV
// hash, the template of every line hashed (a copy of internal/store's
// benchmark reference, refTemplateAcc).
type refAcc map[int64]*LineTemplate

func (m refAcc) add(seq int64, text, kind, level string, inAlarm bool) {
	if kind == string(classify.KindConfig) {
		return
	}
	tmpl, noise := classify.LineTemplate(text)
	h := refHash(tmpl)
	sev := LineSeverity(kind, level, inAlarm)
	if t, ok := m[h]; ok {
		t.Count++
		t.Severity = max(t.Severity, sev)
		if seq < t.FirstSeq {
			t.FirstSeq, t.Sample = seq, Sample(text)
		}
		return
	}
	m[h] = &LineTemplate{Hash: h, Template: tmpl, Severity: sev, Noise: noise, FirstSeq: seq, Count: 1, Sample: Sample(text)}
}

func (m refAcc) prune(n int) int64 {
	if len(m) <= n {
		return 0
	}
	all := slices.SortedFunc(maps.Values(m), Keep)
	for _, t := range all[n:] {
		delete(m, t.Hash)
	}
	return int64(len(all) - n)
}

// logLines is every line of every log of the shared corpus and of
// testdata/families (read at run time, never copied into a fixture).
func logLines(t testing.TB) []string {
	t.Helper()
	return corpustest.Lines(t, filepath.Join("..", "..", "testdata", "families"))
}

// TestAccPrunesAsBefore builds a summary as store's buildLineTemplates
// does (pruned whenever it reaches a bound) from the log lines and
// variants of them with other numbers, and compares it with the
// reference's after every prune.
func TestAccPrunesAsBefore(t *testing.T) {
	t.Parallel()
	lines := logLines(t)
	var acc Acc
	ref := refAcc{}
	seq := int64(0)
	for rep := range 3 {
		for i, l := range lines {
			l = shiftDigits(l, rep)
			seq++
			kind, level := []string{"plain", "error", "warning"}[i%3], []string{"", "ERROR", "CRITICAL", "warn"}[i%4]
			acc.Add(seq, l, kind, level, i%7 == 0)
			ref.add(seq, l, kind, level, i%7 == 0)
			if len(ref) >= 1500 {
				if a, b := acc.Prune(500), ref.prune(500); a != b {
					t.Fatalf("pruned %d, reference %d", a, b)
				}
				for text, tm := range acc.byText {
					if acc.byHash[tm.Hash] != tm {
						t.Fatalf("text %q points to a pruned template", text)
					}
				}
			}
		}
	}
	if len(acc.byHash) != len(ref) {
		t.Fatalf("%d templates, reference %d", len(acc.byHash), len(ref))
	}
	for h, w := range ref {
		if g := acc.byHash[h]; g == nil || *g != *w {
			t.Fatalf("template %d: %+v, reference %+v", h, g, w)
		}
	}
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
