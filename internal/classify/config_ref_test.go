package classify

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// parseConfigRef is ParseConfig as it was before the scanner skipped runs of
// plain bytes and learned to write into an existing map; the tests below
// hold the new code to it.
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
	keys := []string{"model", "tp_size", "dtype", "a.b", "x-y", "'quoted'", "\"dq\"", "bad key", "k" + strings.Repeat("z", 130)}
	vals := []string{"1", "'a\\\xe9b'", "x\\\xff", "'a, b'", "\"x\\\"y, z\"", "[1, 2, (3, 4)]", "{'k': 'v'}", "None", "é\xff", strings.Repeat("v", 300), "a=b", ""}
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
		prev := parseConfigRef(randomDump(rng, prevN))
		if prev == nil {
			prev = map[string]string{}
		}
		want := maps.Clone(prev)
		maps.Copy(want, parseConfigRef(d))
		got := maps.Clone(prev)
		mergeConfig(got, d)
		if !maps.Equal(got, want) {
			t.Fatalf("merging dump %q: got %d keys, want %d", d[:min(len(d), 200)], len(got), len(want))
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
