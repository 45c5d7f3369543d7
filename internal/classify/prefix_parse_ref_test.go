package classify

import (
	"strings"
	"time"
)

// Prefix.parse as it was before it was made faster (prefix.go and the
// files of its readers, envelope.go's peeling, at commit 1220b24), every
// function renamed with "old": the reference the fast parse must agree
// with field for field (prefix_agree_test.go). The JSON record readers
// (jsonlog.go), the package's types and tables, and the functions that
// have not changed since are shared, not copied.
//
// Why it stays: the fast parse decides, for every line of every envelope,
// where the message begins; a field read differently changes a verdict far
// from the parser. The old parse is the readable statement of what each
// field means, and the fuzz test holds the fast one to it.

// From prefix.go.

// parse is ParsePrefix into a zero p: the classifier's per-line Prefix then
// needs no copy of the whole struct on return.
func (p *Prefix) oldParse(text string, year int) {
	if oldHasColour(text) {
		text = oldStripANSI(text)
	}
	text = stripBareSGR(text) // read since, shared (prefix.go)
	for {
		if n := len(text); n > 0 && text[n-1] == '\r' {
			text = text[:n-1]
		} else if n > 1 && text[n-2] == '^' && text[n-1] == 'M' {
			text = text[:n-2] // a carriage return as `cat -v` shows it
		} else {
			break
		}
	}
	var env envelope
	text = p.oldPeelEnvelopes(text, year, &env)
	p.Origin = env.origin
	p.full = text
	for len(text) > 2 && text[0] == '^' && text[1] == 'C' { // read since (prefix.go)
		text = text[2:]
	}
	for range 6 {
		rest, ok := p.oldEat(text, year)
		if !ok {
			break
		}
		// A child's tag, added after the copy, is no prefix of the line's
		// own (prefix.go eatChildTag).
		if !p.childTag {
			p.Tagged = true
		}
		p.childTag = false
		text = rest
	}
	if line, ok := cutGRPCStream(text); ok { // read since, shared (prefix.go)
		p.Level, p.relayed = "", true
		text = eatPrefixes(line, year, p.oldEat)
	}
	p.Body = text
	// The level of an unknown logger's head was added after the copy: a
	// new reader, shared (prefix.go).
	if p.Level == "" && !p.relayed {
		p.headLevel(year, p.oldEat)
	}
	if p.Time.IsZero() {
		p.Time = env.time
	}
}

// eat consumes one prefix from the start of s.
func (p *Prefix) oldEat(s string, year int) (string, bool) {
	if len(s) < 3 {
		return s, false
	}
	switch c := s[0]; {
	case c == '(':
		return p.oldEatProcTag(s)
	case c == '[':
		if len(s) > 1 && isDigit(s[1]) {
			if rest, ok := p.oldEatMPITag(s); ok {
				return rest, true
			}
		}
		if rest, ok := p.oldEatBracketTime(s); ok {
			return rest, true
		}
		// A new reader, shared (prefix.go).
		if rest, ok := p.eatChildTag(s); ok {
			return rest, true
		}
		if rest, ok := p.oldEatRankTag(s); ok {
			return rest, true
		}
		if rest, ok := p.oldEatBracketLevel(s); ok {
			return rest, true
		}
		if len(s) > 1 && isGlogLevel(s[1]) {
			if rest, ok := p.eatGlog(s[1:], year, ']'); ok {
				return rest, true
			}
		}
		return s, false
	case isDigit(c):
		if rest, ok := p.oldEatDated(s); ok {
			return rest, true
		}
		if rest, ok := p.oldEatClock(s); ok {
			return rest, true
		}
		// zerolog's console prefix, added after the copy: a new reader,
		// shared (prefix_clock.go); the fast parse's guard before it is
		// what this holds to account.
		if rest, ok := p.eatKitchen(s); ok {
			return rest, true
		}
		return p.eatGGMLClock(s)
	case c == 't' && strings.HasPrefix(s, "time="):
		return p.oldEatLogfmt(s)
	case c >= 'A' && c <= 'Z':
		if rest, ok := p.oldEatLevelWord(s, year); ok {
			return rest, true
		}
		// hivemind's month-day stamp and bracketed level, added after
		// the copy: a new reader, shared (prefix_clock.go).
		if rest, ok := p.eatMonthLevel(s, year); ok {
			return rest, true
		}
		if isGlogLevel(c) {
			return p.eatGlog(s, year, 0)
		}
	}
	return s, false
}

// eatProcTag reads process tags: vLLM's "(EngineCore_DP0 pid=123) ", Ray's
// "(RayWorkerWrapper pid=2960, ip=10.1.1.1) " and "(pid=2960) ", and a
// wrapper's one-word tag such as "(Process) " (no source of its own).
func (p *Prefix) oldEatProcTag(s string) (string, bool) {
	end := indexByteWithin(s, ')', 97)
	if end < 2 || end > 96 {
		return s, false
	}
	tag := s[1:end]
	name, rest, ok := strings.Cut(tag, "pid=")
	if !ok {
		if end <= 33 && end+1 < len(s) && s[end+1] == ' ' && isIdentLike(tag) && !allDigits(tag) {
			return s[end+2:], true
		}
		return s, false
	}
	pid, _, _ := strings.Cut(rest, ",")
	if !allDigits(pid) || (name != "" && !strings.HasSuffix(name, " ")) {
		return s, false
	}
	p.Source = clean(tag, 96)
	name = strings.TrimSpace(name)
	if r := oldRankSuffix(name); r != "" {
		p.Rank = r
	} else if _, r, ok := strings.Cut(name, "rank="); ok && allDigits(r) {
		p.Rank = "rank" + r // "(VllmWorker rank=1 pid=2445156)"
	}
	return skipOneSpace(s[end+1:]), true
}

