package decode

import (
	"bytes"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     string
		firstSeq int64
		want     []string
		seqs     []int64
	}{
		{"Empty", "", 0, nil, nil},
		{"OneNewline", "\n", 0, []string{""}, []int64{0}},
		{"NoTrailingNewline", "a\nb", 0, []string{"a", "b"}, []int64{0, 0}},
		{"TrailingNewline", "a\nb\n", 0, []string{"a", "b"}, []int64{0, 0}},
		{"CRLF", "a\r\nb\r\n", 0, []string{"a", "b"}, []int64{0, 0}},
		{"OnlyOneCRStripped", "a\r\r\n", 0, []string{"a\r"}, []int64{0}},
		{"CRInsideStays", "50%\r100%\n", 0, []string{"50%\r100%"}, []int64{0}},
		{"BlankLinesKept", "a\n\n\nb\n", 0, []string{"a", "", "", "b"}, []int64{0, 0, 0, 0}},
		{"Numbered", "a\nb\nc", 7, []string{"a", "b", "c"}, []int64{7, 8, 9}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lines, err := Text([]byte(tt.body), tt.firstSeq, DefaultMaxLineBytes)
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != len(tt.want) {
				t.Fatalf("got %d lines %+v, want %q", len(lines), lines, tt.want)
			}
			for i, l := range lines {
				if l.Text != tt.want[i] || l.Seq != tt.seqs[i] {
					t.Errorf("line %d = seq %d %q, want seq %d %q", i, l.Seq, l.Text, tt.seqs[i], tt.want[i])
				}
			}
		})
	}
}

func TestCleanLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  string
		max  int
		want string
	}{
		{"Unchanged", "plain ascii", 64, "plain ascii"},
		{"NUL", "a\x00b", 64, "a\uFFFDb"},
		{"InvalidUTF8", "a\xc3\x28b", 64, "a\uFFFD(b"},
		{"ExactlyAtLimit", "abcd", 4, "abcd"},
		{"CutAndMarked", "abcdef", 4, "abcd …[launchwatch: line truncated, 2 bytes cut]"},
		{"CutAtCharacterBoundary", "ab€€", 4, "ab …[launchwatch: line truncated, 6 bytes cut]"},
		{"ReplacedThenCut", "abc\xff\xfe", 4, "abc …[launchwatch: line truncated, 3 bytes cut]"},
		{"NULsCountAfterReplacement", "\x00\x00", 4, "\uFFFD …[launchwatch: line truncated, 3 bytes cut]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := cleanLine([]byte(tt.raw), tt.max)
			if got != tt.want {
				t.Errorf("cleanLine(%q, %d) = %q, want %q", tt.raw, tt.max, got, tt.want)
			}
			if !utf8.ValidString(got) || strings.ContainsRune(got, 0) {
				t.Errorf("result %q is not storable", got)
			}
		})
	}
}

func TestFormatOf(t *testing.T) {
	t.Parallel()
	ok := map[string]Format{
		"":                                  FormatText,
		"text/plain":                        FormatText,
		"text/plain; charset=utf-8":         FormatText,
		"application/x-www-form-urlencoded": FormatText,
		"application/x-ndjson":              FormatNDJSON,
		"application/ndjson":                FormatNDJSON,
		"Application/X-NDJSON":              FormatNDJSON,
		"application/json":                  FormatJSON,
		"application/json; charset=utf-8":   FormatJSON,
	}
	for ct, want := range ok {
		if got, err := formatOf(ct); err != nil || got != want {
			t.Errorf("formatOf(%q) = %v, %v; want %v", ct, got, err, want)
		}
	}
	for _, ct := range []string{"application/xml", "image/png", "text/"} {
		_, err := formatOf(ct)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Status != http.StatusUnsupportedMediaType {
			t.Errorf("formatOf(%q): err = %v, want a 415 InputError", ct, err)
		}
	}
}

// FuzzDecode checks that no body makes a decoder panic, and that every
// outcome is either storable lines or an input error for the client.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("a\nb\r\n"), false)
	f.Add([]byte(`{"seq":1,"line":"x","ts":"2026-01-01T00:00:00Z","stream":"stdout"}`+"\n"), true)
	f.Add([]byte(`{"seq":1,"line":"x"}`+"\n"+`{"line":"y"}`), true)
	f.Add([]byte("\x00\xff\n"), false)
	f.Add([]byte(`{"seq":1e3,"line":"\u0000","ts":1}`), true)
	f.Fuzz(func(t *testing.T, body []byte, ndjson bool) {
		var lines []Line
		var err error
		if ndjson {
			lines, err = NDJSON(body, 32)
		} else {
			lines, err = Text(body, 1, 32)
		}
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Status < 400 || ie.Status > 499 || ie.Message == "" {
				t.Fatalf("error %v is not a 4xx input error", err)
			}
			return
		}
		for _, l := range lines {
			if !utf8.ValidString(l.Text) || strings.ContainsRune(l.Text, 0) {
				t.Fatalf("line %q is not storable", l.Text)
			}
			if len(l.Text) > 32+len(truncationMarker(3*len(body))) { // replacement can triple a line
				t.Fatalf("line of %d bytes exceeds the limit", len(l.Text))
			}
		}
	})
}

