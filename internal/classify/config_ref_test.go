package classify

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// parseConfigRef is ParseConfig as it was before the scanner skipped runs of
// plain bytes and learned to write into an existing map; the tests below
// hold the new code to it.
//
// Why it stays: the fast scanner skips bytes it thinks plain, and a skip
// too far loses a key silently; the slow scanner reads every byte, and the
// fuzz and corpus tests hold the two to the same maps.
func parseConfigRef(text string) map[string]string {
	s := strings.TrimLeft(text, " ")
	// Skip a leading constructor name: "ServerArgs(" or "{".
	if i := strings.IndexAny(s, "({"); i >= 0 && i < 64 && (i == 0 || isIdentLike(strings.TrimSpace(s[:i]))) {
		s = s[i+1:]
	}
	n := strings.Count(s[:min(len(s), 64<<10)], ", ") + 1
	out := make(map[string]string, min(n, maxConfigKeys))
	depth := 0
	var quote byte
	start, sep := 0, -1 // current item and its first top-level '=' or ':'
	flush := func(end int) {
		if sep > start && len(out) < maxConfigKeys {
			k := unquote(strings.TrimSpace(s[start:sep]))
			v := unquote(strings.TrimSpace(s[sep+1 : end]))
			if isIdentLike(k) {
				out[clean(k, maxConfigKey)] = clean(v, maxConfigValue)
			}
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			switch c {
			case '\\':
				i++
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote = c
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				flush(i)
				return nonEmpty(out)
			}
			depth--
		case '=', ':':
			if depth == 0 && sep < start {
				sep = i
			}
		case ',':
			if depth == 0 {
				flush(i)
				if len(out) >= maxConfigKeys {
					return nonEmpty(out)
				}
				start, sep = i+1, -1
			}
		}
	}
	flush(len(s))
	return nonEmpty(out)
}

// randomDump builds a configuration dump of n items from pieces that
// exercise quotes, escapes, nesting, duplicate keys and non-ASCII bytes.
func randomDump(rng *rand.Rand, n int) string {
	keys := []string{"model", "tp_size", "dtype", "a.b", "x-y", "'quoted'", "\"dq\"", "bad key", "k" + strings.Repeat("z", 130),
		"long_identifier_" + strings.Repeat("q", 112), "long_identifier_" + strings.Repeat("q", 113), "'mixed\"", "''", "k\xe9y", "kéy",
		"\u00a0nbsp\u00a0", "\ttab\t", "\u2003em", "nul\x00", "'a=b'", "(x=1)", "k[0]", "\xffk", " 'sp' ", "a:b"}
	vals := []string{"1", "'a\\\xe9b'", "x\\\xff", "'a, b'", "\"x\\\"y, z\"", "[1, 2, (3, 4)]", "{'k': 'v'}", "None", "é\xff", strings.Repeat("v", 300), "a=b", "",
		strings.Repeat("w", 255) + "é", strings.Repeat("w", 256) + "\x80", "'" + strings.Repeat("é", 200) + "'", "\u00a0v\u00a0", "\t'q'\n", "'unclosed", "'esc\\", "(]", "\u3000'x'\u3000", "'x'y'",
		"'\x80'", "'a\x80b'", "\x80", "\"\xc3\"", "'\\\x80'", "[\x80]"}
	var b strings.Builder
	b.WriteString([]string{"ServerArgs(", "{", "Args { ", "", "  Name("}[rng.IntN(5)])
	for i := range n {
		if i > 0 {
			b.WriteString([]string{", ", ",", " , "}[rng.IntN(3)])
		}
		k := keys[rng.IntN(len(keys))]
		if rng.IntN(3) == 0 {
			k = fmt.Sprintf("key_%d", rng.IntN(n+1))
		}
		b.WriteString(k)
		b.WriteString([]string{"=", ": ", " = "}[rng.IntN(3)])
		b.WriteString(vals[rng.IntN(len(vals))])
	}
	b.WriteString([]string{")", "}", " }", "", ") trailing, x=1"}[rng.IntN(5)])
	return b.String()
}

func TestParseConfigMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 7))
	for i := range 2000 {
		n := rng.IntN(12)
		if i%100 == 0 {
			n = 1990 + rng.IntN(3000) // around and past maxConfigKeys
		}
		d := randomDump(rng, n)
		if got, want := ParseConfig(d), parseConfigRef(d); !maps.Equal(got, want) || (got == nil) != (want == nil) {
			t.Fatalf("dump %q:\n got %v\nwant %v", d, got, want)
		}
		// Merged into a map that already holds keys of earlier dumps.
		prevN := rng.IntN(30)
		if i%100 == 50 {
			prevN = 2500 // a map already at the limit
		}
		texts := []string{randomDump(rng, prevN), d}
		if got, want := buildConfig(texts), refFeedConfig(texts); !maps.Equal(got, want) {
			t.Fatalf("merging dump %q: got %d keys, want %d", d[:min(len(d), 200)], len(got), len(want))
		}
	}
}

// TestBuildConfigAtTheLimit holds buildConfig to the reference on dumps of
// about maxConfigKeys items, where the scanner's buffer gives up and the
// dump is parsed again as a map of its own: distinct keys or not, a
// trailing comma or items without keys past the limit, first dump or not.
func TestBuildConfigAtTheLimit(t *testing.T) {
	t.Parallel()
	dump := func(n, distinct int, tail string) string {
		var b strings.Builder
		b.WriteString("Args(")
		for i := range n {
			fmt.Fprintf(&b, "k%d=%d, ", i%distinct, i)
		}
		b.WriteString(tail)
		return b.String()
	}
	var dumps []string
	for _, n := range []int{maxConfigKeys - 1, maxConfigKeys, maxConfigKeys + 1, 2*maxConfigKeys + 3} {
		for _, distinct := range []int{n, n - 1, n / 2, 7} {
			for _, tail := range []string{")", "", "x", "x, y, 'z'", "last=1)", "last=1, next=2)"} {
				dumps = append(dumps, dump(n, max(distinct, 1), tail))
			}
		}
	}
	for _, d := range dumps {
		if got, want := ParseConfig(d), parseConfigRef(d); !sameConfig(got, want) {
			t.Fatalf("dump of %d bytes: got %d keys, want %d", len(d), len(got), len(want))
		}
		for _, texts := range [][]string{{"a=1, b=2", d}, {d, "a=1, k3=x"}, {d, d[:len(d)/2]}, {"x", d, "x"}} {
			if got, want := buildConfig(texts), refFeedConfig(texts); !sameConfig(got, want) {
				t.Fatalf("dumps of %d and %d bytes: got %d keys, want %d", len(texts[0]), len(texts[1]), len(got), len(want))
			}
		}
	}
}

// refFeedConfig is how a Result's Config was built before buildConfig: each
// dump parsed as the line came, into the map of the first dump that had keys.
func refFeedConfig(texts []string) map[string]string {
	var cfg map[string]string
	for _, t := range texts {
		if cfg == nil {
			cfg = parseConfigRef(t)
			continue
		}
		maps.Copy(cfg, parseConfigRef(t))
	}
	return cfg
}

func TestBuildConfigMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 8))
	for i := range 1500 {
		texts := make([]string, 1+rng.IntN(5))
		for j := range texts {
			n := rng.IntN(15)
			switch {
			case rng.IntN(5) == 0:
				n = 0 // a dump without keys, also before the first with keys
			case i%60 == 0:
				n = 1990 + rng.IntN(1500) // around and past maxConfigKeys
			}
			texts[j] = randomDump(rng, n)
		}
		got, want := buildConfig(texts), refFeedConfig(texts)
		if !maps.Equal(got, want) || (got == nil) != (want == nil) {
			t.Fatalf("dumps %q:\n got %v\nwant %v", texts, got, want)
		}
	}
}

// The implementation before the item scanner (configNext) and the item
// buffer: the second reference, and the "before" of BenchmarkBuildConfig.