// rankSuffix returns "TP0" from names such as "Worker_TP0" or "EngineCore_DP0".
func oldRankSuffix(name string) string {
	i := strings.LastIndexByte(name, '_')
	if i < 0 {
		return ""
	}
	r := name[i+1:]
	if len(r) >= 3 && isRankWord(r) {
		return r
	}
	return ""
}

// eatBracketTime reads SGLang's "[2026-01-12 05:01:25 DP7 TP7 EP7] " and
// similar bracketed timestamps.
func (p *Prefix) oldEatBracketTime(s string) (string, bool) {
	if len(s) < 21 || !isDigit(s[1]) {
		return s, false
	}
	end := indexByteWithin(s, ']', 81)
	if end < 0 || end > 80 {
		return s, false
	}
	inner := s[1:end]
	t, n := oldParseDateTime(inner)
	if n == 0 {
		return s, false
	}
	p.Time = t
	if rest := strings.TrimSpace(inner[n:]); rest != "" {
		var words [3]string // the first three fields, as strings.Fields finds them
		nw := 0
		for w := range strings.FieldsSeq(rest) {
			if nw < len(words) {
				words[nw] = w
			}
			nw++
		}
		if nw == 3 && len(words[0]) == 1 && isGlogLevel(words[0][0]) && isDigit(words[1][0]) {
			// Ray's C++ logger: "[2026-01-02 03:04:05,678 E 1234 5678] file.cc:12: msg"
			p.Level = glogLevel(words[0][0])
			return skipOneSpace(s[end+1:]), true
		}
		if r, _ := oldRankWords(rest); r != "" {
			p.Rank = r
			p.Source = p.Rank
		}
	}
	if lv, body, ok := eatSpdlogFields(s[end+1:]); ok {
		p.Level = lv
		return body, true
	}
	return skipOneSpace(s[end+1:]), true
}

// rankWords is strings.Join of the rank words (isRankWord) among
// strings.Fields(s) with single spaces, and whether every field is one (at
// least one field). Without allocating when the rank words are all of s,
// single-spaced ("DP7 TP7 EP7"), as they are in the prefixes that have them.
func oldRankWords(s string) (string, bool) {
	n, fields := 0, 0
	from, to := -1, -1 // the span of s the rank words cover while they are contiguous
	contiguous := true
	for w := range strings.FieldsSeq(s) {
		fields++
		if !isRankWord(w) {
			if n > 0 {
				contiguous = false // a later rank word would not join onto the span
			}
			continue
		}
		// w is a substring of s: its offset is where it was found from to on.
		at := max(to, 0) + strings.Index(s[max(to, 0):], w)
		switch {
		case n == 0:
			from = at
		case !contiguous || at != to+1 || s[to] != ' ':
			contiguous = false
		}
		to = at + len(w)
		n++
	}
	if n == 0 {
		return "", false
	}
	all := n == fields
	if contiguous {
		return s[from:to], all
	}
	var ranks []string
	for w := range strings.FieldsSeq(s) {
		if isRankWord(w) {
			ranks = append(ranks, w)
		}
	}
	return strings.Join(ranks, " "), all
}

