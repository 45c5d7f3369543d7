package store

import (
	"slices"
	"strings"
	"testing"
)

// A block's texts read back as they were written, empty and long lines
// and all; a damaged frame or one of another block's count is an error,
// never wrong texts.
func TestBlockTextsRoundTrip(t *testing.T) {
	texts := []string{"", "INFO engine: up", strings.Repeat("é", 40_000), "", "ValueError: 50% of a_b\x01"}
	ls := make([]Line, len(texts))
	for i, s := range texts {
		ls[i] = Line{Seq: int64(i + 1), Text: s}
	}
	z := encodeBlockTexts([]byte("prefix"), ls)
	if string(z[:6]) != "prefix" {
		t.Fatalf("encodeBlockTexts did not append: %q", z[:6])
	}
	got, err := decodeBlockTexts(z[6:], len(texts))
	if err != nil || !slices.Equal(got, texts) {
		t.Fatalf("decoded %d texts (%v), want %d as written", len(got), err, len(texts))
	}
	if _, err := decodeBlockTexts(z[6:], len(texts)+1); err == nil {
		t.Error("a block of 5 texts decoded as 6")
	}
	bad := slices.Clone(z[6:])
	bad[len(bad)/2] ^= 0xff
	if got, err := decodeBlockTexts(bad, len(texts)); err == nil && slices.Equal(got, texts) {
		t.Error("a damaged frame decoded as the block")
	} else if err == nil {
		t.Errorf("a damaged frame decoded without an error, as %d texts", len(got))
	}
}
