package classify

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// JSON lines, the last kind of envelope: a collector's record that carries
// the server's line (Docker json-file and fluentd's {"log": ...},
// journalctl -o json's {"MESSAGE": ...}, Google Cloud Logging's
// {"textPayload": ...}), or a log record the server wrote
// itself as JSON. Field names are the ones these loggers write:
//
//	tracing-subscriber (TGI --json-output)  timestamp, level, target, fields.message, span, filename, line_number
//	python-json-logger (vLLM, uvicorn)      message, levelname, asctime, name, exc_info
//	loguru serialize=True                   text, record.message, record.level.name, record.time.repr, record.exception
//	llama.cpp / llamafile server            timestamp (unix seconds), level (INFO, WARN, ERR), function, line, msg
//	Go log/slog (Ollama), zap               time/ts, level, msg, source/caller, other attributes
//	pino, bunyan                            time (unix ms), level (30 info, 50 error), msg
//
// A record's level becomes the line's level and its message the body,
// rendered the way the same logger's text format would print it (tracing:
// "target: file:line: message k=v"; slog and llama.cpp: "message k=v"),
// so the signatures written for the text formats match.

// maxJSONLine bounds the line length decoded as JSON.
const maxJSONLine = 1 << 20

// peelJSON reads a JSON line. A collector's record returns the line inside
// it for further peeling; a log record sets p.Level, env.time and
// env.record and returns its rendered message.
func (p *Prefix) peelJSON(s string, env *envelope) (string, bool) {
	t := strings.TrimRight(s, " \t")
	if len(t) < 8 || len(t) > maxJSONLine || t[len(t)-1] != '}' || (t[1] != '"' && t[1] != ' ') {
		return s, false
	}
	// Docker json-file writes "log" first: decoding into a struct is
	// several times cheaper than into a map, and such files have one
	// record per line the server printed.
	if strings.HasPrefix(t, `{"log":"`) {
		if rec, ok := scanDockerRecord(t); ok {
			return rec.peel(env), true
		}
		var rec collectorRecord
		if json.Unmarshal([]byte(t), &rec) == nil && rec.Log != nil && (rec.Stream != "" || rec.Time != "") {
			return rec.peel(env), true
		}
	}
	var rec map[string]any
	if json.Unmarshal([]byte(t), &rec) != nil {
		return s, false
	}
	// Docker json-file, fluentd, Fluent Bit: {"log": "line\n", "stream": ..., "time": ...}.
	if log, ok := rec["log"].(string); ok && (rec["stream"] != nil || rec["time"] != nil) {
		c := collectorRecord{Log: &log}
		c.Time, _ = rec["time"].(string)
		if k, ok := rec["kubernetes"].(map[string]any); ok {
			c.Kubernetes.Pod, _ = k["pod_name"].(string)
			c.Kubernetes.Container, _ = k["container_name"].(string)
		}
		return c.peel(env), true
	}
	// journalctl -o json: the fields of the journal entry.
	if msg, ok := rec["MESSAGE"].(string); ok {
		if us, ok := rec["__REALTIME_TIMESTAMP"].(string); ok {
			if n, err := strconv.ParseInt(us, 10, 64); err == nil {
				env.time = time.UnixMicro(n).UTC()
			}
		}
		host, _ := rec["_HOSTNAME"].(string)
		ident, _ := rec["SYSLOG_IDENTIFIER"].(string)
		pid, _ := rec["_PID"].(string)
		env.addOrigin(procID(host, ident, pid))
		return msg, true
	}
	// Google Cloud Logging's record of a container's line (a Logs Explorer
	// export): {"textPayload": "<line>", "timestamp": ..., "resource":
	// {"labels": {"pod_name": ..., "container_name": ...}}, "severity": ...}.
	// Its severity is the agent's guess from the stream (stderr is ERROR),
	// not the server's level: the line inside says the level.
	if msg, ok := rec["textPayload"].(string); ok {
		c := collectorRecord{Log: &msg}
		c.Time, _ = rec["timestamp"].(string)
		if r, ok := rec["resource"].(map[string]any); ok {
			if l, ok := r["labels"].(map[string]any); ok {
				c.Kubernetes.Pod, _ = l["pod_name"].(string)
				c.Kubernetes.Container, _ = l["container_name"].(string)
			}
		}
		return c.peel(env), true
	}
	// The same export of a structured record: the agent parsed the
	// server's JSON line into "jsonPayload" and moved its level to the
	// record's "severity" (its time to "timestamp"): the record read is
	// the payload, with them.
	if jp, ok := rec["jsonPayload"].(map[string]any); ok {
		if ts, ok := rec["timestamp"].(string); ok {
			if t, n := parseDateTime(ts); n > 0 {
				env.time = t
			}
		}
		if _, ok := jp["severity"]; !ok {
			if sev, ok := rec["severity"].(string); ok {
				jp["severity"] = sev
			}
		}
		return p.readRecord(jp, env)
	}
	return p.readRecord(rec, env)
}

