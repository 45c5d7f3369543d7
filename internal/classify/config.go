package classify

import (
	"encoding/binary"
	"maps"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Limits of config parsing: a dump may be megabytes long.
const (
	maxConfigKeys  = 2000
	maxConfigValue = 256
	maxConfigKey   = 128
)

// ParseConfig parses a configuration dump that starts at text: the inside of
// "Name(k=v, ...)", "{'k': v, ...}", "Args { k: v, ... }" or a bare
// "k=v, k2=v2" list. Quotes around keys and values are removed; nested
// values are kept as text. It stops at the bracket that closes the dump and
// after maxConfigKeys distinct keys, and returns nil when nothing was found.
func ParseConfig(text string) map[string]string {
	return buildConfig([]string{text})
}

// buildConfig is the Config of a Result whose lines held the dumps texts,
// in order (configDumps).
func buildConfig(texts []string) map[string]string {
	var c configDumps
	for _, t := range texts {
		c.add(t)
	}
	cfg, _ := c.build(nil)
	return cfg
}

// configDumps makes the Config of a Result from the configuration dumps of
// its lines: every key of each dump's ParseConfig, with the value of the
// last dump that has it.
//
// add scans each dump as its line comes into a pooled buffer of items;
// build makes the map once, at the end of the Feed call, sized for the
// largest dump by its count of items, not by a guess: a map sized larger
// than it needs costs more to make than its items to write. (The dumps of
// one launch mostly hold different keys, so a second dump often grows the
// map; sized for the sum of their items instead, Feed/Corpus measured no
// faster, the larger tables costing as much to make as the rehash saved,
// and the map takes more memory.) The buffer holds offsets, not strings,
// so that filling it needs no write barriers and the GC need not scan it.
type configDumps struct {
	texts []string
	bp    *[]configSpan // the pooled buffer spans came from
	spans []configSpan
	size  int // items of the largest dump
}

// add scans the dump that starts at text.
func (c *configDumps) add(text string) {
	if c.bp == nil {
		c.bp = configSpansPool.Get().(*[]configSpan)
		c.spans = (*c.bp)[:0]
	}
	c.texts = append(c.texts, text)
	s := configBody(text)
	h := len(c.spans)
	c.spans = append(c.spans, configSpan{k0: -1, v0: len(text) - len(s)})
	var more bool
	c.spans, _, more = configScan(s, 0, c.spans, maxConfigKeys)
	if more {
		// maxConfigKeys items, and more may follow: whether they count
		// depends on how many keys were distinct, so the dump is parsed
		// again as a map of its own (rare: a dump of thousands of
		// arguments).
		c.spans = c.spans[:h+1]
		c.spans[h].k1 = 1
		c.size = maxConfigKeys
		return
	}
	c.size = max(c.size, len(c.spans)-h-1)
}

// build is the Config of the dumps added, nil when they have no keys, in
// reuse (an earlier call's map, which it clears) unless that is nil or
// large; it returns the map to reuse next. It gives the buffer back: c is
// empty after it.
func (c *configDumps) build(reuse map[string]string) (cfg, next map[string]string) {
	if len(c.texts) == 0 {
		return nil, reuse
	}
	out := reuse
	if out == nil || len(out) > maxConfigKeys {
		// Clearing a map costs what its largest size was: one that held a
		// dump of thousands of keys is not kept.
		out = make(map[string]string, c.size)
	} else {
		clear(out)
	}
	d := -1
	var s string
	for i := range c.spans {
		sp := &c.spans[i]
		if sp.k0 < 0 {
			d++
			s = c.texts[d][sp.v0:]
			if sp.k1 != 0 {
				maps.Copy(out, parseLongConfig(s))
			}
			continue
		}
		v := s[sp.v0:sp.v1]
		if sp.clean {
			v = clean(v, maxConfigValue)
		}
		out[s[sp.k0:sp.k1]] = v
	}
	if cap(c.spans) <= 4*maxConfigKeys {
		*c.bp = c.spans
		configSpansPool.Put(c.bp)
	}
	*c = configDumps{}
	return nonEmpty(out), out
}

// configSpan is an item of a dump: its key s[k0:k1] and value s[v0:v1]
// as stored, or, when clean, as clean(s[v0:v1], maxConfigValue) stores it.
// A span with k0 < 0 heads the items of a dump whose body starts at v0 in
// its text; k1 > 0 then says the dump is to be parsed by parseLongConfig.
type configSpan struct {
	k0, k1, v0, v1 int
	clean          bool
}

// configSpansPool holds the span buffers of configDumps.
var configSpansPool = sync.Pool{New: func() any { return new([]configSpan) }}

// parseLongConfig is ParseConfig of the dump body s item by item, for a
// dump of at least maxConfigKeys items: it stops when its map has
// maxConfigKeys keys.
func parseLongConfig(s string) map[string]string {
	out := make(map[string]string, maxConfigKeys)
	var buf [1]configSpan
	for i, more := 0, true; more && len(out) < maxConfigKeys; {
		var spans []configSpan
		spans, i, more = configScan(s, i, buf[:0], 1)
		for _, sp := range spans {
			v := s[sp.v0:sp.v1]
			if sp.clean {
				v = clean(v, maxConfigValue)
			}
			out[s[sp.k0:sp.k1]] = v
		}
	}
	return out
}

// configBody skips the blanks and a leading constructor name of a dump:
// "ServerArgs(" or "{". The name is shorter than 64 bytes: the search for
// its bracket stops there, not at the first bracket of a long dump.
func configBody(text string) string {
	s := strings.TrimLeft(text, " ")
	head := s[:min(len(s), 64)]
	i := strings.IndexByte(head, '(')
	if j := strings.IndexByte(head, '{'); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i >= 0 && (i == 0 || isIdentLike(strings.TrimSpace(s[:i]))) {
		s = s[i+1:]
	}
	return s
}

// configValueByte marks the bytes the scanner of a value acts on outside
// quotes: quotes, brackets, the comma and the bytes of non-ASCII text,
// which it notes; runs of other bytes are skipped without a switch.
var configValueByte = func() (t [256]bool) {
	for _, c := range []byte{'\'', '"', '(', '[', '{', ')', ']', '}', ','} {
		t[c] = true
	}
	for c := 0x80; c < 256; c++ {
		t[c] = true
	}
	return t
}()

// configKeyByte marks the bytes the scanner of a key that is not a plain
// (or plainly quoted) identifier acts on: quotes, brackets and separators.
var configKeyByte = func() (t [256]bool) {
	for _, c := range []byte{'\'', '"', '(', '[', '{', ')', ']', '}', '=', ':', ','} {
		t[c] = true
	}
	return t
}()

// configScan appends to spans the items of the dump body s, from i on,
// that have an identifier-like key, up to n of them, and returns where it
// stopped and whether more items may follow. An item runs to the next
// comma outside quotes and brackets, or to the bracket that closes the
// dump; its first '=' or ':' outside them separates its key and value.
// Keys and values are stored trimmed and unquoted, and a value with only
// ASCII bytes cut to maxConfigValue bytes (clean cuts the others).
func configScan(s string, i int, spans []configSpan, n int) ([]configSpan, int, bool) {
	for ; n > 0; i++ {
		// The common key: blanks, an identifier, maybe quoted, blanks and
		// the separator; no byte of it is one the general scanner acts
		// on, and TrimSpace and unquote leave just the identifier.
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		var q byte
		if j < len(s) && (s[j] == '\'' || s[j] == '"') {
			q = s[j]
			j++
		}
		k0 := j
		for {
			if j+8 > len(s) {
				for j < len(s) && identByte[s[j]] {
					j++
				}
				break
			}
			if m := nonIdentBytes(binary.LittleEndian.Uint64([]byte(s[j : j+8]))); m != 0 {
				j += bits.TrailingZeros64(m) / 8
				break
			}
			j += 8
		}
		k1 := j
		if q != 0 && j < len(s) && s[j] == q {
			j++
			q = 0
		}
		for j < len(s) && s[j] == ' ' {
			j++
		}
		var ok bool
		if k1 > k0 && q == 0 && j < len(s) && (s[j] == '=' || s[j] == ':') {
			ok = k1-k0 <= maxConfigKey
			i = j + 1
		} else {
			sep, end, more := configSep(s, i)
			if sep < 0 {
				if !more {
					return spans, end, false
				}
				i = end - 1 // the loop steps past the comma
				continue
			}
			k0, k1 = configTrimUnquote(s, i, sep)
			ok = isIdentLike(s[k0:k1])
			i = sep + 1
		}

		// The value, up to the top-level comma or closing bracket.
		v0 := i
		ascii := true
		depth := 0
		more := false
	value:
		for ; i < len(s); i++ {
			c := s[i]
			if !configValueByte[c] {
				continue
			}
			switch c {
			case '\'', '"':
				for i++; i < len(s); i++ {
					d := s[i]
					if d == c {
						break
					}
					if d == '\\' {
						i++
						if i < len(s) && s[i] >= 0x80 {
							ascii = false
						}
					} else if d >= 0x80 {
						ascii = false
					}
				}
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				if depth == 0 {
					break value
				}
				depth--
			case ',':
				if depth == 0 {
					more = true
					break value
				}
			default:
				ascii = false
			}
		}
		end := min(i, len(s))
		if ok {
			// Most values have no blanks but the one space after "key:";
			// others are trimmed by the call.
			v1 := end
			if v0 < v1 && s[v0] == ' ' {
				v0++
			}
			if v0 < v1 && !configEdgeByte[s[v0]] && !configEdgeByte[s[v1-1]] {
				if v1-v0 >= 2 && (s[v0] == '\'' || s[v0] == '"') && s[v1-1] == s[v0] {
					v0, v1 = v0+1, v1-1
				}
			} else {
				v0, v1 = configTrimUnquote(s, v0, v1)
			}
			// An ASCII value is valid UTF-8 and cut anywhere on a
			// character boundary: clean(value, maxConfigValue) would
			// only truncate it.
			if ascii {
				v1 = min(v1, v0+maxConfigValue)
			}
			// Fields written in place: an appended literal is built on
			// the stack and copied in wider loads than its stores were,
			// which stalls store forwarding.
			spans = slices.Grow(spans, 1)[:len(spans)+1]
			sp := &spans[len(spans)-1]
			sp.k0, sp.k1, sp.v0, sp.v1, sp.clean = k0, k1, v0, v1, !ascii
			n--
		}
		if !more {
			return spans, len(s), false
		}
	}
	return spans, i, true
}

// configTrimUnquote is the bounds of unquote(strings.TrimSpace(s[i:j])) in
// s, with the blanks around most keys and values (none, or spaces) trimmed
// without the call.
func configTrimUnquote(s string, i, j int) (int, int) {
	for i < j && s[i] == ' ' {
		i++
	}
	for j > i && s[j-1] == ' ' {
		j--
	}
	if i < j && (configSpaceEdge[s[i]] || configSpaceEdge[s[j-1]]) {
		// TrimSpace trims what unicode.IsSpace says is white space (its
		// ASCII fast path agrees), from both ends.
		t := strings.TrimLeftFunc(s[i:j], unicode.IsSpace)
		i = j - len(t)
		j = i + len(strings.TrimRightFunc(t, unicode.IsSpace))
	}
	if j-i >= 2 && (s[i] == '\'' || s[i] == '"') && s[j-1] == s[i] {
		i, j = i+1, j-1
	}
	return i, j
}

// configSep finds the separator of the item of s that starts at i (the
// first '=' or ':' outside quotes and brackets), or, for an item without
// one, where the next item starts (end) and whether one does (more).
func configSep(s string, i int) (sep, end int, more bool) {
	depth := 0
	for ; i < len(s); i++ {
		c := s[i]
		if !configKeyByte[c] {
			continue
		}
		switch c {
		case '\'', '"':
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return -1, len(s), false
			}
			depth--
		case '=', ':':
			if depth == 0 {
				return i, 0, false
			}
		case ',':
			if depth == 0 {
				return -1, i + 1, true
			}
		}
	}
	return -1, len(s), false
}

