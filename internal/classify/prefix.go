package classify

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Prefix is what ParsePrefix found at the start of a line: the collector's
// envelope, the producer's timestamp, level and rank tags, and the message
// body behind them.
type Prefix struct {
	// Time is the innermost timestamp: the server's own, else the
	// envelope's (CRI, journald, a JSON record's); zero if none is complete.
	Time  time.Time
	Level string // INFO, WARNING, ERROR, CRITICAL, FATAL, DEBUG; "" if none
	Rank  string // TP1, DP0 TP0 EP0, rank0 ...; "" if none
	// Source identifies the process or rank that wrote the line, from tags
	// such as "(EngineCore_DP0 pid=123)", "[... TP3]" or "[rank0]:"; "" if
	// the line carries none. An envelope does not change it: see Origin.
	Source string
	// Origin is the container or process a collector's envelope names:
	// "web-1" (compose), "pod/web-0/server" (kubectl), "gpu-7/vllm[12345]"
	// (journald, syslog); nested envelopes are joined by "|"; "" if none.
	// The CRI and Docker stream (stdout, stderr) is not an origin.
	Origin string
	// Embedded is set when a structured record carried a whole traceback in
	// one message (jsonlog.go): Body then ends with its final exception
	// line, and the line is a complete traceback event by itself.
	Embedded bool
	// Request is set when a structured record names the request it is
	// about (a request id): an exception it reports is that request's.
	Request bool
	// Answered is set when a structured record names the HTTP request it
	// is about and the status it answered (Caddy's http.log.error:
	// "request": {"method": ..., "uri": ...}, "status": 502): a proxy's or
	// a web server's error for one request it answered, not a failure of
	// the process writing it.
	Answered bool
	// Tagged is true when any prefix of the server's own (timestamp, level
	// or tag, or a JSON log record) was found; an envelope alone is not one.
	Tagged bool
	// Body is the message after the prefixes, without ANSI colour codes and
	// trailing carriage returns; its leading indentation is kept.
	Body string

	full string // the line without envelope, ANSI codes and trailing carriage returns
	// relayed: a reader dropped the level because it named a relayed
	// stream, not the line (log4jMessage); headLevel must not read it back.
	relayed bool
	// childTag: the prefix just read was a child's tag (eatChildTag),
	// which a parent puts before every line the child prints, its
	// continuation lines too: no prefix of the child's own, so no Tagged.
	childTag bool
}

// ParsePrefix splits a log line into its envelope, prefixes and body. It
// first peels collector envelopes (envelope.go: CRI, compose, journald,
// syslog, kubectl, Docker json-file, JSON log records), then understands
// the prefixes of SGLang, vLLM, uvicorn, TGI, TensorRT-LLM, glog/absl,
// Python logging and logfmt (Ollama). year supplies the year for timestamps
// that lack one (vLLM's "08-03 21:02:48", journald's "Jan 28 10:04:05");
// with year 0 such timestamps are left zero.
func ParsePrefix(text string, year int) Prefix {
	var p Prefix
	p.parse(text, year)
	return p
}

// parse is ParsePrefix into a zero p: the classifier's per-line Prefix then
// needs no copy of the whole struct on return.
func (p *Prefix) parse(text string, year int) { p.parseIn(text, year, nil) }

// parseIn is parse stripping real colour codes into sc (stripBuf) when it
// is not nil: p.full may then be a view of sc, valid until its next line.
func (p *Prefix) parseIn(text string, year int, sc *stripBuf) {
	// stripANSI, as cheap as hasColour on a line without colour.
	inBuf := false
	if i := strings.IndexByte(text, 0x1b); i >= 0 {
		if sc != nil && len(text) <= maxStripBuf {
			text, inBuf = sc.stripESC(text, i), true
		} else {
			text = stripESC(text, i)
		}
	}
	text = stripVisible(text)
	text = stripBareSGR(text)
	for {
		if n := len(text); n > 0 && text[n-1] == '\r' {
			text = text[:n-1]
		} else if n > 1 && text[n-2] == '^' && text[n-1] == 'M' {
			text = text[:n-2] // a carriage return as `cat -v` shows it
		} else {
			break
		}
	}
	// Most lines start with a byte no envelope, or no prefix, can start
	// with (a process tag's '(', a traceback's indentation, a message's
	// word): the table saves the calls. p is zero, so an empty origin
	// needs no store.
	var env envelope
	if len(text) >= 3 && lineStart[text[0]]&startsEnvelope != 0 {
		text = p.peelEnvelopes(text, year, &env)
		if env.origin != "" {
			p.Origin = env.origin
		}
	}
	p.full = text
	// A terminal's echo of the operator's Ctrl-C before the next line
	// the program printed ("^C2025-03-12 11:02:48 | ERROR | ..."): the
	// line's prefixes follow it (full keeps it: the stop it says).
	for len(text) > 2 && text[0] == '^' && text[1] == 'C' {
		text = text[2:]
	}
	for range 6 {
		if len(text) < 3 || lineStart[text[0]]&startsPrefix == 0 {
			break
		}
		rest, ok := p.eat(text, year)
		if !ok {
			break
		}
		if !p.childTag {
			p.Tagged = true
		}
		p.childTag = false
		text = rest
	}
	if line, ok := cutGRPCStream(text); ok {
		// LocalAI relays a backend's output at DEBUG: the line is the
		// backend's, with the backend's own prefix if any.
		p.Level, p.relayed = "", true
		text = eatPrefixes(line, year, p.eat)
	}
	p.Body = text
	if p.Level == "" && !p.relayed {
		p.headLevel(year, p.eat)
	}
	// A prefix's time is UTC, so a zero one is time.Time{}, and storing a
	// zero envelope time would change nothing (the store is not free
	// while the collector runs).
	if p.Time.IsZero() && env.time != (time.Time{}) {
		p.Time = env.time
	}
	if inBuf {
		sc.settle(p)
	}
}

// lineStart holds, for each first byte of a line, whether peelEnvelopes
// and eat have a reader for it (they return at once for the others, and
// eat then has no effect).
var lineStart = func() (t [256]uint8) {
	for c := range t {
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		digit := c >= '0' && c <= '9'
		if letter || digit || c == '{' || c == '<' || c == '[' || c == ' ' || c == '"' {
			t[c] |= startsEnvelope
		}
		if c >= 'A' && c <= 'Z' || digit || c == '(' || c == '[' || c == 't' {
			t[c] |= startsPrefix
		}
	}
	return t
}()

const (
	startsEnvelope = 1 << iota
	startsPrefix
)