// collectorRecord is a line as Docker's json-file driver, fluentd or
// Fluent Bit store it.
type collectorRecord struct {
	Log        *string `json:"log"`
	Stream     string  `json:"stream"`
	Time       string  `json:"time"`
	Kubernetes struct {
		Pod       string `json:"pod_name"`
		Container string `json:"container_name"`
	} `json:"kubernetes"`
}

// peel returns the line inside the record; the stream is not an origin.
func (c *collectorRecord) peel(env *envelope) string {
	if t, n := parseDateTime(c.Time); n > 0 {
		env.time = t
	}
	if c.Kubernetes.Pod != "" {
		env.addOrigin("pod/" + c.Kubernetes.Pod + "/" + c.Kubernetes.Container)
	}
	return strings.TrimRight(*c.Log, "\r\n")
}

// scanDockerRecord reads exactly what Docker's json-file driver writes,
// {"log":"...","stream":"...","time":"..."}, without reflection; anything
// else (labels in "attrs", other key orders) is left to encoding/json.
func scanDockerRecord(s string) (collectorRecord, bool) {
	var c collectorRecord
	log, rest, ok := jsonString(s[len(`{"log":`):])
	if !ok || !strings.HasPrefix(rest, `,"stream":"`) {
		return c, false
	}
	if c.Stream, rest, ok = jsonString(rest[len(`,"stream":`):]); !ok || !strings.HasPrefix(rest, `,"time":"`) {
		return c, false
	}
	if c.Time, rest, ok = jsonString(rest[len(`,"time":`):]); !ok || rest != "}" {
		return c, false
	}
	c.Log = &log
	return c, true
}