// eatRankTag reads torch's "[rank0]:" tag and SGLang's bare "[TP0] " or
// "[DP2 TP2] " rank tags.
func (p *Prefix) oldEatRankTag(s string) (string, bool) {
	if end := indexByteWithin(s, ']', 40); end > 3 && end < 40 {
		if r, all := oldRankWords(s[1:end]); all {
			p.Rank = r
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

// eatBracketLevel reads "[TensorRT-LLM][WARNING] ", "[WARNING] " and "[ERROR] ".
func (p *Prefix) oldEatBracketLevel(s string) (string, bool) {
	rest := strings.TrimPrefix(s, "[TensorRT-LLM]")
	if !strings.HasPrefix(rest, "[") {
		return s, false
	}
	end := indexByteWithin(rest, ']', 11)
	if end < 2 || end > 10 {
		return s, false
	}
	lv := oldNormLevel(rest[1:end])
	if lv == "" {
		return s, false
	}
	p.Level = lv
	rest = skipOneSpace(rest[end+1:])
	// DeepSpeed: "[time] [LEVEL] [launch.py:321:sigkill_handler] msg"
	if strings.HasPrefix(rest, "[") {
		if e := strings.Index(rest, "] "); e > 0 && e < 100 && strings.Contains(rest[:e], ".py:") && !strings.ContainsAny(rest[1:e], " []") {
			rest = rest[e+2:]
		}
	}
	rest = skipQtTime(rest) // added since
	// The log4j logger alone and the workers' relayed streams were added
	// after the copy: a new reader, shared (prefix.go).
	return p.log4jMessage(rest), true
}

// eatLoguru reads loguru's default format after its time:
// " | ERROR    | module:function:12 - msg".
func oldEatLoguru(rest string) (string, string, bool) {
	if !strings.HasPrefix(rest, " | ") {
		return "", "", false
	}
	bar := strings.Index(rest[3:], " | ")
	if bar < 1 || bar > 10 {
		return "", "", false
	}
	lv := oldNormLevel(strings.TrimSpace(rest[3 : 3+bar]))
	if lv == "" {
		return "", "", false
	}
	body := rest[3+bar+3:]
	if msg, ok := skipLoggerNameField(body); ok {
		if relaysStream(body) {
			lv = "" // StreamToLogger's level for a whole stream says nothing of the line
		}
		return msg, lv, true
	}
	if d := strings.Index(body, " - "); d > 0 && d < 120 && !strings.Contains(body[:d], " ") && strings.Contains(body[:d], ":") {
		body = body[d+3:]
	}
	return body, lv, true
}

// eatDated reads prefixes that start with a date: TGI's RFC 3339 time and
// level, Python logging's "2026-04-05 16:52:19,388 - NAME - WARNING - ",
// "2026-03-27 20:55:46.396 DEBUG " and TensorFlow's "2025-10-14 19:22:02.871009: E file:1] ".
func (p *Prefix) oldEatDated(s string) (string, bool) {
	t, n := oldParseDateTime(s)
	if n == 0 {
		return s, false
	}
	rest := s[n:]
	if body, ok := p.eatTimeFields(t, rest); ok { // the formats read since, shared
		return body, true
	}
	switch {
	case strings.HasPrefix(rest, ": ") && len(rest) > 3 && isGlogLevel(rest[2]) && rest[3] == ' ':
		// TensorFlow: "2025-10-14 19:22:02.871009: E external/...cc:467] msg"
		lv := glogLevel(rest[2])
		end := strings.Index(rest, "] ")
		if end < 0 || end > 200 {
			return s, false
		}
		p.Time, p.Level = t, lv
		return rest[end+2:], true
	case len(rest) > 5 && rest[0] == ' ' && isGlogLevel(rest[1]) && rest[2] == ' ' && isDigit(rest[3]) && hasGlogTail(rest[3:]):
		// Triton's --log-format ISO8601: the glog fields after an ISO time,
		// "2026-01-02T03:04:05Z I 1 http_server.cc:4788] \"msg\"".
		body, _ := eatGlogTail(rest[3:])
		p.Time, p.Level = t, glogLevel(rest[1])
		return body, true
	case strings.HasPrefix(rest, " - "):
		// Python logging: " - NAME - LEVEL - msg"
		parts := strings.SplitN(rest[3:], " - ", 3)
		if len(parts) == 3 {
			if lv := oldNormLevel(parts[1]); lv != "" {
				p.Time, p.Level = t, lv
				return skipSourceField(parts[2]), true
			}
		}
		if len(parts) >= 2 {
			if lv := oldNormLevel(parts[0]); lv != "" {
				p.Time, p.Level = t, lv
				return strings.Join(parts[1:], " - "), true
			}
		}
		p.Time = t
		return rest[3:], true
	}
	if body, lv, ok := oldEatLoguru(rest); ok {
		// A relayed stream's level is dropped (relaysStream): headLevel
		// must not read it back from the line's head.
		p.Time, p.Level, p.relayed = t, lv, lv == ""
		return body, true
	}
	trimmed := strings.TrimLeft(rest, " ")
	if body, lv, ok := oldEatNamePidLevel(trimmed); ok {
		p.Time, p.Level = t, lv
		return body, true
	}
	if sp := strings.IndexByte(trimmed, ' '); sp > 0 && sp <= 8 {
		if lv := oldNormLevel(trimmed[:sp]); lv != "" {
			if isVLLMClock(trimmed[sp+1:]) { // read since: the next eat reads vLLM's prefix
				p.Time = t
				return trimmed, true
			}
			p.Time, p.Level = t, lv
			return trimmed[sp+1:], true
		}
	}
	if len(rest) < len(s) && (rest == "" || rest[0] == ' ') {
		p.Time = t
		return skipOneSpace(rest), true
	}
	return s, false
}

// eatLogfmt reads Ollama's `time=... level=INFO source=... msg="..."`.
func (p *Prefix) oldEatLogfmt(s string) (string, bool) {
	i := strings.Index(s, " level=")
	if i < 0 || i > 60 {
		return s, false
	}
	if t, n := oldParseDateTime(s[5:]); n > 0 {
		p.Time = t
	}
	lvEnd := strings.IndexByte(s[i+7:], ' ')
	lv := s[i+7:]
	if lvEnd >= 0 {
		lv = lv[:lvEnd]
	}
	p.Level = oldNormLevel(lv)
	p.Tagged = true
	// The message stays in the body: logfmt keeps it inside msg="...".
	return s, false
}

// eatLevelWord reads vLLM's "ERROR 08-03 21:49:23 [core.py:1231] " and
// uvicorn's "INFO:     ".
func (p *Prefix) oldEatLevelWord(s string, year int) (string, bool) {
	end := 0
	for end < len(s) && end < 9 && s[end] >= 'A' && s[end] <= 'Z' {
		end++
	}
	if end < 4 || end >= len(s) {
		return s, false
	}
	lv := oldNormLevel(s[:end])
	if lv == "" {
		return s, false
	}
	rest := s[end:]
	if rest[0] == ':' {
		// uvicorn: "INFO:     msg"; Python's default format:
		// "INFO:name:msg" (skipLoggerName)
		p.Level = lv
		if rest = rest[1:]; !strings.HasPrefix(rest, " ") {
			return skipLoggerName(rest), true
		}
		return strings.TrimLeft(rest, " "), true
	}
	if rest[0] != ' ' {
		return s, false
	}
	rest = rest[1:]
	// vLLM: "MM-DD HH:MM:SS [file.py:123] "
	if len(rest) >= 15 && isDigit(rest[0]) && rest[2] == '-' && rest[5] == ' ' && rest[8] == ':' {
		mo, d := atoi2(rest[0:2]), atoi2(rest[3:5])
		h, mi, se := atoi2(rest[6:8]), atoi2(rest[9:11]), atoi2(rest[12:14])
		if year > 0 && mo >= 1 && mo <= 12 {
			p.Time = time.Date(year, time.Month(mo), d, h, mi, se, 0, time.UTC)
		}
		rest = rest[14:]
		rest = skipOneSpace(rest)
		if strings.HasPrefix(rest, "[") {
			if e := strings.Index(rest, "] "); e > 0 && e < 80 {
				rest = rest[e+2:]
			} else if e := strings.IndexByte(rest, ']'); e > 0 && e == len(rest)-1 {
				rest = ""
			}
		} else if e := strings.IndexByte(rest, ']'); e > 0 && e < 80 && isFileLineTag(rest[:e]) {
			// vLLM before 0.7: "MM-DD HH:MM:SS file.py:123] msg"
			rest = skipOneSpace(rest[e+1:])
		}
		p.Level = lv
		return rest, true
	}
	// NIM: "2024-07-02 17:52:36.112 file.py:152] msg". The padding of a
	// level and Paddle's pid and file[line:N] were added after the copy:
	// new readers, shared (prefix.go).
	rest = skipLevelPad(rest)
	if t, n := oldParseDateTime(rest); n > 0 && n < len(rest) && rest[n] == ' ' {
		tail := rest[n+1:]
		if e := strings.IndexByte(tail, ']'); e > 0 && e < 80 && isFileLineTag(tail[:e]) {
			p.Time, p.Level = t, lv
			return skipOneSpace(tail[e+1:]), true
		}
		// Ray Serve's component and id, added after the copy: a new
		// reader, shared (prefix.go).
		if msg, ok := rayServeComponent(tail); ok {
			p.Time, p.Level = t, lv
			return msg, true
		}
		if msg, ok := pidFileLineBracket(tail); ok {
			p.Time, p.Level = t, lv
			return msg, true
		}
	}
	return s, false
}

// normLevel maps a level word to its canonical name, "" if it is not one.
// The word's bytes with bit 5 cleared are compared as one number: clearing
// it upper-cases a-z and, since every name is letters, no other byte can
// turn into one of a name's.
func oldNormLevel(w string) string {
	w = strings.TrimSpace(w)
	if len(w) < 3 || len(w) > 8 {
		return ""
	}
	var x uint64
	for i := 0; i < len(w); i++ {
		x |= uint64(w[i]&^0x20) << (8 * i)
	}
	switch len(w) {
	case 3:
		if x == lvERR {
			return "ERROR"
		}
	case 4:
		switch x {
		case lvINFO:
			return "INFO"
		case lvWARN:
			return "WARNING"
		}
	case 5:
		switch x {
		case lvERROR:
			return "ERROR"
		case lvFATAL:
			return "FATAL"
		case lvDEBUG, lvTRACE:
			return "DEBUG"
		}
	case 7:
		switch x {
		case lvWARNING:
			return "WARNING"
		case lvVERBOSE:
			return "DEBUG"
		}
	case 8:
		if x == lvCRITICAL {
			return "CRITICAL"
		}
	}
	return ""
}

// parseDateTime reads "YYYY-MM-DD[ T]HH:MM:SS" (or "YYYY/MM/DD HH:MM:SS") with optional fraction
// (. or ,) and optional Z, and returns the time and the bytes consumed.
func oldParseDateTime(s string) (time.Time, int) {
	// ISO's "2006-01-02" or Go's log package's "2006/01/02" (added since).
	if len(s) < 19 || (s[4] != '-' || s[7] != '-') && (s[4] != '/' || s[7] != '/' || s[10] != ' ') || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, 0
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
		if !isDigit(s[i]) {
			return time.Time{}, 0
		}
	}
	y := atoi2(s[0:2])*100 + atoi2(s[2:4])
	mo, d := atoi2(s[5:7]), atoi2(s[8:10])
	h, mi, se := atoi2(s[11:13]), atoi2(s[14:16]), atoi2(s[17:19])
	n := 19
	ns := 0
	if n < len(s) && (s[n] == '.' || s[n] == ',') {
		j := n + 1
		scale := 100000000
		for j < len(s) && isDigit(s[j]) {
			if scale > 0 {
				ns += int(s[j]-'0') * scale
				scale /= 10
			}
			j++
		}
		if j > n+1 {
			n = j
		}
	}
	var off time.Duration
	switch {
	case n < len(s) && s[n] == 'Z':
		n++
	case n+6 <= len(s) && (s[n] == '+' || s[n] == '-') && isDigit(s[n+1]) && isDigit(s[n+2]) && s[n+3] == ':' && isDigit(s[n+4]) && isDigit(s[n+5]):
		// A zone offset such as "-07:00" (container runtimes' timestamps).
		off = time.Duration(atoi2(s[n+1:n+3]))*time.Hour + time.Duration(atoi2(s[n+4:n+6]))*time.Minute
		if s[n] == '-' {
			off = -off
		}
		n += 6
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 {
		return time.Time{}, 0
	}
	return time.Date(y, time.Month(mo), d, h, mi, se, ns, time.UTC).Add(-off), n
}

// hasColour reports whether s holds a colour code: a real ESC sequence, or
// one written as visible text, "^[[1;36m" (caret notation, as `cat -v` and
// terminal copies show it) or "\u241b[1;36m" (the ESC symbol).
func oldHasColour(s string) bool {
	return strings.IndexByte(s, 0x1b) >= 0 || oldHasCaretCSI(s) || hasSymbolCSI(s)
}

// hasCaretCSI reports whether s holds "^[[". It looks for the rare '^'
// with IndexByte rather than for the string, which is slower on long lines.
func oldHasCaretCSI(s string) bool {
	for {
		i := strings.IndexByte(s, '^')
		if i < 0 || i+2 >= len(s) {
			return false
		}
		if s[i+1] == '[' && s[i+2] == '[' {
			return true
		}
		s = s[i+1:]
	}
}

// stripANSI removes ANSI CSI sequences such as "\x1b[1;36m", also when
// written as "^[[1;36m" or "\u241b[1;36m", and drops a lone ESC.
func oldStripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = stripIntro(s, "\x1b")
	}
	if oldHasCaretCSI(s) {
		s = stripIntro(s, "^[")
	}
	if hasSymbolCSI(s) {
		s = stripIntro(s, "\u241b")
	}
	return s
}

// From prefix_clock.go.

// eatClock reads a prefix that starts with a time of day and no date, then a
// padded level word, as text-generation-webui's logger writes it
// (modules/logging_colors.py: "%H:%M:%S" plus "-<microseconds>", then the
// level name left-justified to 8 columns):
//
//	11:02:19-880000 ERROR    Failed to load the model.
//	10:20:30-100900 WARNING  trust_remote_code is enabled. This is dangerous.
//
// Without a level word right after it a clock is no prefix ("12:00:01 took
// 3s" may be a message), so none is taken. The time stays zero: a time of
// day without a date is not a complete timestamp. The level's padding is
// part of the prefix, so the body does not look indented.
func (p *Prefix) oldEatClock(s string) (string, bool) {
	if len(s) < 10 || s[2] != ':' || s[5] != ':' {
		return s, false
	}
	for _, i := range []int{0, 1, 3, 4, 6, 7} {
		if !isDigit(s[i]) {
			return s, false
		}
	}
	n := 8
	if n < len(s) && (s[n] == '-' || s[n] == '.' || s[n] == ',') {
		j := n + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == n+1 {
			return s, false
		}
		n = j
	}
	if n >= len(s) || s[n] != ' ' {
		return s, false
	}
	rest := s[n+1:]
	if body, lv, ok := eatElixirLevel(rest); ok { // added since
		p.Level = lv
		return body, true
	}
	sp := strings.IndexByte(rest, ' ')
	if sp < 3 || sp > 8 {
		return s, false
	}
	lv := oldNormLevel(rest[:sp])
	if lv == "" {
		return s, false
	}
	// Skip the padding to the 8-column level field and its separator.
	end := sp
	for end < len(rest) && end < 9 && rest[end] == ' ' {
		end++
	}
	p.Level = lv
	return rest[end:], true
}

// From prefix_mpi.go.

// eatMPITag reads the tag Open MPI's mpirun writes before every line of its
// ranks with --tag-output (or --output tag): "[1,0]<stdout>:", where 1 is
// the job and 0 the rank; the stream is stdout, stderr or stddiag. Without
// it, a rank's Python traceback under mpirun (trtllm-serve, TensorRT-LLM
// workers) would not be read as one: its frames carry the tag first.
func (p *Prefix) oldEatMPITag(s string) (string, bool) {
	comma := indexByteWithin(s, ',', 17) // beyond 16, end could not follow it
	end := indexByteWithin(s, ']', 17)
	if comma < 2 || end < comma+2 || end > 16 || !allDigits(s[1:comma]) || !allDigits(s[comma+1:end]) {
		return s, false
	}
	rest := s[end+1:]
	for _, stream := range [...]string{"<stdout>:", "<stderr>:", "<stddiag>:"} {
		if strings.HasPrefix(rest, stream) {
			p.Rank = "rank" + s[comma+1:end]
			p.Source = p.Rank
			return skipOneSpace(rest[len(stream):]), true
		}
	}
	return s, false
}

// From prefix_pylog.go.

// eatNamePidLevel reads what follows the time in Python logging's
// "%(asctime)s %(name)-12s %(process)d %(levelname)-8s %(message)s", the
// format Xinference configures for all its processes:
// "xinference.core.worker 4242 ERROR    Failed to load model m-0". It
// returns the message and the level; ok is false for anything else.
func oldEatNamePidLevel(s string) (body, level string, ok bool) {
	name, rest, found := strings.Cut(s, " ")
	if !found || name == "" || len(name) > 80 || !isLoggerName(name) {
		return "", "", false
	}
	rest = strings.TrimLeft(rest, " ")
	pid, rest, found := strings.Cut(rest, " ")
	if !found || !allDigits(pid) {
		return "", "", false
	}
	word, rest, _ := strings.Cut(rest, " ")
	lv := oldNormLevel(word)
	if lv == "" {
		return "", "", false
	}
	return strings.TrimLeft(rest, " "), lv, true
}

// From envelope.go.

// peelEnvelopes strips collector envelopes from the start of s and returns
// what is inside. A JSON log record sets p's level and returns its message.
func (p *Prefix) oldPeelEnvelopes(s string, year int, env *envelope) string {
	for range maxEnvelopes {
		if len(s) < 3 || env.record {
			return s
		}
		var (
			rest   string
			t      time.Time
			origin string
			ok     bool
		)
		switch c := s[0]; {
		case c == '{':
			rest, ok = p.peelJSON(s, env)
			if ok {
				// "\u001b[31m" in the JSON text decodes to a real ESC.
				if strings.IndexByte(rest, 0x1b) >= 0 {
					rest = oldStripANSI(rest)
				}
				s = rest
				continue
			}
			// A new reader, shared (envelope.go).
			rest, origin, ok = peelLokiLabels(s)
		case c == '<':
			rest, t, origin, ok = oldPeelSyslogPRI(s, year)
		case c == '[':
			rest, origin, ok = peelKubectl(s)
		case c == '"':
			// A new reader, shared (envelope.go).
			rest, t, origin, ok = peelCSVRow(s)
		case isDigit(c):
			if len(s) >= 20 && (s[10] == ' ' || s[10] == 'T') {
				rest, t, origin, ok = peelCSVRow(s)
			}
			if !ok {
				if rest, t, ok = oldPeelCRI(s); !ok {
					if rest, t, origin, ok = oldPeelISOSyslog(s, false); !ok {
						rest, t, ok = oldPeelTimeBeforeJSON(s)
					}
				}
				if !ok && len(s) >= 19 && s[10] == 'T' {
					if dt, n := parseDateTime(s); n > 0 {
						rest, t, origin, ok = peelLogStream(s, dt, n) // read since, shared
					}
				}
			}
			if !ok {
				rest, origin, ok = peelSrunLabel(s)
			}
			if !ok {
				rest, origin, ok = peelPM2(s) // read since, shared
			}
			if !ok {
				rest, origin, ok = oldPeelCompose(s)
			}
		case c == ' ':
			rest, origin, ok = peelSrunLabel(s)
		case c >= 'A' && c <= 'Z':
			if rest, t, origin, ok = oldPeelMonthSyslog(s, year, false); !ok {
				rest, t, ok = peelExplorerDate(s) // read since, shared
			}
			if !ok && c == 'P' {
				rest, origin, ok = peelPM2(s) // read since, shared
			}
			if !ok {
				rest, origin, ok = oldPeelCompose(s)
			}
		case c >= 'a' && c <= 'z':
			rest, origin, ok = oldPeelCompose(s)
		}
		if !ok {
			return s
		}
		if !t.IsZero() {
			env.time = t
		}
		env.addOrigin(origin)
		s = rest
	}
	return s
}

// peelCRI reads the CRI log format of containerd and CRI-O:
// "<RFC 3339 time> <stdout|stderr> <F|P> <line>". The stream is not an
// identity: a logger's intro on stdout and its traceback on stderr are one event.
func oldPeelCRI(s string) (string, time.Time, bool) {
	t, n := oldParseDateTime(s)
	if n == 0 || s[10] != 'T' || len(s) < n+9 {
		return s, time.Time{}, false
	}
	rest := s[n:]
	if !strings.HasPrefix(rest, " stdout ") && !strings.HasPrefix(rest, " stderr ") {
		return s, time.Time{}, false
	}
	rest = rest[8:]
	if rest[0] != 'F' && rest[0] != 'P' {
		return s, time.Time{}, false
	}
	switch {
	case len(rest) == 1:
		return "", t, true
	case rest[1] == ' ':
		return rest[2:], t, true
	}
	return s, time.Time{}, false
}

// peelTimeBeforeJSON reads the RFC 3339 time that `docker logs -t` and
// `kubectl logs --timestamps` put before a line, when a JSON record follows
// (before plain text the server-prefix stage reads it as a timestamp).
func oldPeelTimeBeforeJSON(s string) (string, time.Time, bool) {
	t, n := oldParseDateTime(s)
	if n == 0 || s[10] != 'T' || n+2 > len(s) || s[n] != ' ' || s[n+1] != '{' {
		return s, time.Time{}, false
	}
	return s[n+1:], t, true
}

// peelCompose reads docker compose's prefix: the container's name padded
// to the longest name plus one, then " | " (compose pads with
// "%-*s | "), so at least two spaces come before the bar. The name must end
// in the replica number compose gives every container ("web-1", v1's
// "web_1"), or be a container_name (containerName, shared: added in round
// 3 session 7, a change of what the parse means, not of its speed): that
// keeps a table row such as "Total  | 5" a server line.
func oldPeelCompose(s string) (string, string, bool) {
	i := 0
	for i < len(s) && i < 128 && oldIsNameByte(s[i]) {
		i++
	}
	if i < 3 || i+3 > len(s) || s[i] != ' ' {
		return s, "", false
	}
	name := s[:i]
	d := len(name)
	for d > 0 && isDigit(name[d-1]) {
		d--
	}
	replica := d < len(name) && d >= 2 && (name[d-1] == '-' || name[d-1] == '_')
	counted := replica && name[d] != '0' // compose counts replicas from 1
	if !replica && !containerName(name) {
		return s, "", false
	}
	// One space before the bar, added after the copy (envelope.go).
	if s[i+1] != ' ' && !(s[i+1] == '|' && (counted || !replica && separated(name))) {
		return s, "", false
	}
	j := i + 1
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if j >= len(s) || s[j] != '|' {
		return s, "", false
	}
	switch {
	case j+1 == len(s):
		return "", name, true
	case s[j+1] == ' ':
		return s[j+2:], name, true
	}
	return s, "", false
}

func oldIsNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || isDigit(c) || c == '-' || c == '_' || c == '.'
}

