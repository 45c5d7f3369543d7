package classify

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// The prefix readers as they were before they stopped allocating the
// fields of a bracket (prefix.go): the reference the fast ones must agree
// with. Helpers shared with the rest of the package are called, not copied.

func (p *Prefix) refEatBracketTime(s string) (string, bool) {
	if len(s) < 21 || !isDigit(s[1]) {
		return s, false
	}
	end := indexByteWithin(s, ']', 81)
	if end < 0 || end > 80 {
		return s, false
	}
	inner := s[1:end]
	t, n := parseDateTime(inner)
	if n == 0 {
		return s, false
	}
	p.Time = t
	if rest := strings.TrimSpace(inner[n:]); rest != "" {
		words := strings.Fields(rest)
		if len(words) == 3 && len(words[0]) == 1 && isGlogLevel(words[0][0]) && isDigit(words[1][0]) {
			p.Level = glogLevel(words[0][0])
			return skipOneSpace(s[end+1:]), true
		}
		var ranks []string
		for _, w := range words {
			if isRankWord(w) {
				ranks = append(ranks, w)
			}
		}
		if len(ranks) > 0 {
			p.Rank = strings.Join(ranks, " ")
			p.Source = p.Rank
		}
	}
	return skipOneSpace(s[end+1:]), true
}

func (p *Prefix) refEatRankTag(s string) (string, bool) {
	if end := indexByteWithin(s, ']', 40); end > 3 && end < 40 {
		words := strings.Fields(s[1:end])
		all := len(words) > 0
		for _, w := range words {
			all = all && isRankWord(w)
		}
		if all {
			p.Rank = strings.Join(words, " ")
			p.Source = p.Rank
			return skipOneSpace(s[end+1:]), true
		}
	}
	if !strings.HasPrefix(s, "[rank") {
		return s, false
	}
	end := indexByteWithin(s, ']', 13)
	if end < 6 || end > 12 || !allDigits(s[5:end]) {
		return s, false
	}
	p.Rank = s[1:end]
	p.Source = p.Rank
	return skipOneSpace(strings.TrimPrefix(s[end+1:], ":")), true
}

// randomBracket builds a bracketed prefix from pieces that exercise the
// field splitting: rank words, near-rank words, glog levels, repeated
// words, ASCII and Unicode white space.
func randomBracket(rng *rand.Rand) string {
	words := []string{"TP0", "DP7", "EP12", "PP1", "CP3", "SP0", "TP", "TPx", "xTP1", "TP1x", "tp0", "E", "W", "1234",
		"5678", "rank0", "DP7", "TP7", "TP0TP0", "é", "\xff"}
	seps := []string{" ", " ", " ", "  ", "\t", "\u00a0", "\u2003", "\r", "\v"}
	var b strings.Builder
	b.WriteByte('[')
	if rng.IntN(3) > 0 {
		b.WriteString([]string{"2026-01-12 05:01:25", "2026-01-02 03:04:05,678", "2026-13-02 03:04:05", "2026-01-12T05:01:25.5Z"}[rng.IntN(4)])
	}
	for range rng.IntN(6) {
		if rng.IntN(4) > 0 {
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		b.WriteString(words[rng.IntN(len(words))])
	}
	if rng.IntN(3) == 0 {
		b.WriteString(seps[rng.IntN(len(seps))])
	}
	b.WriteString([]string{"] msg", "]: msg", "]", "] ", "]x"}[rng.IntN(5)])
	return b.String()
}

func TestPrefixBracketsAgreeWithReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 6))
	inputs := []string{"[2026-01-12 05:01:25 DP7 TP7 EP7] msg", "[2026-01-12 05:01:25 TP0] x", "[DP2 TP2] y", "[TP0] z",
		"[rank3]: w", "[2026-01-02 03:04:05,678 E 1234 5678] f.cc:1: m", "[2026-01-12 05:01:25 xTP1 TP1] m", "[TP1 xTP1] m"}
	for range 200000 {
		inputs = append(inputs, randomBracket(rng))
	}
	for _, s := range inputs {
		var got, want Prefix
		r1, ok1 := got.eatBracketTime(s)
		r2, ok2 := want.refEatBracketTime(s)
		if r1 != r2 || ok1 != ok2 || got != want {
			t.Fatalf("eatBracketTime(%q) = %q %v %+v, reference %q %v %+v", s, r1, ok1, got, r2, ok2, want)
		}
		got, want = Prefix{}, Prefix{}
		r1, ok1 = got.eatRankTag(s)
		r2, ok2 = want.refEatRankTag(s)
		if r1 != r2 || ok1 != ok2 || got != want {
			t.Fatalf("eatRankTag(%q) = %q %v %+v, reference %q %v %+v", s, r1, ok1, got, r2, ok2, want)
		}
	}
}

// refNormLevel is normLevel as it was before it compared packed words.
func refNormLevel(w string) string {
	w = strings.TrimSpace(w)
	if len(w) < 3 || len(w) > 8 {
		return ""
	}
	var buf [8]byte
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(w)]) {
	case "INFO":
		return "INFO"
	case "WARNING", "WARN":
		return "WARNING"
	case "ERROR", "ERR":
		return "ERROR"
	case "CRITICAL":
		return "CRITICAL"
	case "FATAL":
		return "FATAL"
	case "DEBUG", "TRACE", "VERBOSE":
		return "DEBUG"
	}
	return ""
}

func TestNormLevelAgreesWithReference(t *testing.T) {
	names := []string{"INFO", "WARNING", "WARN", "ERROR", "ERR", "CRITICAL", "FATAL", "DEBUG", "TRACE", "VERBOSE"}
	rng := rand.New(rand.NewPCG(13, 11))
	var inputs []string
	for _, n := range names {
		for range 200 { // each byte in either case, or swapped for one that differs in bit 5 or is near it
			b := []byte(n)
			for i := range b {
				switch rng.IntN(6) {
				case 0:
					b[i] |= 0x20
				case 1:
					b[i] ^= 0x20 ^ 0x40 // a non-letter that bit 5 alone would not fold
				case 2:
					b[i] = "\x00 @[`{\xc9\xe9"[rng.IntN(8)]
				}
			}
			w := string(b)
			switch rng.IntN(5) {
			case 0:
				w = " " + w + "\t"
			case 1:
				w += string("\x00 x"[rng.IntN(3)])
			case 2:
				w = w[:rng.IntN(len(w)+1)]
			}
			inputs = append(inputs, w)
		}
	}
	for range 100000 { // random short words over the bytes that matter
		b := make([]byte, rng.IntN(11))
		for i := range b {
			const alphabet = "EeRrOoIiNnFfWwAaGgCcTtLlDdBbUuVvSs \x00\x05\x25\x65\xa0\xc2"
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, string(b))
	}
	for _, w := range inputs {
		if got, want := normLevel(w), refNormLevel(w); got != want {
			t.Fatalf("normLevel(%q) = %q, reference %q", w, got, want)
		}
	}
}
