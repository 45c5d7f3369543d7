package classify

import "strings"

// The template functions of template.go and noise.go as they were at
// b8d418e, before the scanner copied runs of bytes at once: the reference
// the current ones must agree with byte for byte (template_b8_agree_test.go).
// Helpers owned elsewhere (isRankWord, allDigits, isDigit, truncate,
// hasColour, stripANSI, ParsePrefix, isCaretLine) are called, not copied.

var b8ByteClass = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		w := b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
		if w {
			t[c] |= clsWord | clsPath
		}
		if strings.IndexByte(".-~+@", b) >= 0 {
			t[c] |= clsPath
		}
		if b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' {
			t[c] |= clsHex
		}
		if b >= '0' && b <= '9' {
			t[c] |= clsDigit
		}
		if b == '\'' || b == '"' || b == '`' {
			t[c] |= clsQuote
		}
	}
	return t
}()

func b8AppendTemplate(dst []byte, msg string) []byte {
	msg = truncate(strings.TrimSpace(msg), maxHeadline)
	start := len(dst)
	prev := uint8(0) // b8ByteClass of msg[i-1]
	for i := 0; i < len(msg); {
		c := msg[i]
		cls := b8ByteClass[c]
		switch {
		case cls&clsQuote != 0:
			if j := strings.IndexByte(msg[i+1:], c); j >= 0 {
				dst = append(dst, "<str>"...)
				i += j + 2
				prev = b8ByteClass[msg[i-1]]
				continue
			}
		case c == '/':
			if prev&clsWord == 0 && i+1 < len(msg) && b8ByteClass[msg[i+1]]&clsPath != 0 {
				j := i + 1
				for j < len(msg) && (b8ByteClass[msg[j]]&clsPath != 0 || msg[j] == '/') {
					j++
				}
				dst = append(dst, "<path>"...)
				i = j
				prev = b8ByteClass[msg[j-1]]
				continue
			}
		case cls&clsWord != 0 && prev&clsWord == 0:
			if cls&clsDigit != 0 {
				j, tok := b8ScanNumber(msg, i)
				dst = append(dst, tok...)
				if tok == "<num>" {
					dst = b8MaskRankPhrase(dst, start)
				}
				i = j
				prev = b8ByteClass[msg[j-1]]
				continue
			}
			j, at := i, len(dst)
			all := uint8(clsHex | clsDigit) // hex: every byte hex, some digit
			var any uint8
			for j < len(msg) {
				c := msg[j]
				k := b8ByteClass[c]
				if k&clsWord == 0 {
					break
				}
				dst = append(dst, c)
				all &= k
				any |= k
				j++
			}
			w := msg[i:j]
			switch {
			case isRankWord(w) || b8IsRankToken(w):
				dst = append(dst[:at], "<rank>"...)
			case len(w) >= 8 && all&clsHex != 0 && any&clsDigit != 0:
				dst = append(dst[:at], "<hex>"...)
			}
			i = j
			prev = clsWord | clsPath
			continue
		}
		dst = append(dst, c)
		if c == '>' {
			dst = b8MaskRankPhrase(dst, start)
		}
		prev = cls
		i++
	}
	return dst
}

var b8RankPhrases = [...]string{"Rank ", "rank ", "GPU ", "gpu ", "pid=", "pid ", "device ", "cuda:", "PG ", "rank=", "local_rank="}

var b8RankPhraseLast, b8RankPhraseEnd = func() (last, end [256]bool) {
	for _, p := range b8RankPhrases {
		last[p[len(p)-1]], end[p[len(p)-2]] = true, true
	}
	return last, end
}()

func b8MaskRankPhrase(dst []byte, start int) []byte {
	n := len(dst) - 5
	if n < start || string(dst[n:]) != "<num>" {
		return dst
	}
	head := dst[start:n]
	if len(head) < 3 || !b8RankPhraseLast[head[len(head)-1]] || !b8RankPhraseEnd[head[len(head)-2]] {
		return dst // cheaply: no phrase ends so
	}
	for _, p := range b8RankPhrases {
		if len(head) >= len(p) && string(head[len(head)-len(p):]) == p {
			return append(dst[:n-len(p)], "<rank>"...)
		}
	}
	return dst
}

func b8ScanNumber(msg string, i int) (int, string) {
	if i+1 < len(msg) && msg[i] == '0' && (msg[i+1] == 'x' || msg[i+1] == 'X') {
		j := i + 2
		for j < len(msg) && b8ByteClass[msg[j]]&clsHex != 0 {
			j++
		}
		return j, "<hex>"
	}
	j := i
	colons, dashes := 0, 0
	for j < len(msg) {
		c := msg[j]
		if b8ByteClass[c]&clsDigit != 0 {
			j++
			continue
		}
		if c != '.' && c != ':' && c != '-' && c != ',' || j+1 >= len(msg) || b8ByteClass[msg[j+1]]&clsDigit == 0 {
			break
		}
		switch c {
		case ':':
			colons++
		case '-':
			dashes++
		}
		j++
	}
	if colons >= 1 || dashes >= 2 {
		return j, "<time>"
	}
	k := j
	for k < len(msg) && b8ByteClass[msg[k]]&clsHex != 0 {
		k++
	}
	if k-i >= 8 && (k >= len(msg) || b8ByteClass[msg[k]]&clsWord == 0) {
		return k, "<hex>"
	}
	sp := j
	if sp < len(msg) && msg[sp] == ' ' {
		sp++
	}
	if sp < len(msg) {
		if n := b8SizeUnit(msg[sp:]); n > 0 {
			return sp + n, "<size>"
		}
	}
	return j, "<num>"
}