// peelSyslogPRI reads a syslog line that starts with its priority "<PRI>":
// RFC 5424 ("<13>1 TIME HOST APP PROCID MSGID SD MSG") or RFC 3164
// ("<13>Jan 28 10:04:05 host tag[pid]: MSG", as relays and `logger` write
// it, where the host may be missing). The priority is not used as a level:
// relays give every line of a stream the same one.
func oldPeelSyslogPRI(s string, year int) (string, time.Time, string, bool) {
	end := strings.IndexByte(s, '>')
	if end < 2 || end > 4 || !allDigits(s[1:end]) {
		return s, time.Time{}, "", false
	}
	rest := s[end+1:]
	if strings.HasPrefix(rest, "1 ") {
		return oldPeelRFC5424(s, rest[2:])
	}
	if len(rest) > 0 && rest[0] >= 'A' && rest[0] <= 'Z' {
		if r, t, o, ok := oldPeelMonthSyslog(rest, year, true); ok {
			return r, t, o, true
		}
	}
	if len(rest) > 0 && isDigit(rest[0]) {
		if r, t, o, ok := oldPeelISOSyslog(rest, true); ok {
			return r, t, o, true
		}
	}
	return s, time.Time{}, "", false
}

// peelRFC5424 reads the header after "<PRI>1 ": TIMESTAMP HOSTNAME
// APP-NAME PROCID MSGID STRUCTURED-DATA, each "-" when absent.
func oldPeelRFC5424(s, h string) (string, time.Time, string, bool) {
	var fields [5]string
	for i := range fields {
		sp := strings.IndexByte(h, ' ')
		if sp <= 0 || sp > 255 {
			return s, time.Time{}, "", false
		}
		fields[i], h = h[:sp], h[sp+1:]
	}
	var t time.Time
	if fields[0] != "-" {
		var n int
		if t, n = oldParseDateTime(fields[0]); n != len(fields[0]) {
			return s, time.Time{}, "", false
		}
	}
	// Structured data: "-" or one or more "[id k="v" ...]" elements, where
	// a quoted value may hold ']' escaped as "\]".
	switch {
	case strings.HasPrefix(h, "-"):
		h = h[1:]
	case strings.HasPrefix(h, "["):
		for strings.HasPrefix(h, "[") {
			i, quoted := 1, false
			for ; i < len(h); i++ {
				c := h[i]
				if c == '\\' {
					i++
					continue
				}
				if c == '"' {
					quoted = !quoted
				} else if c == ']' && !quoted {
					break
				}
			}
			if i >= len(h) {
				return s, time.Time{}, "", false
			}
			h = h[i+1:]
		}
	default:
		return s, time.Time{}, "", false
	}
	if h != "" && h[0] != ' ' {
		return s, time.Time{}, "", false
	}
	h = strings.TrimPrefix(skipOneSpace(h), "\ufeff")
	return h, t, oldProcID(fields[1], fields[2], fields[3]), true
}

