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
// values are kept as text. It returns nil when nothing was found.
func ParseConfig(text string) map[string]string {
	s := strings.TrimSpace(text)
	// Skip a leading constructor name.
	if i := strings.IndexAny(s, "({"); i >= 0 && i < 64 && isIdentLike(strings.TrimSpace(s[:i])) {
		s = s[i+1:]
	}
	out := map[string]string{}
	depth := 0
	var quote byte
	start := 0
	flush := func(item string) {
		if len(out) >= maxConfigKeys {
			return
		}
		item = strings.TrimSpace(item)
		k, v, ok := splitKV(item)
		if !ok {
			return
		}
		out[clean(k, maxConfigKey)] = clean(v, maxConfigValue)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if quote != 0 {
			if c == '\\' {
				i++
				continue
			}
			if c == quote {
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
				flush(s[start:i])
				return nonEmpty(out)
			}
			depth--
		case ',':
			if depth == 0 {
				flush(s[start:i])
				start = i + 1
				if len(out) >= maxConfigKeys {
					return nonEmpty(out)
				}
			}
		}
	}
	flush(s[start:])
	return nonEmpty(out)
}

func splitKV(item string) (string, string, bool) {
	depth := 0
	var quote byte
	for i := 0; i < len(item); i++ {
		c := item[i]
		if quote != 0 {
			if c == quote {
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
			depth--
		case '=', ':':
			if depth != 0 {
				continue
			}
			k := unquote(strings.TrimSpace(item[:i]))
			v := unquote(strings.TrimSpace(item[i+1:]))
			if k == "" || !isIdentLike(k) {
				return "", "", false
			}
			return k, v, true
		}
	}
	return "", "", false
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

func isIdentLike(s string) bool {
	if s == "" {
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
