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
		c := s[i]
		if !isWordByte(c) && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return m
}