// procID names a process from syslog fields, skipping absent ones ("-").
func oldProcID(host, app, pid string) string {
	var b strings.Builder
	if host != "" && host != "-" {
		b.WriteString(host)
	}
	if app != "" && app != "-" {
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(app)
	}
	if pid != "" && pid != "-" {
		b.WriteByte('[')
		b.WriteString(pid)
		b.WriteByte(']')
	}
	return b.String()
}

// peelMonthSyslog reads journalctl's default format and RFC 3164's:
// "Jan 28 10:04:05 host ident[pid]: " (the day may be space-padded, the
// seconds may carry a fraction as with journalctl -o short-precise). The
// year comes from year; with 0 the time stays zero.
func oldPeelMonthSyslog(s string, year int, hostless bool) (string, time.Time, string, bool) {
	if len(s) < 20 || s[3] != ' ' {
		return s, time.Time{}, "", false
	}
	mo := 0
	for i, m := range months {
		if s[:3] == m {
			mo = i + 1
			break
		}
	}
	if mo == 0 {
		return s, time.Time{}, "", false
	}
	var d int
	switch {
	case s[4] == ' ' && isDigit(s[5]):
		d = int(s[5] - '0')
	case isDigit(s[4]) && isDigit(s[5]):
		d = atoi2(s[4:6])
	default:
		return s, time.Time{}, "", false
	}
	c := s[6:]
	if len(c) < 10 || c[0] != ' ' || c[3] != ':' || c[6] != ':' || c[9] != ' ' && c[9] != '.' {
		return s, time.Time{}, "", false
	}
	for _, i := range []int{1, 2, 4, 5, 7, 8} {
		if !isDigit(c[i]) {
			return s, time.Time{}, "", false
		}
	}
	h, mi, se := atoi2(c[1:3]), atoi2(c[4:6]), atoi2(c[7:9])
	c = c[9:]
	ns := 0
	if c[0] == '.' {
		j, scale := 1, 100000000
		for j < len(c) && isDigit(c[j]) {
			ns += int(c[j]-'0') * scale
			scale /= 10
			j++
		}
		c = c[j:]
	}
	if c == "" || c[0] != ' ' || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60 {
		return s, time.Time{}, "", false
	}
	rest, origin, ok := oldSyslogTail(c[1:], hostless)
	if !ok {
		return s, time.Time{}, "", false
	}
	var t time.Time
	if year > 0 {
		t = time.Date(year, time.Month(mo), d, h, mi, se, ns, time.UTC)
	}
	return rest, t, origin, true
}