func TestDecodersRefuseTooManyLines(t *testing.T) {
	t.Parallel()
	many := bytes.Repeat([]byte("\n"), MaxBatchLines+1)
	manyObjects := bytes.Repeat([]byte(`{"line":""}`+"\n"), MaxBatchLines+1)
	manyArray := append(append([]byte("["), bytes.Repeat([]byte(`{"line":""},`), MaxBatchLines)...), []byte(`{"line":""}]`)...)
	for name, decode := range map[string]func() error{
		"Text":   func() error { _, err := Text(many, 0, DefaultMaxLineBytes); return err },
		"NDJSON": func() error { _, err := NDJSON(manyObjects, DefaultMaxLineBytes); return err },
		"JSON":   func() error { _, err := JSON(manyArray, DefaultMaxLineBytes); return err },
	} {
		var ie *InputError
		if err := decode(); !errors.As(err, &ie) || ie.Status != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: %d+1 lines gave %v, want 413", name, MaxBatchLines, err)
		}
	}
	// Exactly the limit is fine.
	if lines, err := Text(bytes.Repeat([]byte("x\n"), MaxBatchLines), 0, DefaultMaxLineBytes); err != nil || len(lines) != MaxBatchLines {
		t.Errorf("%d lines: %d, %v", MaxBatchLines, len(lines), err)
	}
	// A JSON array followed by more is refused.
	if _, err := JSON([]byte(`[{"line":"a"}] [1]`), DefaultMaxLineBytes); err == nil {
		t.Error("an array followed by more JSON was accepted")
	}
}

// TestRepeatedSeqsAreRefused: a seq twice in one batch is a shipper's bug
// (the second line would be dropped as a duplicate of the first): the batch
// is refused, naming both places, whatever order the seqs come in; seqs
// that only come out of order are fine.
func TestRepeatedSeqsAreRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, body, want string
		json             bool
	}{
		{"InOrder", `{"seq":1,"line":"a"}` + "\n" + `{"seq":1,"line":"b"}`, `line 2 of the body has the "seq" 1 of line 1`, false},
		{"OutOfOrder", `{"seq":3,"line":"a"}` + "\n\n" + `{"seq":1,"line":"b"}` + "\n" + `{"seq":2,"line":"c"}` + "\n" + `{"seq":1,"line":"d"}`,
			`line 5 of the body has the "seq" 1 of line 3`, false},
		{"AfterAReorder", `{"seq":2,"line":"a"}` + "\n" + `{"seq":1,"line":"b"}` + "\n" + `{"seq":2,"line":"c"}`, `line 3 of the body has the "seq" 2 of line 1`, false},
		{"JSONArray", `[{"seq":1,"line":"a"},{"seq":2,"line":"b"},{"seq":2,"line":"c"}]`, `element 2 of the array has the "seq" 2 of element 1`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			decodeFn := NDJSON
			if tt.json {
				decodeFn = JSON
			}
			_, err := decodeFn([]byte(tt.body), DefaultMaxLineBytes)
			var ie *InputError
			if !errors.As(err, &ie) || ie.Status != http.StatusBadRequest || !strings.Contains(ie.Message, tt.want) {
				t.Errorf("got %v, want a 400 saying %q", err, tt.want)
			}
		})
	}
	lines, err := NDJSON([]byte(`{"seq":3,"line":"c"}`+"\n"+`{"seq":1,"line":"a"}`+"\n"+`{"seq":2,"line":"b"}`), DefaultMaxLineBytes)
	if err != nil || len(lines) != 3 {
		t.Errorf("seqs out of order: %d lines, %v; want 3 and no error", len(lines), err)
	}
}

