package decode

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/golang/snappy"

	"launchwatch/internal/launchid"
)

// FuzzShipperBodies checks that no Loki, OTLP or native JSON body makes a
// decoder panic, and that every outcome is storable lines under valid
// launch keys or an input error for the client (never a 500).
func FuzzShipperBodies(f *testing.F) {
	f.Add([]byte(`{"streams":[{"stream":{"launch":"a"},"values":[["1800000000000000000","x",{"k":1}]]}]}`), uint8(0))
	f.Add([]byte(`{"streams":[{"stream":{"job":"/x"},"values":[["1","\u0000"]]}]}`), uint8(0))
	f.Add(snappy.Encode(nil, []byte("\x0a\x12\x0a\x0a{launch=\"a\"}\x12\x04\x12\x02hi")), uint8(1))
	f.Add([]byte(`{"resourceLogs":[{"resource":{"attributes":[{"key":"launchwatch.launch","value":{"stringValue":"k"}}]},"scopeLogs":[{"logRecords":[{"timeUnixNano":"1","body":{"stringValue":"x"}}]}]}]}`), uint8(2))
	f.Add([]byte("\x0a\x00"), uint8(3))
	f.Add([]byte(`[{"message":"a","timestamp":"2026-01-01T00:00:00Z"},{"log":"b","date":1.5e9}]`), uint8(4))
	f.Fuzz(func(t *testing.T, body []byte, kind uint8) {
		var batches []Batch
		var err error
		switch kind % 5 {
		case 0:
			batches, err = Loki(body, "application/json", LokiOptions{MaxBodyBytes: 1 << 20, MaxLineBytes: 32})
		case 1:
			batches, err = Loki(body, "", LokiOptions{MaxBodyBytes: 1 << 20, MaxLineBytes: 32})
		case 2, 3:
			enc := OTLPProto
			if kind%5 == 2 {
				enc = OTLPJSON
			}
			var res OTLPResult
			res, err = OTLP(body, enc, 32)
			batches = res.Batches
		case 4:
			var lines []Line
			lines, err = JSON(body, 32)
			batches = []Batch{{Key: "k", Lines: lines}}
		}
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Status < 400 || ie.Status > 499 || ie.Message == "" {
				t.Fatalf("error %v is not a 4xx input error", err)
			}
			return
		}
		for _, b := range batches {
			if !launchid.KeyPattern.MatchString(b.Key) {
				t.Fatalf("launch key %q is not valid", b.Key)
			}
			for k, v := range b.Attrs.Labels {
				if !utf8.ValidString(k) || !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
					t.Fatalf("label %q=%q is not storable", k, v)
				}
			}
			for _, l := range b.Lines {
				if !utf8.ValidString(l.Text) || strings.ContainsRune(l.Text, 0) || l.Seq < 0 ||
					!utf8.ValidString(l.Level) || strings.ContainsRune(l.Level, 0) || l.TS.Year() > 9999 {
					t.Fatalf("line %q is not storable", l.Text)
				}
			}
		}
	})
}