// peelISOSyslog reads journalctl -o short-iso and rsyslog's file format:
// "2026-01-28T10:04:05[.frac](Z|+01:00|+0100) host ident[pid]: ". The
// host is required unless the line came with a syslog priority, and it must
// not be a level word: TGI's "2026-01-28T10:04:05Z ERROR target: msg" is
// the server's own prefix.
func oldPeelISOSyslog(s string, hostless bool) (string, time.Time, string, bool) {
	t, n := oldParseDateTime(s)
	if n == 0 || s[10] != 'T' {
		return s, time.Time{}, "", false
	}
	// A zone is required: "Z" or "+01:00" (read by parseDateTime), or
	// journalctl's "+0100".
	zoned := s[n-1] == 'Z' || s[n-3] == ':' && (s[n-6] == '+' || s[n-6] == '-')
	rest := s[n:]
	if !zoned && len(rest) >= 5 && (rest[0] == '+' || rest[0] == '-') && allDigits(rest[1:5]) {
		off := time.Duration(atoi2(rest[1:3]))*time.Hour + time.Duration(atoi2(rest[3:5]))*time.Minute
		if rest[0] == '-' {
			off = -off
		}
		t, rest, zoned = t.Add(-off), rest[5:], true
	}
	if !zoned || rest == "" || rest[0] != ' ' {
		return s, time.Time{}, "", false
	}
	if r, origin, ok := oldSyslogTail(rest[1:], hostless); ok {
		return r, t, origin, true
	}
	return s, time.Time{}, "", false
}

