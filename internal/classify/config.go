package classify

import "strings"

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
// returns nil when nothing was found.
func ParseConfig(text string) map[string]string {
	s := configBody(text)
	out := make(map[string]string, configSizeHint(s))
	parseConfigItems(s, out, false)
	return nonEmpty(out)
}

// mergeConfig is m = ParseConfig(text), then every key of m set in dst,
// without the intermediate map: the items are written into dst directly.
// ParseConfig stops after maxConfigKeys distinct keys; writes into dst
// cannot tell this dump's keys from earlier ones, so they are counted
// instead (never fewer than the distinct keys), and a dump that reaches the
// limit that way is merged again through ParseConfig, whose map holds every
// key written so far with its final value.
func mergeConfig(dst map[string]string, text string) {
	if !parseConfigItems(configBody(text), dst, true) {
		for k, v := range ParseConfig(text) {
			dst[k] = v
		}
	}
}

// configBody skips the blanks and a leading constructor name of a dump:
// "ServerArgs(" or "{".
func configBody(text string) string {
	s := strings.TrimLeft(text, " ")
	if i := strings.IndexAny(s, "({"); i >= 0 && i < 64 && (i == 0 || isIdentLike(strings.TrimSpace(s[:i]))) {
		s = s[i+1:]
	}
	return s
}

// configSizeHint is how many items the dump s may have, to size its map: a
// comma may separate two (counting single bytes is the fast count; commas
// inside values only make the map larger than it needs to be).
func configSizeHint(s string) int {
	return min(strings.Count(s[:min(len(s), 64<<10)], ",")+1, maxConfigKeys)
}

// buildConfig is the Config of a Result whose lines held the dumps texts,
// in order: the first dump that has keys is ParseConfig's, and each later
// one is merged into it (mergeConfig). The map is made once, sized for the
// largest dump: the dumps of one launch mostly repeat keys (a server's
// arguments printed by its processes, or again at a restart).
func buildConfig(texts []string) map[string]string {
	hint := 0
	for _, t := range texts {
		hint = max(hint, configSizeHint(configBody(t)))
	}
	out := make(map[string]string, hint)
	for _, t := range texts {
		if len(out) == 0 {
			parseConfigItems(configBody(t), out, false) // as ParseConfig into a fresh map
		} else {
			mergeConfig(out, t)
		}
	}
	return nonEmpty(out)
}

// configByte marks the bytes the item scanner acts on (quotes, escapes,
// brackets, separators, and the bytes of non-ASCII text, which it notes);
// runs of other bytes are skipped without a switch.
var configByte = func() (t [256]bool) {
	for _, c := range []byte{'\\', '\'', '"', '(', '[', '{', ')', ']', '}', '=', ':', ','} {
		t[c] = true
	}
	for c := 0x80; c < 256; c++ {
		t[c] = true
	}
	return t
}()

// parseConfigItems writes the top-level items of the dump s into out. It
// stops at the bracket that closes the dump or after maxConfigKeys keys:
// len(out) of them, or, when countWrites, that many writes; it returns
// false when it stopped for that count of writes.
func parseConfigItems(s string, out map[string]string, countWrites bool) bool {
	writes := 0
	depth := 0
	var quote byte
	start, sep := 0, -1 // current item and its first top-level '=' or ':'
	ascii := true       // the current item has no byte above 0x7f
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !configByte[c] {
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
				if sep > start && !configFull(out, writes, countWrites) {
					writes += configItem(out, s[start:sep], s[sep+1:i], ascii)
				}
				return !countWrites || !configFull(out, writes, countWrites)
			}
			depth--
		case '=', ':':
			if depth == 0 && sep < start {
				sep = i
			}
		case ',':
			if depth == 0 {
				if sep > start && !configFull(out, writes, countWrites) {
					writes += configItem(out, s[start:sep], s[sep+1:i], ascii)
				}
				if configFull(out, writes, countWrites) {
					return !countWrites
				}
				start, sep, ascii = i+1, -1, true
			}
		}
	}
	if sep > start && !configFull(out, writes, countWrites) {
		writes += configItem(out, s[start:sep], s[sep+1:], ascii)
	}
	return !countWrites || !configFull(out, writes, countWrites)
}

// configFull reports whether parseConfigItems has its maxConfigKeys keys.
func configFull(out map[string]string, writes int, countWrites bool) bool {
	if countWrites {
		return writes >= maxConfigKeys
	}
	return len(out) >= maxConfigKeys
}

// configItem writes the item key=value (a key and a value with their
// blanks and quotes) into out when the key is identifier-like, and returns
// how many writes it made. ascii says the item has only ASCII bytes.
func configItem(out map[string]string, key, value string, ascii bool) int {
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
