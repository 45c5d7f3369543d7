package decode

import (
	"bytes"
	"errors"
	"net/http"
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
		if got, err := FormatOf(ct); err != nil || got != want {
			t.Errorf("FormatOf(%q) = %v, %v; want %v", ct, got, err, want)
		}
	}
	for _, ct := range []string{"application/xml", "image/png", "text/"} {
		_, err := FormatOf(ct)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Status != http.StatusUnsupportedMediaType {
			t.Errorf("FormatOf(%q): err = %v, want a 415 InputError", ct, err)
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