// eat consumes one prefix from the start of s.
func (p *Prefix) eat(s string, year int) (string, bool) {
	if len(s) < 3 {
		return s, false
	}
	// Each reader is entered only when the bytes it first checks fit: most
	// lines end up here once more with their message, which none reads.
	switch c := s[0]; {
	case c == '(':
		return p.eatProcTag(s)
	case c == '[':
		if isDigit(s[1]) {
			// Only an MPI tag or a time starts with a digit: no rank or
			// level word, nor a glog level, does.
			if rest, ok := p.eatMPITag(s); ok {
				return rest, true
			}
			if rest, ok := p.eatBracketTime(s); ok {
				return rest, true
			}
			return p.eatChildTag(s)
		}
		if rest, ok := p.eatRankTag(s); ok {
			return rest, true
		}
		if rest, ok := p.eatBracketLevel(s); ok {
			return rest, true
		}
		if len(s) > 1 && isGlogLevel(s[1]) {
			if rest, ok := p.eatGlog(s[1:], year, ']'); ok {
				return rest, true
			}
		}
		return s, false
	case isDigit(c):
		if len(s) >= 19 && (s[4] == '-' || s[4] == '/') { // parseDateTime's first checks
			if rest, ok := p.eatDated(s); ok {
				return rest, true
			}
		}
		if len(s) >= 10 && s[2] == ':' {
			if rest, ok := p.eatClock(s); ok {
				return rest, true
			}
		}
		if s[1] == ':' || s[2] == ':' {
			if rest, ok := p.eatKitchen(s); ok {
				return rest, true
			}
		}
		return p.eatGGMLClock(s)
	case c == 't' && strings.HasPrefix(s, "time="):
		return p.eatLogfmt(s)
	case c >= 'A' && c <= 'Z':
		if s[1] >= 'A' && s[1] <= 'Z' { // a level word has four capitals at least
			if rest, ok := p.eatLevelWord(s, year); ok {
				return rest, true
			}
		} else if len(s) > 3 && s[3] == ' ' {
			if rest, ok := p.eatMonthLevel(s, year); ok {
				return rest, true
			}
		}
		if isGlogLevel(c) && isDigit(s[1]) {
			return p.eatGlog(s, year, 0)
		}
	}
	return s, false
}

// eatProcTag reads process tags: vLLM's "(EngineCore_DP0 pid=123) ", Ray's
// "(RayWorkerWrapper pid=2960, ip=10.1.1.1) " and "(pid=2960) ", and a
// wrapper's one-word tag such as "(Process) " (no source of its own).
func (p *Prefix) eatProcTag(s string) (string, bool) {
	end := indexByteWithin(s, ')', 97)
	if end < 2 || end > 96 {
		return s, false
	}
	tag := s[1:end]
	// The first "pid=" is where the first '=' with "pid" before it is; a
	// '=' before that one may be "rank=". Searching for the '=' of each
	// is quicker than searching for both words.
	pid, nameEq := -1, false
	for from := 0; ; {
		e := strings.IndexByte(tag[from:], '=')
		if e < 0 {
			break
		}
		e += from
		if e >= 3 && tag[e-3:e] == "pid" {
			pid = e - 3
			break
		}
		nameEq, from = true, e+1
	}
	if pid < 0 {
		if end <= 33 && end+1 < len(s) && s[end+1] == ' ' && isIdentLike(tag) && !allDigits(tag) {
			return s[end+2:], true
		}
		return s, false
	}
	// The pid is the digits up to a ',' or the ')'.
	j := pid + 4
	for j < len(tag) && isDigit(tag[j]) {
		j++
	}
	name := tag[:pid]
	if j == pid+4 || (j < len(tag) && tag[j] != ',') || (name != "" && name[len(name)-1] != ' ') {
		return s, false
	}
	if isASCII(tag) {
		p.Source = tag // what clean(tag, 96) returns: it is shorter and valid
	} else {
		p.Source = clean(tag, 96)
	}
	name = trimSpace(name)
	if r := rankSuffix(name); r != "" {
		p.Rank = r
	} else if nameEq {
		if _, r, ok := strings.Cut(name, "rank="); ok && allDigits(r) {
			p.Rank = "rank" + r // "(VllmWorker rank=1 pid=2445156)"
		}
	}
	return skipOneSpace(s[end+1:]), true
}

// isASCII reports whether s has no byte above 0x7f, eight bytes at a
// time: quicker than utf8.ValidString on the short tags it is asked about.
func isASCII(s string) bool {
	var or uint64
	for ; len(s) >= 8; s = s[8:] {
		or |= uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	}
	for i := 0; i < len(s); i++ {
		or |= uint64(s[i])
	}
	return or&0x8080808080808080 == 0
}

// trimSpace is strings.TrimSpace, quicker on the short ASCII words of
// prefixes: it trims ASCII white space itself, and leaves a word with a
// non-ASCII byte at either end, which may begin a Unicode space, to
// TrimSpace.
func trimSpace(s string) string {
	for len(s) > 0 && isASCIISpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	for len(s) > 0 && isASCIISpace(s[0]) {
		s = s[1:]
	}
	if len(s) > 0 && (s[0] >= 0x80 || s[len(s)-1] >= 0x80) {
		return strings.TrimSpace(s)
	}
	return s
}

func isASCIISpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// rankSuffix returns "TP0" from names such as "Worker_TP0" or "EngineCore_DP0".
func rankSuffix(name string) string {
	// A rank word ends in a digit and follows a '_': most names do not.
	if n := len(name); n < 4 || !isDigit(name[n-1]) {
		return ""
	}
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

func isRankWord(w string) bool {
	if len(w) < 3 {
		return false
	}
	switch w[:2] {
	case "TP", "DP", "PP", "EP", "CP", "SP":
		return allDigits(w[2:])
	}
	return false
}

// eatBracketTime reads SGLang's "[2026-01-12 05:01:25 DP7 TP7 EP7] ",
// similar bracketed timestamps, and spdlog's fields right after one.
func (p *Prefix) eatBracketTime(s string) (string, bool) {
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
	if rest := trimSpace(inner[n:]); rest != "" {
		var words [3]string // the first three fields, as strings.Fields finds them
		nw := 0
		for i, j := nextField(rest, 0); i < j; i, j = nextField(rest, j) {
			if nw < len(words) {
				words[nw] = rest[i:j]
			}
			nw++
		}
		if nw == 3 && len(words[0]) == 1 && isGlogLevel(words[0][0]) && isDigit(words[1][0]) {
			// Ray's C++ logger: "[2026-01-02 03:04:05,678 E 1234 5678] file.cc:12: msg"
			p.Level = glogLevel(words[0][0])
			return skipOneSpace(s[end+1:]), true
		}
		if r, _ := rankWords(rest); r != "" {
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

// eatSpdlogFields reads the bracketed fields that an spdlog pattern such as
// OpenVINO Model Server's "[%Y-%m-%d %H:%M:%S.%e][%t][%n][%l][%s:%#] %v"
// writes right after its time: a thread id, a logger name, a level and a
// source location, each without spaces, one of them a level word. It
// returns the level and the message.
func eatSpdlogFields(s string) (string, string, bool) {
	lv := ""
	for range 6 {
		if len(s) < 3 || s[0] != '[' {
			break
		}
		end := indexByteWithin(s, ']', 61)
		if end < 2 || end > 60 || strings.IndexByte(s[1:end], ' ') >= 0 || strings.IndexByte(s[1:end], '[') >= 0 {
			return "", "", false
		}
		if l := normLevel(s[1:end]); l != "" && lv == "" {
			lv = l
		}
		s = s[end+1:]
	}
	if lv == "" {
		return "", "", false
	}
	return lv, skipOneSpace(s), true
}

// rankWords is strings.Join of the rank words (isRankWord) among
// strings.Fields(s) with single spaces, and whether every field is one (at
// least one field). Without allocating when the rank words are all of s,
// single-spaced ("DP7 TP7 EP7"), as they are in the prefixes that have them.
func rankWords(s string) (string, bool) {
	n, fields := 0, 0
	from, to := -1, -1 // the span of s the rank words cover while they are contiguous
	contiguous := true
	for i, j := nextField(s, 0); i < j; i, j = nextField(s, j) {
		fields++
		if !isRankWord(s[i:j]) {
			if n > 0 {
				contiguous = false // a later rank word would not join onto the span
			}
			continue
		}
		switch {
		case n == 0:
			from = i
		case !contiguous || i != to+1 || s[to] != ' ':
			contiguous = false
		}
		to = j
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
	for i, j := nextField(s, 0); i < j; i, j = nextField(s, j) {
		if isRankWord(s[i:j]) {
			ranks = append(ranks, s[i:j])
		}
	}
	return strings.Join(ranks, " "), all
}

// nextField returns the bounds of the first field of s at or after i,
// split at white space as strings.Fields splits (ASCII bytes by
// isASCIISpace, others by unicode.IsSpace); both are len(s) when there is
// none. It walks fields by offset, where strings.FieldsSeq hands out words
// whose offsets would have to be searched for.
func nextField(s string, i int) (int, int) {
	for i < len(s) {
		size := 1
		if c := s[i]; c < utf8.RuneSelf {
			if !isASCIISpace(c) {
				break
			}
		} else {
			var r rune
			if r, size = utf8.DecodeRuneInString(s[i:]); !unicode.IsSpace(r) {
				break
			}
		}
		i += size
	}
	j := i
	for j < len(s) {
		size := 1
		if c := s[j]; c < utf8.RuneSelf {
			if isASCIISpace(c) {
				break
			}
		} else {
			var r rune
			if r, size = utf8.DecodeRuneInString(s[j:]); unicode.IsSpace(r) {
				break
			}
		}
		j += size
	}
	return i, j
}

// eatChildTag reads a bare bracketed number that starts a line, "[41873] ":
// llama-server's router forwards each model instance's output under its
// port, and runners such as npm's concurrently tag each child's lines with
// its index. The number names the process (Source); like a collector's
// envelope it says nothing of the child's own prefix, so it leaves Tagged
// alone.
func (p *Prefix) eatChildTag(s string) (string, bool) {
	if p.Source != "" {
		return s, false
	}
	end := indexByteWithin(s, ']', 9)
	if end < 2 || end+2 >= len(s) || s[end+1] != ' ' || s[end+2] == '[' || !allDigits(s[1:end]) {
		// Followed by another bracket it is a logger's pid field
		// (gunicorn's "[time] [7] [INFO] "), which eatBracketTime takes.
		return s, false
	}
	p.Source, p.childTag = s[:end+1], true
	return s[end+2:], true
}

// eatRankTag reads torch's "[rank0]:" tag and SGLang's bare "[TP0] " or
// "[DP2 TP2] " rank tags.
func (p *Prefix) eatRankTag(s string) (string, bool) {
	if end := indexByteWithin(s, ']', 40); end > 3 && end < 40 {
		if r, all := rankWords(s[1:end]); all {
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

// eatBracketLevel reads "[TensorRT-LLM][WARNING] ", "[WARNING] " and "[ERROR] ",
// and the thread and logger log4j's "%d [%-5p] %t %c - %m" writes after it.
func (p *Prefix) eatBracketLevel(s string) (string, bool) {
	rest := strings.TrimPrefix(s, "[TensorRT-LLM]")
	if !strings.HasPrefix(rest, "[") {
		return s, false
	}
	end := indexByteWithin(rest, ']', 11)
	if end < 2 || end > 10 {
		return s, false
	}
	lv := normLevel(rest[1:end])
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
	rest = skipQtTime(rest)
	return p.log4jMessage(rest), true
}

// skipQtTime skips the time Qt's default message pattern writes after the
// message type, "[%{type}] (%{time}): %{message}" (GPT4All's log:
// "[Warning] (Wed Jun 18 21:40:04 2025): msg").
func skipQtTime(rest string) string {
	if len(rest) < 12 || rest[0] != '(' {
		return rest
	}
	end := strings.Index(rest[:min(len(rest), 48)], "): ")
	if end < 10 || strings.Count(rest[:end], ":") < 2 || !strings.ContainsAny(rest[:end], "0123456789") {
		return rest
	}
	return rest[end+3:]
}

// log4jMessage is the message after a log4j level: the thread and logger
// dropped (skipLog4jThreadLogger, or a logger alone: DJL Serving's
// "[%-5level] %logger - %msg"). A model server's frontend relays its Python
// workers' output line by line, at INFO for stdout and WARN for stderr
// (TorchServe's thread "W-9000-m_1.0-stdout", DJL's message
// "W-231-model-stdout: line"): that level names the stream, not the line,
// so it goes, and the worker's line is read as the worker printed it.
func (p *Prefix) log4jMessage(s string) string {
	msg := skipLog4jThreadLogger(s)
	if msg != s {
		if isWorkerStream(s[:strings.IndexByte(s, ' ')]) {
			p.Level, p.relayed = "", true
		}
		return msg
	}
	msg = skipLog4jLogger(s)
	if line, ok := cutWorkerStream(msg); ok {
		p.Level, p.relayed = "", true
		return line
	}
	return msg
}

// cutWorkerStream is the worker's line after a relayed stream's tag that
// starts s ("W-231-model-stdout: line").
func cutWorkerStream(s string) (string, bool) {
	tag, _, ok := strings.Cut(s[:min(len(s), 120)], ": ")
	if !ok || !isWorkerStream(tag) {
		return s, false
	}
	return s[len(tag)+2:], true
}

// isWorkerStream reports a model server's name for a worker's output
// stream: "W-9000-acme_1.0-stdout", "W-231-model-stderr".
func isWorkerStream(s string) bool {
	return len(s) > len("W-1-stdout") && strings.HasPrefix(s, "W-") && isDigit(s[2]) &&
		(strings.HasSuffix(s, "-stdout") || strings.HasSuffix(s, "-stderr")) && strings.IndexByte(s, ' ') < 0
}

// skipLog4jLogger drops a log4j logger alone before " - " ("PyProcess - ",
// "ModelServer - ", "ai.djl.serving.Foo - "): a dotted name, or a class's
// simple name with two capitals at least, so that "Done - next" stays.
func skipLog4jLogger(s string) string {
	sp := strings.IndexByte(s[:min(len(s), 121)], ' ')
	if sp < 3 || !strings.HasPrefix(s[sp:], " - ") || !isLoggerName(s[:sp]) {
		return s
	}
	logger, caps := s[:sp], 0
	for i := 0; i < len(logger); i++ {
		if logger[i] >= 'A' && logger[i] <= 'Z' {
			caps++
		}
	}
	if !strings.Contains(logger, ".") && (caps < 2 || logger[0] < 'A' || logger[0] > 'Z') {
		return s
	}
	return s[sp+3:]
}

// eatLoguru reads loguru's default format after its time:
// " | ERROR    | module:function:12 - msg", and FastChat's (LLaVA's),
// which has the logger's name there: " | ERROR | stderr | msg".
func eatLoguru(rest string) (string, string, bool) {
	if !strings.HasPrefix(rest, " | ") {
		return "", "", false
	}
	bar := strings.Index(rest[3:], " | ")
	if bar < 1 || bar > 10 {
		return "", "", false
	}
	lv := normLevel(strings.TrimSpace(rest[3 : 3+bar]))
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

// relaysStream reports the logger name field of a process's relayed
// stream ("stderr | ", "stdout | "): FastChat's and LLaVA's StreamToLogger
// log a whole stream at one level (stderr at ERROR: warnings, progress
// bars and uvicorn's own INFO lines alike), so the line keeps the level
// its own words give it, if any.
func relaysStream(body string) bool {
	return strings.HasPrefix(body, "stderr |") || strings.HasPrefix(body, "stdout |")
}

// skipLoggerNameField drops the logger's name that FastChat's format
// ("%(asctime)s | %(levelname)s | %(name)s | %(message)s", also LLaVA's)
// writes between the level and the message: "stderr | msg" is "msg", and
// "stderr |" (an empty message, as a blank line re-logged) is "". Its
// StreamToLogger re-logs a process's whole stderr at ERROR under the name
// stderr, so a traceback's frames keep their indentation only without it.
func skipLoggerNameField(body string) (string, bool) {
	bar := strings.Index(body, " |")
	if bar < 1 || bar > 80 || !isLoggerName(body[:bar]) {
		return body, false
	}
	switch rest := body[bar+2:]; {
	case rest == "":
		return "", true
	case rest[0] == ' ':
		return rest[1:], true
	}
	return body, false
}

// eatDated reads prefixes that start with a date: TGI's RFC 3339 time and
// level, Python logging's "2026-04-05 16:52:19,388 - NAME - WARNING - ",
// "2026-03-27 20:55:46.396 DEBUG " and TensorFlow's "2025-10-14 19:22:02.871009: E file:1] ".
func (p *Prefix) eatDated(s string) (string, bool) {
	t, n := parseDateTime(s)
	if n == 0 {
		return s, false
	}
	rest := s[n:]
	if body, ok := p.eatTimeFields(t, rest); ok {
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
			if lv := normLevel(parts[1]); lv != "" {
				p.Time, p.Level = t, lv
				return skipSourceField(parts[2]), true
			}
		}
		if len(parts) >= 2 {
			if lv := normLevel(parts[0]); lv != "" {
				p.Time, p.Level = t, lv
				return strings.Join(parts[1:], " - "), true
			}
		}
		p.Time = t
		return rest[3:], true
	}
	if body, lv, ok := eatLoguru(rest); ok {
		// A relayed stream's level is dropped (relaysStream): headLevel
		// must not read it back from the line's head.
		p.Time, p.Level, p.relayed = t, lv, lv == ""
		return body, true
	}
	trimmed := strings.TrimLeft(rest, " ")
	if body, lv, ok := eatNamePidLevel(trimmed); ok {
		p.Time, p.Level = t, lv
		return body, true
	}
	if sp := strings.IndexByte(trimmed, ' '); sp > 0 && sp <= 8 {
		if lv := normLevel(trimmed[:sp]); lv != "" {
			if isVLLMClock(trimmed[sp+1:]) {
				// `kubectl logs --timestamps` before vLLM's "ERROR 07-02
				// 08:17:19 [core.py:571] ": the level belongs to vLLM's
				// prefix, which the next eat reads whole.
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

// isVLLMClock reports whether s starts with the "MM-DD HH:MM:SS" vLLM's
// logger writes after the level.
func isVLLMClock(s string) bool {
	return len(s) >= 15 && isDigit(s[0]) && s[2] == '-' && s[5] == ' ' && s[8] == ':'
}

// eatLogfmt reads Ollama's `time=... level=INFO source=... msg="..."`.
func (p *Prefix) eatLogfmt(s string) (string, bool) {
	i := strings.Index(s, " level=")
	if i < 0 || i > 60 {
		return s, false
	}
	if t, n := parseDateTime(s[5:]); n > 0 {
		p.Time = t
	}
	lvEnd := strings.IndexByte(s[i+7:], ' ')
	lv := s[i+7:]
	if lvEnd >= 0 {
		lv = lv[:lvEnd]
	}
	p.Level = normLevel(lv)
	p.Tagged = true
	// The message stays in the body: logfmt keeps it inside msg="...".
	return s, false
}

// skipLoggerName drops the logger's name that Python logging's default
// format ("%(levelname)s:%(name)s:%(message)s", logging.basicConfig's)
// writes after the level: "INFO:__main__:Ready" says "Ready". Only a
// dotted name of a logger's characters followed by a colon and the
// message: "ERROR:Exception in ASGI application" keeps its words, and a
// URL's or a time's colon is no name's.
func skipLoggerName(s string) string {
	i := strings.IndexByte(s[:min(len(s), 81)], ':')
	if i <= 0 || i+1 >= len(s) || !isLoggerName(s[:i]) || allDigits(s[:i]) || s[i+1] == '/' || isDigit(s[i+1]) {
		return s
	}
	return s[i+1:]
}

// eatLevelWord reads vLLM's "ERROR 08-03 21:49:23 [core.py:1231] ", NIM's
// "INFO 2024-07-02 17:52:36.112 file.py:152] " and uvicorn's "INFO:     ".
func (p *Prefix) eatLevelWord(s string, year int) (string, bool) {
	// The capitals are packed as normLevel packs a word while they are
	// scanned (they need neither trimming nor folding); a ninth lands on
	// the first, but no level word is that long.
	end := 0
	var x uint64
	for w := s[:min(len(s), 9)]; end < len(w); end++ {
		c := w[end]
		if c-'A' > 'Z'-'A' {
			break
		}
		x |= uint64(c) << (8 * uint(end&7))
	}
	if end < 4 || end >= len(s) {
		return s, false
	}
	lv := packedLevel(x, end)
	if lv == "" {
		return s, false
	}
	rest := s[end:]
	if rest[0] == ':' {
		// uvicorn: "INFO:     msg"
		p.Level = lv
		rest = rest[1:]
		if rest != "" && rest[0] != ' ' {
			return skipLoggerName(rest), true
		}
		for rest != "" && rest[0] == ' ' { // strings.TrimLeft(rest, " "), inline
			rest = rest[1:]
		}
		return rest, true
	}
	if rest[0] != ' ' {
		return s, false
	}
	rest = rest[1:]
	// vLLM: "MM-DD HH:MM:SS [file.py:123] "
	if isVLLMClock(rest) {
		mo, d := atoi2(rest[0:2]), atoi2(rest[3:5])
		h, mi, se := atoi2(rest[6:8]), atoi2(rest[9:11]), atoi2(rest[12:14])
		if year > 0 && mo >= 1 && mo <= 12 {
			p.Time = dateUTC(year, mo, d, h, mi, se, 0)
		}
		rest = rest[14:]
		rest = skipOneSpace(rest)
		// The searches are bounded to where a match is taken: the rest of
		// the line is the message, often long.
		if strings.HasPrefix(rest, "[") {
			if e := indexTagEnd(rest[:min(len(rest), 81)]); e > 0 {
				rest = rest[e+2:]
			} else if n := len(rest); n > 1 && rest[n-1] == ']' && strings.IndexByte(rest[:n-1], ']') < 0 {
				rest = "" // the line ends with its first ']'
			}
		} else if e := indexByteWithin(rest, ']', 80); e > 0 && isFileLineTag(rest[:e]) {
			// vLLM before 0.7: "MM-DD HH:MM:SS file.py:123] msg"
			rest = skipOneSpace(rest[e+1:])
		}
		p.Level = lv
		return rest, true
	}
	// NVIDIA NIM's containers (around vLLM and TensorRT-LLM): a full date
	// and the source tag, "2024-07-02 17:52:36.112 file.py:152] msg". The
	// level may be padded ("%(levelname)-8s").
	rest = skipLevelPad(rest)
	if t, n := parseDateTime(rest); n > 0 && n < len(rest) && rest[n] == ' ' {
		tail := rest[n+1:]
		if e := indexByteWithin(tail, ']', 80); e > 0 && isFileLineTag(tail[:e]) {
			p.Time, p.Level = t, lv
			return skipOneSpace(tail[e+1:]), true
		}
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

// skipLevelPad skips the spaces a padded level name leaves before the
// next field ("ERROR    2025-..."): at most seven, the widest padding of
// "%(levelname)-8s".
func skipLevelPad(s string) string {
	for k := 0; k < 7 && s != "" && s[0] == ' '; k++ {
		s = s[1:]
	}
	return s
}

// pidFileLineBracket reads what PaddlePaddle's loggers (FastDeploy,
// PaddleNLP) write between the time and the message: "%(process)-5s
// %(filename)s[line:%(lineno)d] ", so "7     engine.py[line:151] msg".
func pidFileLineBracket(s string) (string, bool) {
	i := 0
	for i < len(s) && i < 10 && isDigit(s[i]) {
		i++
	}
	if i == 0 || i == len(s) || s[i] != ' ' {
		return s, false
	}
	for i < len(s) && s[i] == ' ' {
		i++
	}
	tag := s[i:]
	e := indexByteWithin(tag, ']', 100)
	if e < 0 {
		return s, false
	}
	file, line, ok := strings.Cut(tag[:e], "[line:")
	if !ok || len(file) < 4 || !strings.HasSuffix(file, ".py") || strings.IndexByte(file, ' ') >= 0 || line == "" || !allDigits(line) {
		return s, false
	}
	return skipOneSpace(tag[e+1:]), true
}

// rayServeComponent reads what Ray Serve's log format writes between the
// time and the message (ray/serve/_private/logging_utils.py: "LEVEL
// YYYY-MM-DD HH:MM:SS,mmm COMPONENT ID -- msg", and in releases before 2.9
// "COMPONENT ID file.py:N - msg"): the component ("controller", "proxy",
// "serve", a replica's deployment), its id, and the separator.
func rayServeComponent(s string) (string, bool) {
	comp, rest, ok := strings.Cut(s[:min(len(s), 160)], " ")
	if !ok || comp == "" || !isLoggerName(comp) {
		return s, false
	}
	id, rest, ok := strings.Cut(rest, " ")
	// The id is a pid, an address or a replica's id: it has a digit.
	if !ok || id == "" || strings.ContainsAny(id, "[]:") || !strings.ContainsAny(id, "0123456789") {
		return s, false
	}
	if strings.HasPrefix(rest, "-- ") {
		return s[len(comp)+len(id)+5:], true
	}
	file, rest, ok := strings.Cut(rest, " ")
	if ok && strings.HasPrefix(rest, "- ") && isFileLineTag(file) {
		return s[len(comp)+len(id)+len(file)+5:], true
	}
	return s, false
}

// skipLog4jThreadLogger drops the thread and logger that log4j's
// "%d [%-5p] %t %c - %m" (TorchServe's frontend) writes between the level
// and the message: "W-9000-m_1.0-stdout MODEL_LOG - msg" and "main
// org.pytorch.serve.ModelServer - msg". The logger must look like one (a
// dotted class or an UPPER_CASE name) and the thread like a thread name (a
// digit or '-' in it, or "main"), so that "Loading model - wait" stays.
func skipLog4jThreadLogger(s string) string {
	sp := strings.IndexByte(s, ' ')
	if sp < 1 || sp > 80 {
		return s
	}
	thread, rest := s[:sp], s[sp+1:]
	sp = strings.IndexByte(rest, ' ')
	if sp < 3 || sp > 120 || !strings.HasPrefix(rest[sp:], " - ") {
		return s
	}
	logger := rest[:sp]
	if !isLoggerName(logger) || !isLoggerName(thread) ||
		!(strings.Contains(thread, "-") || strings.ContainsAny(thread, "0123456789") || thread == "main") {
		return s
	}
	if !strings.Contains(logger, ".") && strings.ToUpper(logger) != logger {
		return s
	}
	return rest[sp+3:]
}

// indexTagEnd is strings.Index(s, "] ") by the ']', which is mostly the
// first one: a search for the byte is quicker than for the pair.
func indexTagEnd(s string) int {
	for from := 0; ; {
		e := strings.IndexByte(s[from:], ']')
		if e < 0 {
			return -1
		}
		e += from
		if e+1 < len(s) && s[e+1] == ' ' {
			return e
		}
		from = e + 1
	}
}

// eatGlog reads glog/absl prefixes: "E0000 00:00:1760469722.892123    4394 cuda_dnn.cc:8579] "
// and "W0803 21:48:43.773000 6890 torch/_inductor/utils.py:1731] ". When
// closer is ']' the prefix started with '[' (torch's "[W803 21:49:24.248 file.cpp:1575] ").
func (p *Prefix) eatGlog(s string, year int, closer byte) (string, bool) {
	if len(s) < 10 || !isGlogLevel(s[0]) || !isDigit(s[1]) {
		return s, false
	}
	end := indexByteWithin(s, ']', 161)
	if end < 0 || end > 160 {
		return s, false
	}
	// Require "HH:MM:SS" inside.
	head := s[:end]
	if strings.IndexByte(head, ':') < 0 || strings.IndexByte(head, ' ') < 0 {
		return s, false
	}
	p.Level = glogLevel(s[0])
	return unquoteGlogBody(skipOneSpace(s[end+1:])), true
}

// eatGlogTail reads what follows a glog level and time: "<pid> <file>:<line>] "
// and returns the (unquoted) message. The pid is digits and the file a word
// with a ":<line>" suffix, so a sentence that starts with a number is no prefix.
func eatGlogTail(s string) (string, bool) {
	sp := strings.IndexByte(s, ' ')
	if sp < 1 || sp > 10 || !allDigits(s[:sp]) {
		return s, false
	}
	file := s[sp+1:]
	end := indexByteWithin(file, ']', 121)
	if end < 3 || end > 120 {
		return s, false
	}
	c := strings.LastIndexByte(file[:end], ':')
	if c < 1 || c == end-1 || !allDigits(file[c+1:end]) || strings.IndexByte(file[:c], ' ') >= 0 {
		return s, false
	}
	return unquoteGlogBody(skipOneSpace(file[end+1:])), true
}

func hasGlogTail(s string) bool {
	_, ok := eatGlogTail(s)
	return ok
}

// unquoteGlogBody undoes the quoting of Triton Inference Server's logger
// (24.x and later): it writes the message as a quoted string, `] "Started
// HTTPService at 0.0.0.0:8000"`, escaping quotes, backslashes and newlines.
// The body is the message itself so that signatures anchored at its end
// match in both formats; escaped newlines stay as the two characters.
func unquoteGlogBody(b string) string {
	n := len(b)
	for n > 0 && (b[n-1] == ' ' || b[n-1] == '\r') {
		n--
	}
	if n < 2 || b[0] != '"' || b[n-1] != '"' {
		return b
	}
	b = b[1 : n-1]
	if strings.IndexByte(b, '\\') >= 0 {
		b = glogUnescaper.Replace(b)
	}
	return b
}

var glogUnescaper = strings.NewReplacer(`\"`, `"`, `\\`, `\`)

// letterLevel is the level a logging format's one-letter level field
// names (Python's %(levelname).1s: D I W E C; glog's F), "" if none.
func letterLevel(c byte) string {
	switch c {
	case 'D':
		return "DEBUG"
	case 'C':
		return "CRITICAL"
	}
	return glogLevel(c)
}

// eatTimeFields reads what follows a parsed time t in the formats read
// since the reference parse was frozen (prefix_parse_ref_test.go shares
// it): zap's tab-separated console encoder, a log viewer's time-tab copy
// (Grafana's Explore, a Loki query: the time, a tab, the line as the
// server wrote it) and Python's "%(levelname).1s [%(process)d] %(name)s - ".
func (p *Prefix) eatTimeFields(t time.Time, rest string) (string, bool) {
	if len(rest) > 5 && rest[0] == '\t' {
		if body, lv, ok := eatTabFields(rest); ok {
			p.Time, p.Level = t, lv
			return body, true
		}
		p.Time = t
		if col, body, ok := eatTabColumn(rest[1:]); ok {
			// A log explorer's row with a column between the time and
			// the line (the replica or pod): that column is the origin.
			if p.Origin == "" {
				p.Origin = col
			}
			return body, true
		}
		return rest[1:], true
	}
	if len(rest) > 6 && rest[0] == ' ' && rest[2] == ' ' && rest[3] == '[' && letterLevel(rest[1]) != "" {
		if body, lv, ok := eatLetterPidLogger(rest); ok {
			p.Time, p.Level = t, lv
			return body, true
		}
	}
	return rest, false
}

// eatTabColumn reads a name column and its tab at the start of s (a log
// explorer's "replica" or "pod" column: "r-acme-6f8d9c7b5-2k7qp\tmsg"):
// a word of a container's name bytes, 3 to 128 long.
func eatTabColumn(s string) (col, body string, ok bool) {
	i := 0
	for i < len(s) && i <= 128 && isNameByte(s[i]) {
		i++
	}
	if i < 3 || i > 128 || i >= len(s) || s[i] != '\t' {
		return "", s, false
	}
	return s[:i], s[i+1:], true
}

// eatTabFields reads what follows a time in zap's console encoder,
// "\tERROR\tsetup\tmain.go:105\tunable to load config file\t{...}": the
// level, then the logger's name and the caller when the encoder writes
// them (fields without a space, each before another tab), then the
// message with its JSON fields.
func eatTabFields(rest string) (body, level string, ok bool) {
	end := strings.IndexByte(rest[1:], '\t')
	if end < 3 || end > 9 {
		return eatRayFields(rest)
	}
	level = normLevel(rest[1 : 1+end])
	if level == "" {
		return "", "", false
	}
	body = rest[end+2:]
	for range 2 {
		tab := strings.IndexByte(body, '\t')
		if tab <= 0 || tab > 80 || strings.IndexByte(body[:tab], ' ') >= 0 || tab+1 == len(body) {
			break
		}
		body = body[tab+1:]
	}
	return body, level, true
}

// eatRayFields reads what follows a time in Ray's logging format,
// "%(asctime)s\t%(levelname)s %(filename)s:%(lineno)s -- %(message)s":
// "\tERROR services.py:1329 -- Failed to start the dashboard".
func eatRayFields(rest string) (body, level string, ok bool) {
	sp := strings.IndexByte(rest, ' ')
	if sp < 4 || sp > 10 {
		return "", "", false
	}
	level = normLevel(rest[1:sp])
	src, msg, found := strings.Cut(rest[sp+1:], " --")
	if level == "" || !found || strings.IndexByte(src, ' ') >= 0 || strings.IndexByte(src, ':') < 1 {
		return "", "", false
	}
	return strings.TrimPrefix(msg, " "), level, true
}

// eatLetterPidLogger reads what follows a time in Python's
// "%(asctime)s %(levelname).1s [%(process)d] %(name)s - %(message)s"
// (Azure ML's inference server, gunicorn-hosted apps): " E [118]
// azmlinfsrv - msg". The logger goes when " - " follows it.
func eatLetterPidLogger(rest string) (body, level string, ok bool) {
	end := strings.IndexByte(rest, ']')
	if end < 5 || end > 12 || !allDigits(rest[4:end]) || end+1 >= len(rest) || rest[end+1] != ' ' {
		return "", "", false
	}
	body = rest[end+2:]
	if sp := strings.IndexByte(body[:min(len(body), 81)], ' '); sp > 0 && strings.HasPrefix(body[sp:], " - ") {
		body = body[sp+3:]
	}
	return body, letterLevel(rest[1]), true
}

func isGlogLevel(c byte) bool { return c == 'I' || c == 'W' || c == 'E' || c == 'F' }

func glogLevel(c byte) string {
	switch c {
	case 'I':
		return "INFO"
	case 'W':
		return "WARNING"
	case 'E':
		return "ERROR"
	case 'F':
		return "FATAL"
	}
	return ""
}

// normLevel maps a level word to its canonical name, "" if it is not one.
// The word's bytes with bit 5 cleared are compared as one number: clearing
// it upper-cases a-z and, since every name is letters, no other byte can
// turn into one of a name's.
func normLevel(w string) string {
	w = trimSpace(w)
	if len(w) < 3 || len(w) > 8 {
		return ""
	}
	var x uint64
	for i := 0; i < len(w); i++ {
		x |= uint64(w[i]&^0x20) << (8 * i)
	}
	return packedLevel(x, len(w))
}

// packedLevel is the level named by the n-byte word packed in x as
// normLevel packs it, "" if none (and for n outside 3..8).
func packedLevel(x uint64, n int) string {
	switch n {
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

// The level words as normLevel packs them: byte i at bits 8i.
var (
	lvERR      = packLevel("ERR")
	lvINFO     = packLevel("INFO")
	lvWARN     = packLevel("WARN")
	lvERROR    = packLevel("ERROR")
	lvFATAL    = packLevel("FATAL")
	lvDEBUG    = packLevel("DEBUG")
	lvTRACE    = packLevel("TRACE")
	lvWARNING  = packLevel("WARNING")
	lvVERBOSE  = packLevel("VERBOSE")
	lvCRITICAL = packLevel("CRITICAL")
)

func packLevel(w string) uint64 {
	var x uint64
	for i := 0; i < len(w); i++ {
		x |= uint64(w[i]) << (8 * i)
	}
	return x
}

// parseDateTime reads "YYYY-MM-DD[ T]HH:MM:SS" (or Go's "YYYY/MM/DD HH:MM:SS") with optional fraction
// (. or ,) and optional Z, and returns the time and the bytes consumed.
func parseDateTime(s string) (time.Time, int) {
	// The date is ISO's "2006-01-02" or Go's log package's "2006/01/02".
	if len(s) < 19 || (s[4] != '-' || s[7] != '-') && (s[4] != '/' || s[7] != '/' || s[10] != ' ') || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return time.Time{}, 0
	}
	y, ok := num2(s[0], s[1])
	y2, ok2 := num2(s[2], s[3])
	mo, ok3 := num2(s[5], s[6])
	d, ok4 := num2(s[8], s[9])
	h, ok5 := num2(s[11], s[12])
	mi, ok6 := num2(s[14], s[15])
	se, ok7 := num2(s[17], s[18])
	if !(ok && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
		return time.Time{}, 0
	}
	y = y*100 + y2
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
	t := dateUTC(y, mo, d, h, mi, se, ns)
	if off != 0 {
		t = t.Add(-off)
	}
	return t, n
}

func atoi2(s string) int { return int(s[0]-'0')*10 + int(s[1]-'0') }

// num2 reads two decimal digits; ok is false unless both are digits (a
// byte below '0' wraps around to above 9).
func num2(a, b byte) (n int, ok bool) {
	a, b = a-'0', b-'0'
	return int(a)*10 + int(b), a <= 9 && b <= 9
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func skipOneSpace(s string) string {
	if strings.HasPrefix(s, " ") {
		return s[1:]
	}
	return s
}

// hasColour reports whether s holds a colour code: a real ESC sequence, or
// one written as visible text, "^[[1;36m" (caret notation, as `cat -v` and
// terminal copies show it) or "\u241b[1;36m" (the ESC symbol).
func hasColour(s string) bool {
	if strings.IndexByte(s, 0x1b) >= 0 {
		return true
	}
	caret, symbol := csiForms(s)
	return caret || symbol
}

// csiForms reports whether s holds "^[[" and whether it holds "\u241b["
// (bytes E2 90 9B '['), in one search for the '[' both end in: lines have
// about one '[', and searching the whole line for the rare '^' and 0x9B
// as well cost two more passes over every line. When caret is true,
// symbol is not known (stripping the carets may make one).
func csiForms(s string) (caret, symbol bool) {
	for i := 2; i < len(s); {
		j := strings.IndexByte(s[i:], '[')
		if j < 0 {
			break
		}
		j += i
		switch s[j-1] {
		case '[':
			if s[j-2] == '^' {
				return true, false
			}
		case 0x9b:
			symbol = symbol || j >= 3 && s[j-2] == 0x90 && s[j-3] == 0xe2
		}
		i = j + 1
	}
	return false, symbol
}

// hasSymbolCSI reports whether s holds "\u241b[" (bytes E2 90 9B '['),
// looking for its rare last byte 0x9B rather than for E2, which every
// tqdm bar and curly quote has.
func hasSymbolCSI(s string) bool {
	for {
		i := strings.IndexByte(s, 0x9b)
		if i < 0 || i+1 >= len(s) {
			return false
		}
		if i >= 2 && s[i-2] == 0xe2 && s[i-1] == 0x90 && s[i+1] == '[' {
			return true
		}
		s = s[i+1:]
	}
}

// stripANSI removes ANSI CSI sequences such as "\x1b[1;36m", also when
// written as "^[[1;36m" or "\u241b[1;36m", and drops a lone ESC. On a line
// without any it costs two searches.
func stripANSI(s string) string {
	if i := strings.IndexByte(s, 0x1b); i >= 0 {
		s = stripESC(s, i)
	}
	return stripVisible(s)
}

// stripVisible is stripANSI of a line without ESC: the codes written as
// "^[[1;36m" or "\u241b[1;36m".
func stripVisible(s string) string {
	caret, symbol := csiForms(s)
	if caret {
		s = stripIntro(s, "^[")
		symbol = hasSymbolCSI(s)
	}
	if symbol {
		s = stripIntro(s, "\u241b")
	}
	return s
}

// stripESC is stripIntro(s, "\x1b") for the first ESC at i, without
// searching for it again: real escapes are the common colour codes.
func stripESC(s string, i int) string {
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		rest := s[i+1:]
		if rest != "" && rest[0] == '[' {
			j := 1
			for j < len(rest) && (rest[j] < 0x40 || rest[j] > 0x7e) {
				j++
			}
			rest = rest[min(j+1, len(rest)):]
		}
		s = rest
		i = strings.IndexByte(s, 0x1b)
	}
	b.WriteString(s)
	return b.String()
}

// stripBareSGR removes colour codes whose ESC a copy dropped ("[2m2025-05-06T07:08:09Z[0m [32m INFO[0m msg"):
// on a line with a reset "[0m" and one more code at least, every "[" digits and ';' "m" is one.
func stripBareSGR(s string) string {
	i := strings.Index(s, "[0m")
	if i < 0 {
		return s
	}
	codes := 0
	for j := 0; j < len(s); {
		k := strings.IndexByte(s[j:], '[')
		if k < 0 {
			break
		}
		if n := sgrLen(s[j+k:]); n > 0 {
			codes++
			j += k + n
			continue
		}
		j += k + 1
	}
	if codes < 2 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for j := 0; j < len(s); {
		k := strings.IndexByte(s[j:], '[')
		if k < 0 {
			b.WriteString(s[j:])
			break
		}
		b.WriteString(s[j : j+k])
		if n := sgrLen(s[j+k:]); n > 0 {
			j += k + n
			continue
		}
		b.WriteByte('[')
		j += k + 1
	}
	return b.String()
}

// sgrLen is the length of a colour code without its ESC at the start of
// s ("[1;32m"), 0 if s does not start with one.
func sgrLen(s string) int {
	for n := 1; n < len(s) && n <= 16; n++ {
		switch c := s[n]; {
		case c == 'm':
			if n > 1 {
				return n + 1
			}
			return 0
		case isDigit(c) || c == ';':
		default:
			return 0
		}
	}
	return 0
}

// stripIntro removes the CSI sequences that start with intro (one way of
// writing ESC): intro, '[', parameter bytes, a final byte in 0x40..0x7e.
func stripIntro(s, intro string) string {
	i := strings.Index(s, intro)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		rest := s[i+len(intro):]
		switch {
		case strings.HasPrefix(rest, "["):
			j := 1
			for j < len(rest) && (rest[j] < 0x40 || rest[j] > 0x7e) {
				j++
			}
			rest = rest[min(j+1, len(rest)):]
		case intro != "\x1b":
			b.WriteString(intro) // "^[" before anything but '[' is text
		}
		s = rest
		i = strings.Index(s, intro)
	}
	b.WriteString(s)
	return b.String()
}

// indexByteWithin is strings.IndexByte(s, c) when that is below n, else -1:
// prefix fields are short, so a long line is not searched to its end for a
// closing bracket that could not be accepted anyway.
func indexByteWithin(s string, c byte, n int) int {
	return strings.IndexByte(s[:min(len(s), n)], c)
}

// isFileLineTag reports a logger's "file.py:123" source tag.
func isFileLineTag(s string) bool {
	c := strings.LastIndexByte(s, ':')
	if c < 4 || c == len(s)-1 || !strings.HasSuffix(s[:c], ".py") {
		return false
	}
	for i := c + 1; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	for i := 0; i < c; i++ {
		if b := s[i]; b == ' ' || b == '[' || b == ']' {
			return false
		}
	}
	return true
}

// headLevel reads the level of a logger whose format no reader knows, from
// the head of the line: a level word in capitals ("ERROR", "WARN", "ERR")
// or "level=error", after nothing but fields that read as a prefix's (a
// time or date, a pid, a bracketed tag such as "[main]", separators, a
// month's name, AM/PM), at most five of them and within the first 100
// bytes. "2025/12/02 09:16:40 [ERROR] msg", "[main] ERROR c.a.Foo - msg",
// "[2025-12-02T09:16:40Z ERROR engine] msg". A word of a message before it
// ("Tests: 1 ERROR") and a table's row ("| 3 | ERROR |") are not a prefix.
// When the level word is still in the body, the body starts after it (and
// after a log4j logger and a separator); otherwise a reader took the body
// past it, and the body stays.
//
// A worker's relayed stream after the level ("WARN  PyProcess
// W-188-chat-stderr: ERROR 03-14 ... msg", DJL Serving's older pattern)
// drops the level, as log4jMessage does, and the worker's own prefix is
// read with eat.
func (p *Prefix) headLevel(year int, eat func(string, int) (string, bool)) {
	full := p.full
	if full == "" {
		return
	}
	// Most lines without a level start with a message's word: a quick
	// look at its first bytes rules it out.
	switch c := full[0]; {
	case c == ' ' || c == '\t' || c == '|':
		return
	case c >= 'a' && c <= 'z':
		if !strings.HasPrefix(full, "level=") {
			return
		}
	case c >= 'A' && c <= 'Z' && len(full) > 1 && full[1] >= 'a' && full[1] <= 'z':
		if len(full) < 4 || full[3] != ' ' || !isPrefixField(full[:3]) { // a month's name
			return
		}
	}
	head := full[:min(len(full), 100)]
	for i, n := 0, 0; i < len(head) && n <= 5; n++ {
		for i < len(head) && head[i] == ' ' {
			i++
		}
		j := i
		for j < len(head) && head[j] != ' ' {
			j++
		}
		if j == len(head) && j < len(full) {
			return // a token cut by the head's end
		}
		tok := head[i:j]
		if lv := headLevelWord(tok, n == 0 && j+1 < len(head) && isDigit(head[j+1])); lv != "" {
			p.Level, p.Tagged = lv, true
			if at := len(full) - len(p.Body); at <= i {
				// The body still holds the level word: it starts after it.
				rest := skipSeparator(full[j:])
				if line, ok := relayedLine(rest); ok {
					// The relayed line's own prefix (read by eat) gives
					// its level: the relay's is dropped first.
					p.Level, p.relayed = "", true
					p.Body = eatPrefixes(line, year, eat)
					return
				}
				p.Body = skipLog4jLogger(rest)
			}
			return
		}
		if !isPrefixField(tok) {
			return
		}
		i = j
	}
}

// eatPrefixes eats the prefixes of a relayed line with eat (the fast
// parse's or the reference's), as many as parse reads of a line's own.
func eatPrefixes(text string, year int, eat func(string, int) (string, bool)) string {
	for range 6 {
		rest, ok := eat(text, year)
		if !ok {
			break
		}
		text = rest
	}
	return text
}

// cutGRPCStream is the backend's line LocalAI relays from a gRPC backend
// process's output stream: "GRPC(model-127.0.0.1:37415): stderr line".
func cutGRPCStream(s string) (string, bool) {
	if len(s) < 16 || s[0] != 'G' || !strings.HasPrefix(s, "GRPC(") {
		return s, false
	}
	end := strings.Index(s[:min(len(s), 260)], "): ")
	if end < 6 {
		return s, false
	}
	rest := s[end+3:]
	for _, stream := range [...]string{"stderr", "stdout"} {
		if line, ok := strings.CutPrefix(rest, stream); ok && (line == "" || line[0] == ' ') {
			return strings.TrimPrefix(line, " "), true
		}
	}
	return s, false
}

// relayedLine is the line a model server relays from a worker's output
// stream after its logger's name: "PyProcess W-188-chat-stderr: line".
func relayedLine(s string) (string, bool) {
	logger, _, ok := strings.Cut(s[:min(len(s), 160)], " ")
	if !ok || !isLoggerName(logger) {
		return s, false
	}
	if line, ok := cutWorkerStream(s[len(logger)+1:]); ok {
		return line, true
	}
	return s, false
}

// headLevelWord is the level a head token names: a level word in capitals
// with its brackets or separator ("[ERROR]", "ERROR:", "<ERROR>"),
// "level=error", or, as the first token before a number, a glog-style
// letter ("E 2025-12-02 ..."); "" if none.
func headLevelWord(tok string, letterOK bool) string {
	if tok == "" {
		return ""
	}
	if tok[0] == 'l' {
		if v, ok := strings.CutPrefix(tok, "level="); ok {
			return normLevel(strings.Trim(v, `"`))
		}
		return ""
	}
	for tok != "" && (tok[0] == '[' || tok[0] == '(' || tok[0] == '<') {
		tok = tok[1:]
	}
	if tok == "" || tok[0] < 'A' || tok[0] > 'Z' {
		return "" // no level word starts otherwise: the common case
	}
	for n := len(tok); n > 0 && strings.IndexByte("])>:|,;", tok[n-1]) >= 0; n = len(tok) {
		tok = tok[:n-1]
	}
	if len(tok) == 1 && letterOK {
		switch tok {
		case "E":
			return "ERROR"
		case "W":
			return "WARNING"
		case "I":
			return "INFO"
		case "F":
			return "FATAL"
		}
		return ""
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < 'A' || tok[i] > 'Z' {
			return ""
		}
	}
	return normLevel(tok)
}

// isPrefixField reports a token that reads as a field of a log prefix: it
// holds a digit (a time, a date, a pid), is only punctuation ("-", "|",
// "---"), is a bracketed or parenthesised tag ("[main]", "(worker)"), a
// month's name or AM/PM.
func isPrefixField(tok string) bool {
	if tok == "" {
		return false
	}
	if tok[0] == '[' || tok[0] == '(' {
		return true
	}
	punct := true
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if isDigit(c) {
			return true
		}
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= 0x80 {
			punct = false
		}
	}
	if punct {
		return true
	}
	switch tok {
	case "AM", "PM", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec":
		return true
	}
	return false
}

// skipSeparator skips what a log format puts between a level and the
// message: the rest of its bracket or separator and spaces ("] ", " - ",
// " | ", ": ").
func skipSeparator(s string) string {
	for k := 0; k < 12 && s != ""; k++ {
		switch s[0] {
		case ' ', ']', ')', '>', ':', '|', '-':
			if s[0] == '-' && len(s) > 1 && s[1] != ' ' {
				return s // "-x" starts the message
			}
			s = s[1:]
		default:
			return s
		}
	}
	return s
}
