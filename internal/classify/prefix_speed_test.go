package classify

import (
	"fmt"
	"testing"
	"time"

	"launchwatch/internal/corpustest"
)

// wrapEnvelope puts line i of a log in the collector envelope kind, in the
// shapes eval.Wrap writes (eval imports this package, so it cannot be used
// here), plus a syslog relay's and a Docker json-file record's.
func wrapEnvelope(kind string, i int, l string) string {
	t := time.Date(2026, 1, 28, 10, 4, 5, 0, time.UTC).Add(time.Duration(37*i) * time.Millisecond)
	switch kind {
	case "k8s":
		return t.Format("2006-01-02T15:04:05.") + fmt.Sprintf("%06d123Z stdout F ", t.Nanosecond()/1000) + l
	case "compose":
		return "fam-1  | " + l
	case "journald":
		return t.Format("Jan 02 15:04:05") + " gpu-7 fam[12345]: " + l
	case "kubectl":
		return "[pod/fam-0/server] " + l
	case "syslog":
		return "<13>" + t.Format("Jan 02 15:04:05") + " gpu-7 fam[12345]: " + l
	}
	panic("unknown envelope " + kind)
}

var speedEnvelopes = []string{"k8s", "compose", "journald", "kubectl", "syslog"}

// BenchmarkPrefixParse measures Prefix.parse alone on every corpus line
// (the mix of BenchmarkFeed/Corpus) and on every corpus and families line,
// each also with the reference parse (prefix_parse_ref_test.go), and on the
// corpus lines in each collector envelope.
func BenchmarkPrefixParse(b *testing.B) {
	lines := corpustest.Lines(b)
	for name, set := range map[string][]string{"corpus": lines, "all": agreeLines(b)} {
		var size int64
		for _, l := range set {
			size += int64(len(l)) + 1
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range set {
					var p Prefix
					p.parse(l, 2026)
				}
			}
		})
		b.Run(name+"-buf", func(b *testing.B) { // as the classifier parses, into its stripBuf
			b.SetBytes(size)
			b.ReportAllocs()
			var sc stripBuf
			for b.Loop() {
				for _, l := range set {
					var p Prefix
					p.parseIn(l, 2026, &sc)
				}
			}
		})
		b.Run(name+"-reference", func(b *testing.B) { // the parse it replaced
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range set {
					var p Prefix
					p.oldParse(l, 2026)
				}
			}
		})
	}
	for _, kind := range speedEnvelopes {
		wrapped := make([]string, len(lines))
		for i, l := range lines {
			wrapped[i] = wrapEnvelope(kind, i, l)
		}
		b.Run(kind, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, l := range wrapped {
					var p Prefix
					p.parse(l, 2026)
				}
			}
		})
	}
}
