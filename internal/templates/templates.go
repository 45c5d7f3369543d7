// Package templates is what a launch's template summary is: its lines
// grouped by template (classify.LineTemplate), each with the highest
// severity of its lines, its count and its first line, and which templates
// a capped summary keeps. internal/store holds the summary's SQL and
// builds it with an Acc while it stores the lines; internal/compare reads
// it.
package templates

import (
	"cmp"
	"iter"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"launchwatch/internal/classify"
)

// maxSample bounds the bytes kept of a template's first line.
const maxSample = 1000

// Severities of a line template: the highest of its lines.
const (
	SeverityOther    = 0
	SeverityWarning  = 1 // kind warning or WARNING level
	SeverityError    = 2 // kind error, ERROR level, or part of an alarm
	SeverityCritical = 3 // CRITICAL or FATAL level
)

// LineTemplate is one template of a launch's lines (classify.LineTemplate)
// in the launch's template summary.
type LineTemplate struct {
	Hash     int64 // Hash of Template
	Template string
	Severity int
	Noise    bool   // progress bar, caret, separator or blank line
	FirstSeq int64  // the first line with the template
	Count    int64  // how many lines had it
	Sample   string // the text of the first line (at most 1000 bytes)
}

// Hash is the stable 64-bit hash a summary keys a template by.
func Hash(template string) int64 {
	return hash(template)
}

// hash is FNV-1a, 64 bits (hash/fnv's, without its interface and the copy
// of the template it takes).
func hash[T string | []byte](template T) int64 {
	const (
		offset64 = 14695981039346656037
		prime64  = 1099511628211
	)
	h := uint64(offset64)
	for i := 0; i < len(template); i++ {
		h ^= uint64(template[i])
		h *= prime64
	}
	return int64(h)
}

// LineSeverity is the severity of one stored line from its verdict.
func LineSeverity(kind, level string, inAlarm bool) int {
	switch strings.ToUpper(level) {
	case "CRITICAL", "FATAL", "PANIC", "EMERGENCY", "ALERT":
		return SeverityCritical
	}
	switch lv := strings.ToUpper(level); {
	case kind == string(classify.KindError) || inAlarm || lv == "ERROR" || lv == "ERR":
		return SeverityError
	case kind == string(classify.KindWarning) || lv == "WARNING" || lv == "WARN":
		return SeverityWarning
	}
	return SeverityOther
}

// Acc sums lines into templates by hash. byText finds a line's template by
// its text with the map's own hash, cheaper than FNV over every line's
// template: FNV runs once per distinct template text. The zero Acc is
// empty.
type Acc struct {
	byHash map[int64]*LineTemplate
	byText map[string]*LineTemplate // every text seen, to its template by hash
	buf    []byte                   // where a line's template is made
}

// Add counts one line. Configuration dumps are compared key by key, not
// line by line, and are left out.
func (m *Acc) Add(seq int64, text, kind, level string, inAlarm bool) {
	if kind == string(classify.KindConfig) {
		return
	}
	// The template is made in a buffer kept from line to line and
	// becomes a string only when it is new: most lines repeat a template.
	tb, noise := classify.AppendLineTemplate(m.buf[:0], text)
	m.buf = tb
	sev := LineSeverity(kind, level, inAlarm)
	t := m.byText[string(tb)]
	if t == nil {
		if m.byHash == nil {
			m.byHash, m.byText = map[int64]*LineTemplate{}, map[string]*LineTemplate{}
		}
		h := hash(tb)
		if t = m.byHash[h]; t == nil {
			tmpl := string(tb)
			t = &LineTemplate{Hash: h, Template: tmpl, Severity: sev, Noise: noise, FirstSeq: seq, Count: 1, Sample: Sample(text)}
			m.byHash[h], m.byText[tmpl] = t, t
			return
		}
		m.byText[string(tb)] = t // another text with the same hash counts with it, as it always did
	}
	t.Count++
	t.Severity = max(t.Severity, sev)
	if seq < t.FirstSeq {
		t.FirstSeq, t.Sample = seq, Sample(text)
	}
}

// Len is how many templates m holds.
func (m *Acc) Len() int { return len(m.byHash) }

// Get is m's template of hash h, nil if none.
func (m *Acc) Get(h int64) *LineTemplate { return m.byHash[h] }

// All is m's templates, in no order.
func (m *Acc) All() iter.Seq[*LineTemplate] { return maps.Values(m.byHash) }

// Kept is m's templates in the order a summary keeps them (Keep).
func (m *Acc) Kept() []*LineTemplate { return slices.SortedFunc(maps.Values(m.byHash), Keep) }

// Keep orders templates by what a summary keeps first: the most severe,
// messages before noise, the earliest.
func Keep(a, b *LineTemplate) int {
	return cmp.Or(cmp.Compare(b.Severity, a.Severity), boolOrder(a.Noise, b.Noise),
		cmp.Compare(a.FirstSeq, b.FirstSeq), cmp.Compare(a.Hash, b.Hash))
}

func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// Prune drops all but the n templates Keep puts first and returns how many
// it dropped.
func (m *Acc) Prune(n int) int64 {
	if len(m.byHash) <= n {
		return 0
	}
	all := m.Kept()
	for _, t := range all[n:] {
		delete(m.byHash, t.Hash)
	}
	for text, t := range m.byText {
		if m.byHash[t.Hash] != t {
			delete(m.byText, text)
		}
	}
	return int64(len(all) - n)
}

// Sample is what a template keeps of its first line: at most 1000 bytes,
// cut at a rune's start.
func Sample(text string) string {
	if len(text) <= maxSample {
		return text
	}
	n := maxSample
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n]
}