// jsonString decodes the JSON string at the start of s and returns the
// rest of s after it; ok is false if s does not start with a valid one.
func jsonString(s string) (string, string, bool) {
	if s == "" || s[0] != '"' {
		return "", s, false
	}
	i := 1
	for i < len(s) && s[i] != '"' && s[i] != '\\' && s[i] >= 0x20 {
		i++
	}
	if i < len(s) && s[i] == '"' {
		return s[1:i], s[i+1:], true // no escapes: a substring
	}
	var b strings.Builder
	b.WriteString(s[1:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], true
		case c < 0x20:
			return "", s, false
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return "", s, false
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(s[i+2:])
			if !ok {
				return "", s, false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), strings.HasPrefix(s[i+2:], "\\u")
				if ok {
					r2, ok = hex4(s[i+4:])
				}
				if r = utf16.DecodeRune(r, r2); ok && r != utf8.RuneError {
					i += 6
				}
			}
			b.WriteRune(r)
		default:
			return "", s, false
		}
		i += 2
	}
	return "", s, false
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for i := range 4 {
		c := s[i]
		switch {
		case isDigit(c):
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// readRecord reads a JSON log record; it is one only if it has a message.
func (p *Prefix) readRecord(rec map[string]any, env *envelope) (string, bool) {
	fields, _ := rec["fields"].(map[string]any) // tracing without flatten_event
	loguru, _ := rec["record"].(map[string]any)
	msg, ok := firstString(rec, "message", "msg")
	switch {
	case ok:
	case fields != nil:
		msg, ok = firstString(fields, "message")
	case loguru != nil:
		msg, ok = firstString(loguru, "message")
	}
	if !ok {
		return "", false
	}
	env.record = true
	p.Tagged = true

	p.Level = recordLevel(rec)
	if p.Level == "" && loguru != nil {
		p.Level = recordLevel(loguru)
	}
	for _, k := range []string{"timestamp", "time", "ts", "asctime", "@timestamp"} {
		if t, ok := recordTime(rec[k]); ok {
			env.time = t
			break
		}
	}
	if loguru != nil {
		if tm, ok := loguru["time"].(map[string]any); ok {
			if t, ok := recordTime(tm["repr"]); ok {
				env.time = t
			}
		}
	}

	var b strings.Builder
	// tracing's text format: "span: target: file:line: message fields".
	target, _ := rec["target"].(string)
	span, _ := rec["span"].(map[string]any)
	if target != "" {
		if name, ok := span["name"].(string); ok && name != "" {
			b.WriteString(name)
			b.WriteString(": ")
		}
		b.WriteString(target)
		b.WriteString(": ")
		if file, ok := rec["filename"].(string); ok && file != "" {
			b.WriteString(file)
			if line, ok := rec["line_number"].(float64); ok {
				b.WriteByte(':')
				b.WriteString(strconv.FormatFloat(line, 'f', -1, 64))
			}
			b.WriteString(": ")
		}
	}
	first, more, _ := strings.Cut(msg, "\n")
	nested, isNested := nestedTraceback(msg)
	if isNested {
		// The message is a handler's error report as a JSON document: its
		// first line is "{"; the exception it carries says what failed.
		first, more = lastLine(nested), ""
	}
	b.WriteString(strings.TrimRight(first, "\r"))
	if fields != nil {
		writeAttrs(&b, fields, nil)
	}
	if target == "" {
		writeAttrs(&b, rec, recordMeta)
	}
	if span != nil {
		writeAttrs(&b, span, []string{"name"})
	}
	// A multi-line message or an exception's traceback cannot be lines of
	// their own here: its final line (the exception an engineer quotes)
	// joins the first.
	tail := lastLine(more)
	p.Embedded = strings.Contains(more, "Traceback (most recent call last)")
	if p.Embedded {
		tail = finalException(more)
	}
	if exc, ok := firstString(rec, "exc_info", "exc_text", "exception"); ok && lastLine(exc) != "" {
		tail = finalException(exc)
		p.Embedded = true
	} else if isNested {
		// A handler's error report as a JSON document in the message
		// (RunPod's SDK: {"error_type": ..., "error_traceback": "..."}).
		tail = lastLine(nested)
		p.Embedded = true
	} else if e, ok := loguru["exception"].(map[string]any); ok {
		typ, _ := e["type"].(string)
		val, _ := e["value"].(string)
		if typ != "" {
			tail = typ + ": " + val
			p.Embedded = true
		}
	}
	p.Embedded = p.Embedded && tail != "" && isExceptionLine(tail)
	p.Request = recordRequest(rec)
	p.Answered = recordAnswered(rec)
	if tail != "" && tail != strings.TrimSpace(first) {
		if !strings.HasSuffix(b.String(), ":") {
			b.WriteByte(':')
		}
		b.WriteByte(' ')
		b.WriteString(tail)
	}
	return b.String(), true
}

// nestedTraceback finds a Python traceback in a message that is itself a
// JSON object: the first string value (in key order) that holds one.
func nestedTraceback(msg string) (string, bool) {
	t := strings.TrimSpace(msg)
	if !strings.HasPrefix(t, "{") || !strings.Contains(t, "Traceback (most recent call last)") {
		return "", false
	}
	var doc map[string]any
	if json.Unmarshal([]byte(t), &doc) != nil {
		return "", false
	}
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if v, ok := doc[k].(string); ok && strings.Contains(v, "Traceback (most recent call last)") && lastLine(v) != "" {
			return v, true
		}
	}
	return "", false
}

// recordRequest reports a record that names the request it is about (a
// request id that is not null): what it reports is that request's.
func recordRequest(rec map[string]any) bool {
	for _, k := range []string{"requestId", "request_id", "requestID", "req_id"} {
		if v, ok := rec[k].(string); ok && v != "" {
			return true
		}
	}
	return false
}

// recordAnswered reports a record that carries the HTTP request it is
// about (an object with its method or URI) and the status it was answered
// with.
func recordAnswered(rec map[string]any) bool {
	r, ok := rec["request"].(map[string]any)
	if !ok || r["method"] == nil && r["uri"] == nil {
		return false
	}
	status, ok := rec["status"].(float64)
	return ok && status >= 100 && status < 600
}

// recordMeta are the keys of a record that its text format does not print
// as "key=value": time, level, message, the logger's own location.
var recordMeta = []string{
	"@timestamp", "@version", "asctime", "caller", "created", "exc_info", "exc_text", "exception",
	"filename", "funcName", "function", "level", "levelname", "levelno", "line", "lineno", "logger",
	"logger_name", "message", "module", "msecs", "msg", "name", "pathname", "process", "processName",
	"relativeCreated", "severity", "source", "span", "spans", "stack_info", "stacktrace", "taskName",
	"thread", "threadName", "tid", "time", "timestamp", "ts", "fields", "record", "text", "color_message",
}

// writeAttrs appends the scalar attributes of m as " key=value", in key
// order (a decoded object has none of its own), skipping skip and values
// that span lines.
func writeAttrs(b *strings.Builder, m map[string]any, skip []string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "message" && !slices.Contains(skip, k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		var v string
		switch x := m[k].(type) {
		case string:
			if strings.ContainsAny(x, "\n\r") || len(x) > 1024 {
				continue
			}
			v = x
			if v == "" || strings.ContainsAny(v, " \"=") {
				v = strconv.Quote(v)
			}
		case float64:
			v = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			v = strconv.FormatBool(x)
		default:
			continue
		}
		b.WriteByte(' ')
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(v)
	}
}

// recordLevel reads a record's level: a word ("ERROR", "warn", llama.cpp's
// "ERR", zap's "dpanic", loguru's {"name": "ERROR"}) or pino's number
// (30 info ... 60 fatal).
func recordLevel(m map[string]any) string {
	for _, k := range []string{"level", "levelname", "severity", "lvl"} {
		switch v := m[k].(type) {
		case string:
			return levelWord(v)
		case float64:
			if k == "level" {
				return pinoLevel(v)
			}
		case map[string]any:
			if name, ok := v["name"].(string); ok {
				return levelWord(name)
			}
		}
	}
	return ""
}

func levelWord(w string) string {
	if lv := normLevel(w); lv != "" {
		return lv
	}
	switch strings.ToUpper(w) {
	case "VERB":
		return "DEBUG"
	case "NOTICE", "SUCCESS":
		return "INFO"
	case "PANIC", "DPANIC", "CRIT", "ALERT", "EMERG", "EMERGENCY":
		return "CRITICAL"
	}
	return ""
}

func pinoLevel(v float64) string {
	switch {
	case v >= 60:
		return "FATAL"
	case v >= 50:
		return "ERROR"
	case v >= 40:
		return "WARNING"
	case v >= 30:
		return "INFO"
	}
	return "DEBUG"
}

// recordTime reads a time written as text (RFC 3339, Python's asctime) or
// as a Unix time in seconds, milliseconds, microseconds or nanoseconds.
func recordTime(v any) (time.Time, bool) {
	switch x := v.(type) {
	case string:
		if t, n := parseDateTime(x); n > 0 {
			return t, true
		}
	case float64:
		if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return time.Time{}, false
		}
		switch {
		case x > 1e17:
			return time.Unix(0, int64(x)).UTC(), true
		case x > 1e14:
			return time.UnixMicro(int64(x)).UTC(), true
		case x > 1e11:
			return time.UnixMilli(int64(x)).UTC(), true
		default:
			sec, frac := math.Modf(x)
			return time.Unix(int64(sec), int64(frac*1e9)).UTC(), true
		}
	}
	return time.Time{}, false
}