// ParseConfigPrev parses a configuration dump that starts at text: the inside of
// "Name(k=v, ...)", "{'k': v, ...}", "Args { k: v, ... }" or a bare
// "k=v, k2=v2" list. Quotes around keys and values are removed; nested
// values are kept as text. It stops at the bracket that closes the dump and
// returns nil when nothing was found.
func ParseConfigPrev(text string) map[string]string {
	s := configBodyPrev(text)
	out := make(map[string]string, configSizeHintPrev(s))
	parseConfigItemsPrev(s, out, false)
	return nonEmpty(out)
}

// mergeConfigPrev is m = ParseConfigPrev(text), then every key of m set in dst,
// without the intermediate map: the items are written into dst directly.
// ParseConfigPrev stops after maxConfigKeys distinct keys; writes into dst
// cannot tell this dump's keys from earlier ones, so they are counted
// instead (never fewer than the distinct keys), and a dump that reaches the
// limit that way is merged again through ParseConfigPrev, whose map holds every
// key written so far with its final value.
func mergeConfigPrev(dst map[string]string, text string) {
	if !parseConfigItemsPrev(configBodyPrev(text), dst, true) {
		for k, v := range ParseConfigPrev(text) {
			dst[k] = v
		}
	}
}

// configBodyPrev skips the blanks and a leading constructor name of a dump:
// "ServerArgs(" or "{".
func configBodyPrev(text string) string {
	s := strings.TrimLeft(text, " ")
	if i := strings.IndexAny(s, "({"); i >= 0 && i < 64 && (i == 0 || isIdentLike(strings.TrimSpace(s[:i]))) {
		s = s[i+1:]
	}
	return s
}

// configSizeHintPrev is how many items the dump s may have, to size its map: a
// comma may separate two (counting single bytes is the fast count; commas
// inside values only make the map larger than it needs to be).
func configSizeHintPrev(s string) int {
	return min(strings.Count(s[:min(len(s), 64<<10)], ",")+1, maxConfigKeys)
}

// buildConfigPrev is the Config of a Result whose lines held the dumps texts,
// in order: the first dump that has keys is ParseConfigPrev's, and each later
// one is merged into it (mergeConfigPrev). The map is made once, sized for the
// largest dump: the dumps of one launch mostly repeat keys (a server's
// arguments printed by its processes, or again at a restart).
func buildConfigPrev(texts []string) map[string]string {
	hint := 0
	for _, t := range texts {
		hint = max(hint, configSizeHintPrev(configBodyPrev(t)))
	}
	out := make(map[string]string, hint)
	for _, t := range texts {
		if len(out) == 0 {
			parseConfigItemsPrev(configBodyPrev(t), out, false) // as ParseConfigPrev into a fresh map
		} else {
			mergeConfigPrev(out, t)
		}
	}
	return nonEmpty(out)
}

// configBytePrev marks the bytes the item scanner acts on (quotes, escapes,
// brackets, separators, and the bytes of non-ASCII text, which it notes);
// runs of other bytes are skipped without a switch.
var configBytePrev = func() (t [256]bool) {
	for _, c := range []byte{'\\', '\'', '"', '(', '[', '{', ')', ']', '}', '=', ':', ','} {
		t[c] = true
	}
	for c := 0x80; c < 256; c++ {
		t[c] = true
	}
	return t
}()

// parseConfigItemsPrev writes the top-level items of the dump s into out. It
// stops at the bracket that closes the dump or after maxConfigKeys keys:
// len(out) of them, or, when countWrites, that many writes; it returns
// false when it stopped for that count of writes.
func parseConfigItemsPrev(s string, out map[string]string, countWrites bool) bool {
	writes := 0
	depth := 0
	var quote byte
	start, sep := 0, -1 // current item and its first top-level '=' or ':'
	ascii := true       // the current item has no byte above 0x7f
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !configBytePrev[c] {
			continue
		}
		if c >= 0x80 {
			ascii = false
			continue
		}
		if quote != 0 {
			switch c {
			case '\\':
				i++
				if i < len(s) && s[i] >= 0x80 {
					ascii = false
				}
			case quote:
				quote = 0
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote = c
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				if sep > start && !configFullPrev(out, writes, countWrites) {
					writes += configItemPrev(out, s[start:sep], s[sep+1:i], ascii)
				}
				return !countWrites || !configFullPrev(out, writes, countWrites)
			}
			depth--
		case '=', ':':
			if depth == 0 && sep < start {
				sep = i
			}
		case ',':
			if depth == 0 {
				if sep > start && !configFullPrev(out, writes, countWrites) {
					writes += configItemPrev(out, s[start:sep], s[sep+1:i], ascii)
				}
				if configFullPrev(out, writes, countWrites) {
					return !countWrites
				}
				start, sep, ascii = i+1, -1, true
			}
		}
	}
	if sep > start && !configFullPrev(out, writes, countWrites) {
		writes += configItemPrev(out, s[start:sep], s[sep+1:], ascii)
	}
	return !countWrites || !configFullPrev(out, writes, countWrites)
}

