package linesearch

import (
	"fmt"
	"testing"
)

func TestRegexp(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]string{
		`CUDA (error|out of memory)`: `[[CUDA error CUDA out of memory]]`,
		`out of memory`:              `[[out of memory]]`,
		`(?i)Kelvin`:                 "[[\x00elvin]]",
		`ValueError: \w+`:            `[[ValueError: ]]`,
		`NCCL.*timeout`:              `[[NCCL] [timeout]]`,
		`(OOM|NCCL) (timeout|rank)?`: `[[OOM  OOM timeout OOM rank NCCL  NCCL timeout NCCL rank]]`,
		`.*`:                         `[]`,
		`\d+`:                        `[]`,
		`a|.*`:                       `[]`,
		`(foo)+bar`:                  `[[foo] [bar]]`,
		`x{3}`:                       `[[xxx]]`,
	} {
		if got := fmt.Sprint(Regexp(expr)); got != want {
			t.Errorf("Regexp(%q) = %q, want %q", expr, got, want)
		}
	}
}

// TestBloomHoldsFoldedTrigrams: a chunk holding a line has every trigram
// any case-insensitive spelling of it asks for.
func TestBloomHoldsFoldedTrigrams(t *testing.T) {
	t.Parallel()
	b := NewBloom()
	b.AddText("CUDA Out Of Memory \u212Aelvin ſtep İnit")
	for _, lit := range []string{"cuda out of memory", "CUDA", "kelvin", "step", "init", literalOf([]rune("KELVIN"), true)} {
		m, ok := LiteralMask(lit)
		if !ok {
			t.Errorf("%q has no usable trigram", lit)
			continue
		}
		for i := range m {
			if b[i]&m[i] != m[i] {
				t.Errorf("bloom lacks a trigram of %q", lit)
				break
			}
		}
	}
	if _, ok := LiteralMask("ab"); ok {
		t.Error("a two-letter word has no trigram")
	}
}

// BenchmarkBloomAddText is the search index's cost at ingest in Go: the
// trigrams of one ~130-byte log line set in its chunk's filter.
func BenchmarkBloomAddText(b *testing.B) {
	b.ReportAllocs()
	line := "[2026-04-02 09:28:17 TP3] Decode batch. #running-req: 17, #token: 4913, token usage: 0.42, gen throughput (token/s): 1289.42"
	bl := NewBloom()
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		bl.AddText(line)
	}
}

// TestFolds: an expression folds case when any part of it does; one that
// does not parse folds (its literals are never compared byte for byte).
func TestFolds(t *testing.T) {
	t.Parallel()
	for expr, want := range map[string]bool{
		`CUDA (error|out of memory)`: false,
		`TP[0-9] (ready|rank)`:       false,
		`(?i)kelvin`:                 true,
		`CUDA ((?i)error)`:           true,
		`a(?i:b)c`:                   true,
		`(`:                          true,
	} {
		if got := Folds(expr); got != want {
			t.Errorf("Folds(%q) = %v, want %v", expr, got, want)
		}
	}
}