// configEdgeByte is configSpaceEdge with ' ': the edge bytes of a value
// that configScan leaves to configTrimUnquote.
var configEdgeByte = func() (t [256]bool) {
	t = configSpaceEdge
	t[' '] = true
	return t
}()

// configSpaceEdge marks the bytes TrimSpace may trim besides ' ': other
// ASCII white space and the first and last bytes of non-ASCII white space.
var configSpaceEdge = func() (t [256]bool) {
	for _, c := range []byte{'\t', '\n', '\v', '\f', '\r'} {
		t[c] = true
	}
	for c := 0x80; c < 256; c++ {
		t[c] = true
	}
	return t
}()

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

func isIdentLike(s string) bool {
	if s == "" || len(s) > maxConfigKey {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !identByte[s[i]] {
			return false
		}
	}
	return true
}

// identByte is isWordByte(c) || c == '.' || c == '-' as a table: config
// keys are checked byte by byte, hundreds per dump.
var identByte = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isWordByte(byte(c)) || c == '.' || c == '-'
	}
	return t
}()

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}

// nonIdentBytes has the high bit set of each byte of x that is not an
// identifier byte (identByte: [0-9A-Za-z_.-]), and no other bit: keys are
// most of a dump's bytes, and configScan tests them eight at a time. Each
// range test adds to bytes below 0x80, whose sums stay below 0x100 and so
// carry into no other byte: b+(0x80-lo) has the high bit set for a byte
// b >= lo, and b+(0x7f-hi) for one > hi.
func nonIdentBytes(x uint64) uint64 {
	const ones, high, low7 = 0x0101010101010101, 0x8080808080808080, 0x7f7f7f7f7f7f7f7f
	y := x & low7          // the tests below see bytes >= 0x80 as others; x's high bits mark them
	lower := y | 0x20*ones // 'A'-'Z' to 'a'-'z'; no other byte lands there
	letter := (lower + (0x80-'a')*ones) &^ (lower + (0x7f-'z')*ones)
	digit := (y + (0x80-'0')*ones) &^ (y + (0x7f-'9')*ones)
	dotDash := (y + (0x80-'-')*ones) &^ (y + (0x7f-'.')*ones)
	u := y ^ '_'*ones          // zero bytes where y is '_', all below 0x80
	under := ^((u + low7) | u) // high bit set where u is zero
	return (x | ^(letter | digit | dotDash | under)) & high
}