// lastLine is the last line of s that is not blank, trimmed.
// finalException is a traceback's exception line: the first line after its
// last indented one (the last frame's source) and any blank lines, which a multi-line message
// continues ("GatedRepoError: 403 Client Error." then the reason on lines
// of its own); the last line when there is none such.
func finalException(tb string) string {
	lines := strings.Split(strings.TrimRight(tb, "\n"), "\n")
	last := -1 // the last indented line
	for i := len(lines) - 1; i >= 0; i-- {
		if l := lines[i]; l != "" && (l[0] == ' ' || l[0] == '\t') {
			last = i
			break
		}
	}
	for i := last + 1; last >= 0 && i < len(lines); i++ {
		if exc := strings.TrimSpace(lines[i]); exc != "" {
			// Blank lines may stand between the frames and it (TGI's
			// tracebacks).
			if isExceptionLine(exc) {
				return exc
			}
			break
		}
	}
	return lastLine(tb)
}

func lastLine(s string) string {
	for s != "" {
		i := strings.LastIndexByte(s, '\n')
		l := strings.TrimSpace(s[i+1:])
		if l != "" {
			return l
		}
		if i < 0 {
			return ""
		}
		s = s[:i]
	}
	return ""
}

func firstString(m map[string]any, keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := m[k].(string); ok {
			return v, true
		}
	}
	return "", false
}