func b8SizeUnit(s string) int {
	n := 0
	switch s[0] {
	case 'G', 'M', 'K', 'T':
		switch {
		case len(s) >= 3 && s[1] == 'i' && s[2] == 'B':
			n = 3
		case len(s) >= 2 && s[1] == 'B':
			n = 2
		}
	case 'k':
		if len(s) >= 2 && s[1] == 'B' {
			n = 2
		}
	case 'b':
		if strings.HasPrefix(s, "bytes") {
			n = 5
		}
	case 'B':
		n = 1
	}
	if n == 0 || n < len(s) && b8ByteClass[s[n]]&clsWord != 0 {
		return 0
	}
	return n
}

func b8IsRankToken(w string) bool {
	return strings.HasPrefix(w, "rank") && allDigits(w[4:])
}

func b8AppendLineTemplate(dst []byte, text string) ([]byte, bool) {
	if hasColour(text) {
		text = stripANSI(text)
	}
	text = b8LastRedraw(text)
	text = strings.TrimSpace(text)
	switch {
	case text == "":
		return append(dst, NoiseBlank...), true
	case b8IsProgressBar(text):
		return b8AppendProgressTemplate(dst, text), true
	}
	if !b8MarkEnd[text[len(text)-1]] {
		return b8AppendTemplate(dst, text), false // what follows judges the end of the line
	}
	var tags [512]byte
	untagged, maybe := b8StripTags(tags[:0], ParsePrefix(text, 2000).Body)
	switch rest := strings.TrimSpace(untagged); {
	case !maybe:
	case rest == "":
		return append(dst, NoiseBlank...), true
	case b8IsMarkLine(rest):
		return append(dst, NoiseCarets...), true
	case b8IsRule(rest):
		return append(dst, NoiseRule...), true
	}
	return b8AppendTemplate(dst, text), false
}

var b8MarkEnd = func() (t [256]bool) {
	for _, c := range []byte("^~=-*#_.)]") {
		t[c] = true
	}
	return t
}()

func b8LastRedraw(s string) string {
	for strings.IndexByte(s, '\r') >= 0 {
		i := strings.LastIndexByte(s, '\r')
		if strings.TrimSpace(s[i+1:]) != "" {
			return s[i+1:]
		}
		s = s[:i]
	}
	return s
}

func b8IsProgressBar(s string) bool {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], '%')
		if j < 0 {
			break
		}
		i += j
		if i+1 < len(s) && s[i+1] == '|' {
			return true
		}
	}
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			break
		}
		i += j
		if i >= 4 && (s[i-4:i] == "it/s" || s[i-4:i] == "s/it") {
			return true
		}
	}
	return b8BlockGlyphs(s, 3) >= 3
}

func b8BlockGlyphs(s string, limit int) int {
	n := 0
	for i := 0; n < limit; i++ {
		j := strings.IndexByte(s[i:], 0xe2)
		if j < 0 {
			break
		}
		i += j
		if i+2 < len(s) && s[i+1] == 0x96 && s[i+2] >= 0x80 && s[i+2] <= 0x9f {
			n++
			i += 2
		}
	}
	return n
}

func b8AppendProgressTemplate(dst []byte, s string) []byte {
	end := len(s)
	if i := strings.IndexByte(s, '%'); i >= 0 {
		j := i
		for j > 0 && (isDigit(s[j-1]) || s[j-1] == '.' || s[j-1] == ' ') {
			j--
		}
		end = j
	}
	for i, r := range s[:end] {
		if r >= 0x2580 && r <= 0x259f || r == '|' {
			end = i
			break
		}
	}
	label := strings.TrimSpace(s[:end])
	if label == "" {
		return append(dst, NoiseProgress...)
	}
	dst = b8AppendTemplate(dst, label)
	return append(append(dst, ' '), NoiseProgress...)
}

func b8StripTags(buf []byte, s string) (string, bool) {
	if strings.IndexByte(s, '(') < 0 && strings.IndexByte(s, '[') < 0 {
		for i := 0; i < len(s); i++ {
			if b8NotMark[s[i]] {
				return "", false
			}
		}
		return s, true
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(' || c == '[':
			depth++
		case (c == ')' || c == ']') && depth > 0:
			depth--
		case depth == 0:
			if b8NotMark[c] {
				return "", false
			}
			buf = append(buf, c)
		}
	}
	if len(buf) == 0 {
		return "", true
	}
	return string(buf), true // short: only blanks, marks and rules get here
}

var b8NotMark = func() (t [256]bool) {
	for c := range 0x80 {
		t[c] = strings.IndexByte("\t\n\v\f\r :|^~=-*#_.", byte(c)) < 0
	}
	return t
}()

func b8IsMarkLine(s string) bool {
	return isCaretLine(strings.TrimLeft(s, ": |"))
}

func b8IsRule(s string) bool {
	s = strings.TrimLeft(s, ": |")
	if len(s) < 3 || !strings.ContainsRune("=-*#_.", rune(s[0])) {
		return false
	}
	return strings.Trim(s, s[:1]+" ") == ""
}