// configFullPrev reports whether parseConfigItemsPrev has its maxConfigKeys keys.
func configFullPrev(out map[string]string, writes int, countWrites bool) bool {
	if countWrites {
		return writes >= maxConfigKeys
	}
	return len(out) >= maxConfigKeys
}

// configItemPrev writes the item key=value (a key and a value with their
// blanks and quotes) into out when the key is identifier-like, and returns
// how many writes it made. ascii says the item has only ASCII bytes.
func configItemPrev(out map[string]string, key, value string, ascii bool) int {
	k := unquote(strings.TrimSpace(key))
	if !isIdentLike(k) {
		return 0
	}
	v := unquote(strings.TrimSpace(value))
	// An identifier-like key is ASCII and at most maxConfigKey bytes:
	// clean(k, maxConfigKey) would return it as it is. An ASCII value is
	// valid UTF-8 and cut anywhere on a character boundary: clean(v,
	// maxConfigValue) would only truncate it.
	if ascii {
		out[k] = v[:min(len(v), maxConfigValue)]
	} else {
		out[k] = clean(v, maxConfigValue)
	}
	return 1
}

// TestNonIdentBytes holds the eight-byte test of configScan's keys to
// identByte: every byte value at every place of a word, and random words.
func TestNonIdentBytes(t *testing.T) {
	t.Parallel()
	check := func(w [8]byte) {
		var want uint64
		for i, c := range w {
			if !identByte[c] {
				want |= 0x80 << (8 * i)
			}
		}
		if got := nonIdentBytes(binary.LittleEndian.Uint64(w[:])); got != want {
			t.Fatalf("nonIdentBytes(%q) = %#x, want %#x", w, got, want)
		}
	}
	for c := range 256 {
		for at := range 8 {
			for _, fill := range []byte{'a', 'Z', '0', '_', '.', '-', '/', ' ', 0x80} {
				var w [8]byte
				for i := range w {
					w[i] = fill
				}
				w[at] = byte(c)
				check(w)
			}
		}
	}
	rng := rand.New(rand.NewPCG(13, 9))
	alphabet := []byte("aZ09_.-/ =:'\"\x80\xff\x00\x7f`@[{")
	for range 200000 {
		var w [8]byte
		for i := range w {
			if rng.IntN(2) == 0 {
				w[i] = alphabet[rng.IntN(len(alphabet))]
			} else {
				w[i] = byte(rng.IntN(256))
			}
		}
		check(w)
	}
}

// FuzzBuildConfig holds buildConfig to both references on made-up dumps,
// alone and merged over another.
func FuzzBuildConfig(f *testing.F) {
	rng := rand.New(rand.NewPCG(13, 10))
	for range 30 {
		f.Add(randomDump(rng, rng.IntN(8)), randomDump(rng, rng.IntN(4)))
	}
	f.Add("Args(a=1, 'b': [1, (2, ')')], c=\"x\\\"y\", d\xff=2)", "{'a': 3}")
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, texts := range [][]string{{a}, {b, a}, {a, b, a}} {
			got := buildConfig(texts)
			for _, want := range []map[string]string{refFeedConfig(texts), buildConfigPrev(texts)} {
				if !sameConfig(got, want) {
					t.Fatalf("dumps %q:\n got %v\nwant %v", texts, got, want)
				}
			}
		}
	})
}