// TestSeqLimitIsStated: every message about a seq too high states the real
// limit, 2^53, never int64's.
func TestSeqLimitIsStated(t *testing.T) {
	t.Parallel()
	for _, q := range []string{"abc", "0", "9007199254740993", "9223372036854775807"} {
		_, err := seqParam(map[string][]string{"seq": {q}})
		if err == nil || !strings.Contains(err.Error(), "2^53 (9007199254740992)") || strings.Contains(err.Error(), "9223372036854775807") && q != "9223372036854775807" {
			t.Errorf("?seq=%s: %v, want the limit 2^53 (9007199254740992)", q, err)
		}
	}
	if n, err := seqParam(map[string][]string{"seq": {"9007199254740992"}}); err != nil || n != MaxSeq {
		t.Errorf("?seq=2^53: %d, %v", n, err)
	}
	if _, err := Text([]byte("a\nb\n"), MaxSeq, DefaultMaxLineBytes); err == nil || !strings.Contains(err.Error(), "above 2^53 (9007199254740992)") {
		t.Errorf("two lines from 2^53: %v", err)
	}
	if _, err := NDJSON([]byte(`{"seq":9007199254740993,"line":"a"}`), DefaultMaxLineBytes); err == nil || !strings.Contains(err.Error(), "2^53 (9007199254740992)") {
		t.Errorf("NDJSON seq 2^53+1: %v", err)
	}
}

// TestNativeSeqRule: a text batch's lines are numbered from ?seq=; NDJSON
// and JSON batches carry their own seqs and refuse ?seq=, and a bad seq is
// refused before the Content-Type is looked at.
func TestNativeSeqRule(t *testing.T) {
	t.Parallel()
	decodeNative := func(query, contentType, body string) ([]Line, error) {
		q, err := url.ParseQuery(query)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NativeBatchOf(q, contentType)
		if err != nil {
			return nil, err
		}
		return Native([]byte(body), b, DefaultMaxLineBytes)
	}
	lines, err := decodeNative("seq=7", "text/plain", "a\nb\n")
	if err != nil || len(lines) != 2 || lines[0].Seq != 7 || lines[1].Seq != 8 {
		t.Errorf("text from seq 7: %+v, %v", lines, err)
	}
	if lines, err = decodeNative("", "application/x-ndjson", `{"seq":4,"line":"a"}`); err != nil || len(lines) != 1 || lines[0].Seq != 4 {
		t.Errorf("NDJSON with its own seq: %+v, %v", lines, err)
	}
	for _, ct := range []string{"application/x-ndjson", "application/json"} {
		if _, err := decodeNative("seq=3", ct, `[]`); err == nil || !strings.Contains(err.Error(), "seq is a parameter of text/plain batches") {
			t.Errorf("%s with ?seq=: %v, want the seq rule", ct, err)
		}
	}
	var ie *InputError
	if _, err := decodeNative("seq=abc", "text/html", "a"); !errors.As(err, &ie) || ie.Status != http.StatusBadRequest {
		t.Errorf("bad seq and bad Content-Type: %v, want the seq's 400 first", err)
	}
}

// TestDecodeTextParts holds a large body, split in parts by goroutines of
// their own, to the lines one pass over it finds: wherever the cuts fall
// (blank lines, a line longer than a part, CRLF, a last part that is
// empty or one newline).
func TestDecodeTextParts(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", parallelTextBytes)
	bodies := map[string]string{
		"Lines":       strings.Repeat("[2026-04-02 09:28:00 TP0] Decode batch. #running-req: 1\n", parallelTextBytes/40),
		"CRLF":        strings.Repeat("a longer line\r\n", parallelTextBytes/12),
		"BlankLines":  strings.Repeat("a log line of some length\n\n", parallelTextBytes/24),
		"OneLongLine": long,
		"LongFirst":   long + "\nb\nc\n",
		"LongLast":    "a\nb\n" + long + "\n",
		"EmptyLast":   strings.Repeat("a line of text\n", parallelTextBytes/12) + "\n\n",
		"Cleaned":     strings.Repeat("bad \xff byte\x00 in a longer line\n", parallelTextBytes/20),
	}
	for name, body := range bodies {
		for _, first := range []int64{0, 5} {
			got, err := Text([]byte(body), first, DefaultMaxLineBytes)
			if err != nil {
				t.Fatal(name, err)
			}
			want := make([]Line, len(got))
			b := bytes.TrimSuffix([]byte(body), []byte("\n"))
			if n := bytes.Count(b, []byte("\n")) + 1; n != len(got) {
				t.Fatalf("%s: %d lines, want %d", name, len(got), n)
			}
			textLines(want, b, first, DefaultMaxLineBytes)
			for i := range want {
				if got[i].Text != want[i].Text || got[i].Seq != want[i].Seq {
					t.Fatalf("%s (first seq %d): line %d is %q seq %d, want %q seq %d", name, first, i,
						got[i].Text, got[i].Seq, want[i].Text, want[i].Seq)
				}
			}
		}
	}
}