// syslogTail reads "host ident[pid]: " or "host ident: " (and, when
// hostless, "ident[pid]: ") and returns the message and "host/ident[pid]".
func oldSyslogTail(s string, hostless bool) (string, string, bool) {
	sp := strings.IndexByte(s, ' ')
	if sp <= 0 || sp > 255 {
		return s, "", false
	}
	first := s[:sp]
	if hostless {
		if name, pid, ok := oldSyslogIdent(first); ok {
			return s[sp+1:], oldProcID("", name, pid), true
		}
	}
	// (A CloudWatch stream "AllTraffic/i-..." is no host: changed with
	// envelope.go in round 3 session 13.)
	if strings.ContainsAny(first, ":[]()<>{}=\"'/") || oldNormLevel(first) != "" {
		return s, "", false
	}
	rest := s[sp+1:]
	sp = strings.IndexByte(rest, ' ')
	tag, msg := rest, ""
	if sp >= 0 {
		tag, msg = rest[:sp], rest[sp+1:]
	}
	name, pid, ok := oldSyslogIdent(tag)
	if !ok {
		return s, "", false
	}
	return msg, oldProcID(first, name, pid), true
}

// syslogIdent reads "ident[pid]:" or "ident:".
func oldSyslogIdent(tag string) (string, string, bool) {
	if len(tag) < 2 || len(tag) > 128 || tag[len(tag)-1] != ':' {
		return "", "", false
	}
	tag = tag[:len(tag)-1]
	name, pid := tag, ""
	if tag[len(tag)-1] == ']' {
		open := strings.LastIndexByte(tag, '[')
		if open < 1 || !allDigits(tag[open+1:len(tag)-1]) {
			return "", "", false
		}
		name, pid = tag[:open], tag[open+1:len(tag)-1]
	}
	if strings.ContainsAny(name, "[]:\"'") {
		return "", "", false
	}
	return name, pid, true
}
