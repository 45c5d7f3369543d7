package classify

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzJSONString checks the hand-written JSON string decoder of the Docker
// json-file fast path against encoding/json.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\t\"q\"\\ \/"`, `"\u001b[31mred\u001b[0m"`, `"\ud83d\ude00 smile"`,
		`"\ud83d alone"`, `"bad \x"`, `"unterminated`, `"ctl` + "\x01" + `"`, `"\u12"`, `"é ✓"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return // invalid bytes pass through as they are; encoding/json replaces them
		}
		got, rest, ok := jsonString(s + `}`)
		rest = strings.TrimLeft(rest, " \t\r\n") // JSON whitespace after the value
		var want string
		err := json.Unmarshal([]byte(s), &want)
		if ok != (err == nil) {
			if ok && rest != "}" {
				return // a valid string followed by more than one value
			}
			t.Fatalf("jsonString(%q) ok=%v, encoding/json err=%v", s, ok, err)
		}
		if ok && (got != want || rest != "}") {
			t.Fatalf("jsonString(%q) = %q rest %q, want %q", s, got, rest, want)
		}
	})
}

func TestDockerFastPathMatchesDecoder(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{"log":"INFO 02-03 04:05:06 [x.py:1] hi \u001b[0m\n","stream":"stdout","time":"2026-02-03T04:05:06.123456789Z"}`,
		`{"log":"tab\there \"quoted\"\r\n","stream":"stderr","time":"2026-02-03T04:05:06Z"}`,
	} {
		fast, ok := scanDockerRecord(line)
		var slow collectorRecord
		if err := json.Unmarshal([]byte(line), &slow); err != nil || !ok || *fast.Log != *slow.Log || fast.Stream != slow.Stream || fast.Time != slow.Time {
			t.Errorf("%s: fast %+v (%v), decoder %+v (%v)", line, fast, ok, slow, err)
		}
	}
	if _, ok := scanDockerRecord(`{"log":"x\n","stream":"stdout","attrs":{"a":"b"},"time":"2026-02-03T04:05:06Z"}`); ok {
		t.Error("a record with attrs took the fast path")
	}
}
