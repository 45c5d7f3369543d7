package classify

import (
	"strings"
	"time"
)

// Stage 1 of the classifier, first half: the envelope a log collector puts
// around every line a server prints. ParsePrefix peels envelopes before it
// reads the server's own prefixes, so the grammars after it see the same
// body whether a log was copied from a terminal, a container runtime's file,
// docker compose, journald, kubectl or a syslog relay:
//
//	CRI (containerd, CRI-O)  2026-01-28T10:04:05.123456789Z stderr F <line>   ("P": a partial line)
//	docker compose           web-1  | <line>   (compose v1: web_1  | <line>)
//	journald, RFC 3164       Jan 28 10:04:05 host ident[pid]: <line>   (also ISO times: 2026-01-28T10:04:05+0100)
//	syslog with a priority   <13>Jan 28 10:04:05 host ident[pid]: <line>
//	RFC 5424                 <13>1 2026-01-28T10:04:05.1Z host app 123 - - <line>
//	kubectl logs --prefix    [pod/name/container] <line>
//	Docker json-file         {"log":"<line>\n","stream":"stderr","time":"..."}
//	journalctl -o json       {"MESSAGE":"<line>","_PID":"1",...}
//	JSON-structured logs     {"level":"ERROR","message":"..."}   (see jsonlog.go)
//
// Envelopes nest (CRI around a JSON log, journald around vLLM's own
// prefix), so peeling repeats. Each recogniser is a fixed-shape parser
// entered on the line's first byte; none uses a regular expression, and
// each refuses a line that does not have its exact shape, so a server line
// that merely starts with a date or a bracket keeps its text.

// maxEnvelopes bounds the envelopes peeled from one line.
const maxEnvelopes = 4

// envelope is what peeling found around the server's own line.
type envelope struct {
	time   time.Time // the innermost envelope time, zero if none
	origin string    // container or process identities, outermost first, joined by "|"
	record bool      // a JSON-structured log record was read
}

// addOrigin records the identity an envelope names; an origin has no spaces
// (State.source relies on it).
func (env *envelope) addOrigin(o string) {
	switch {
	case o == "":
		return
	case env.origin != "":
		o = env.origin + "|" + o
	}
	env.origin = strings.ReplaceAll(o, " ", "_")
}

// peelEnvelopes strips collector envelopes from the start of s and returns
// what is inside. A JSON log record sets p's level and returns its message.
func (p *Prefix) peelEnvelopes(s string, year int, env *envelope) string {
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
					rest = stripANSI(rest)
				}
				s = rest
				continue
			}
			rest, origin, ok = peelLokiLabels(s)
		case c == '<':
			rest, t, origin, ok = peelSyslogPRI(s, year)
		case c == '[':
			if s[1] == 'p' { // "[pod/": most brackets are a server's own
				rest, origin, ok = peelKubectl(s)
			}
		case c == '"':
			rest, t, origin, ok = peelCSVRow(s)
		case isDigit(c):
			if len(s) >= 20 && (s[10] == ' ' || s[10] == 'T') {
				rest, t, origin, ok = peelCSVRow(s)
			}
			// The three readers of an RFC 3339 time share its parse; a
			// line without the 'T' has none of them.
			if !ok && len(s) >= 19 && s[10] == 'T' {
				if dt, n := parseDateTime(s); n > 0 {
					if rest, t, ok = peelCRI(s, dt, n); !ok {
						if rest, t, origin, ok = peelISOSyslog(s, dt, n, false); !ok {
							if rest, t, ok = peelTimeBeforeJSON(s, dt, n); !ok {
								rest, t, origin, ok = peelLogStream(s, dt, n)
							}
						}
					}
				}
			}
			if !ok {
				rest, origin, ok = peelSrunLabel(s)
			}
			if !ok {
				rest, origin, ok = peelPM2(s)
			}
			if !ok {
				rest, origin, ok = peelCompose(s)
			}
		case c == ' ':
			rest, origin, ok = peelSrunLabel(s)
		case c >= 'A' && c <= 'Z':
			if len(s) >= 20 && s[3] == ' ' { // "Jan 28 ...": a level word has no space there
				rest, t, origin, ok = peelMonthSyslog(s, year, false)
				if !ok {
					rest, t, ok = peelExplorerDate(s)
				}
			}
			if !ok && c == 'P' {
				rest, origin, ok = peelPM2(s)
			}
			if !ok {
				rest, origin, ok = peelCompose(s)
			}
		case c >= 'a' && c <= 'z':
			rest, origin, ok = peelCompose(s)
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
// t and n are parseDateTime(s), n > 0.
func peelCRI(s string, t time.Time, n int) (string, time.Time, bool) {
	if s[10] != 'T' || len(s) < n+9 {
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
// t and n are parseDateTime(s), n > 0.
func peelTimeBeforeJSON(s string, t time.Time, n int) (string, time.Time, bool) {
	if s[10] != 'T' || n+2 > len(s) || s[n] != ' ' || s[n+1] != '{' {
		return s, time.Time{}, false
	}
	return s[n+1:], t, true
}

// peelLogStream reads a row of `aws logs tail` (CloudWatch Logs): the
// event's zoned RFC 3339 time, the log stream's name, the line:
// "2025-06-11T10:04:02.118000+00:00 AllTraffic/i-0f1e2d3c 2025-06-11...".
// A stream's name has a '/' (SageMaker's "VARIANT/INSTANCE", ECS's
// "PREFIX/CONTAINER/TASK") and no ':' or brackets; it is the origin. t
// and n are parseDateTime(s), n > 0.
func peelLogStream(s string, t time.Time, n int) (string, time.Time, string, bool) {
	if s[10] != 'T' || !(s[n-1] == 'Z' || s[n-3] == ':' && (s[n-6] == '+' || s[n-6] == '-')) || n+4 > len(s) || s[n] != ' ' {
		return s, time.Time{}, "", false
	}
	rest := s[n+1:]
	i, slash := 0, false
	for i < len(rest) && i <= 256 && (isNameByte(rest[i]) || rest[i] == '/') {
		slash = slash || rest[i] == '/'
		i++
	}
	if !slash || i < 3 || i > 256 || rest[0] == '/' || rest[i-1] == '/' || i >= len(rest) || rest[i] != ' ' {
		return s, time.Time{}, "", false
	}
	return rest[i+1:], t, rest[:i], true
}

// peelLokiLabels reads the stream labels Loki's logcli prints between a
// line's time and its text (`logcli query`'s default output, the time read
// before by peelTimeBeforeJSON): `{container="vllm", stream="stderr"} `.
// The labels other than stream (stdout or stderr, no identity, as in CRI)
// are the origin. logcli pads the labels of shorter sets to one width, so
// only one space is known to be the envelope's.
func peelLokiLabels(s string) (string, string, bool) {
	var origin strings.Builder
	i := 1
	for {
		j := i
		for j < len(s) && (s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z' || j > i && isDigit(s[j])) {
			j++
		}
		if j == i || j+1 >= len(s) || s[j] != '=' || s[j+1] != '"' {
			return s, "", false
		}
		name := s[i:j]
		k := j + 2
		for k < len(s) && s[k] != '"' {
			if s[k] == '\\' {
				k++
			}
			k++
		}
		if k >= len(s) {
			return s, "", false
		}
		if name != "stream" {
			if origin.Len() > 0 {
				origin.WriteByte(',')
			}
			origin.WriteString(s[i : k+1])
		}
		switch {
		case strings.HasPrefix(s[k+1:], ", "):
			i = k + 3
			continue
		case strings.HasPrefix(s[k+1:], "} "):
			return s[k+3:], origin.String(), true
		case k+2 == len(s) && s[k+1] == '}':
			return "", origin.String(), true
		}
		return s, "", false
	}
}

// peelCSVRow reads a row of a log explorer's CSV export: the event's time
// first, quoted or not, then the columns the export chose (CloudWatch Logs
// Insights' `@timestamp,@message`, with @logStream between; Datadog's
// host, service and status), the message last: `2025-02-14
// 08:21:40.102,"[INFO ] ModelServer - started"`. A quoted message is
// unquoted ("" is a quote). The columns between are the origin, but a
// status or level column: an export that says "error" for every line its
// collector read from stderr says nothing of the line.
func peelCSVRow(s string) (string, time.Time, string, bool) {
	quoted := s[0] == '"'
	ts := s
	if quoted {
		ts = s[1:]
	}
	t, n := parseDateTime(ts)
	if n == 0 {
		return s, time.Time{}, "", false
	}
	rest := ts[n:]
	if quoted {
		if !strings.HasPrefix(rest, "\"") {
			return s, time.Time{}, "", false
		}
		rest = rest[1:]
	}
	if len(rest) < 2 || rest[0] != ',' {
		return s, time.Time{}, "", false
	}
	rest = rest[1:]
	var origin strings.Builder
	for range 6 {
		field, after, isQuoted, ok := csvField(rest)
		if !ok {
			return s, time.Time{}, "", false
		}
		if after == "" || !isQuoted && strings.IndexByte(field, ' ') >= 0 {
			if !isQuoted {
				// An unquoted message runs to the end of the line, commas and all.
				field = rest
			}
			return field, t, origin.String(), true
		}
		if normLevel(field) == "" && !strings.EqualFold(field, "error") && field != "" {
			if origin.Len() > 0 {
				origin.WriteByte(',')
			}
			origin.WriteString(field)
		}
		rest = after
	}
	return s, time.Time{}, "", false
}

// csvField reads the CSV field at the start of s: its text (unquoted), what
// follows its comma ("" when it ends the line), and whether it was quoted.
// ok is false for a quoted field that does not close, or closes before
// anything but a comma or the end.
func csvField(s string) (field, after string, quoted, ok bool) {
	if s == "" || s[0] != '"' {
		i := strings.IndexByte(s, ',')
		if i < 0 {
			return s, "", false, true
		}
		return s[:i], s[i+1:], false, true
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '"' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '"' {
			b.WriteByte('"')
			i++
			continue
		}
		switch {
		case i+1 == len(s):
			return b.String(), "", true, true
		case s[i+1] == ',':
			if i+2 == len(s) {
				return b.String(), "", true, true
			}
			return b.String(), s[i+2:], true, true
		}
		return "", "", true, false
	}
	return "", "", true, false
}

// peelKubectl reads `kubectl logs --prefix`: "[pod/NAME/CONTAINER] ".
func peelKubectl(s string) (string, string, bool) {
	if !strings.HasPrefix(s, "[pod/") {
		return s, "", false
	}
	end := strings.IndexByte(s, ']')
	if end < 0 || end > 320 {
		return s, "", false
	}
	id := s[1:end]
	name, container, ok := strings.Cut(id[4:], "/")
	if !ok || !isDNSName(name) || !isDNSName(container) {
		return s, "", false
	}
	switch {
	case end+1 == len(s):
		return "", id, true
	case s[end+1] == ' ':
		return s[end+2:], id, true
	}
	return s, "", false
}

// isDNSName reports whether s is a Kubernetes object name: lowercase
// letters, digits, '-' and '.'.
func isDNSName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || isDigit(c) || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// peelSrunLabel reads the task label `srun --label` puts before each line
// of a task's output: the task number right-aligned to the width of the
// largest ("%*d: "), so " 3: " among ten or more tasks. Each task is an
// origin of its own, as a container is: two tasks' interleaved tracebacks
// stay two events, and srun's own lines, unlabelled, are the launch's.
// Only one padding space is read: a Rust backtrace's frames ("   0: ",
// "  12: ") are padded to four.
func peelSrunLabel(s string) (string, string, bool) {
	i := 0
	if s[0] == ' ' {
		if !isDigit(s[1]) || s[2] != ':' {
			return s, "", false
		}
		i = 1
	}
	j := i
	for j < len(s) && j < i+6 && isDigit(s[j]) {
		j++
	}
	if j == i || j == i+6 || j == len(s) || s[j] != ':' {
		return s, "", false
	}
	switch {
	case j+1 == len(s):
		return "", "task" + s[i:j], true
	case s[j+1] == ' ':
		return s[j+2:], "task" + s[i:j], true
	}
	return s, "", false
}

// peelCompose reads docker compose's prefix: the container's name padded
// to the longest name, then " | " (so one space or more before the bar;
// see below for a bare word). The name must end
// in the replica number compose gives every container ("web-1", v1's
// "web_1"), or be a name a compose file gives with container_name, which
// has no number: one with a separator inside ("open-webui", "acme_api")
// or a service's well-known name (composeServiceNames). That keeps a
// table row such as "Total  | 5" a server line.
func peelCompose(s string) (string, string, bool) {
	i := 0
	for i < len(s) && i < 128 && isNameByte(s[i]) {
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
	// The longest name has one space before its bar when compose pads to
	// its length ("open-webui-1 | "): a replica's name or a container name
	// with a separator may; a bare word needs two, as a table row has one.
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

// peelPM2 reads what `pm2 logs` puts before each line: an app's
// "ID|NAME  | " (the app's name is the origin) and the daemon's own "PM2
// | " (the launch's supervisor: no origin of its own, its exit and
// restart reports are the launch's).
func peelPM2(s string) (string, string, bool) {
	if strings.HasPrefix(s, "PM2 ") {
		j := 3
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j+1 < len(s) && s[j] == '|' && s[j+1] == ' ' {
			return s[j+2:], "", true
		}
		return s, "", false
	}
	i := 0
	for i < len(s) && i < 4 && isDigit(s[i]) {
		i++
	}
	if i == 0 || i >= len(s) || s[i] != '|' {
		return s, "", false
	}
	k := i + 1
	for k < len(s) && k-i <= 64 && isNameByte(s[k]) {
		k++
	}
	if k == i+1 || k >= len(s) || s[k] != ' ' {
		return s, "", false
	}
	name := s[i+1 : k]
	for k < len(s) && s[k] == ' ' {
		k++
	}
	if k >= len(s) || s[k] != '|' {
		return s, "", false
	}
	if k+1 == len(s) {
		return "", name, true
	}
	if s[k+1] != ' ' {
		return s, "", false
	}
	return s[k+2:], name, true
}

// separated reports a name with a separator ('-', '_', '.') between two
// word characters.
func separated(name string) bool {
	for k := 1; k+1 < len(name); k++ {
		if c := name[k]; (c == '-' || c == '_' || c == '.') && name[k-1] != c && name[k+1] != c {
			return true
		}
	}
	return false
}

// containerName reports a compose container_name without a replica
// number: a letter first, then a separator ('-', '_', '.') between two
// word characters somewhere, or one of composeServiceNames.
func containerName(name string) bool {
	if name[0] < 'a' || name[0] > 'z' {
		return false
	}
	return separated(name) || composeServiceNames[name]
}

// composeServiceNames are services that compose files name plainly (the
// image's name as container_name): the servers and the stores beside them.
var composeServiceNames = map[string]bool{
	"ollama": true, "vllm": true, "sglang": true, "tgi": true, "triton": true, "localai": true, "litellm": true,
	"xinference": true, "tei": true, "infinity": true, "comfyui": true, "openwebui": true, "webui": true,
	"api": true, "server": true, "worker": true, "gateway": true, "proxy": true, "frontend": true, "backend": true,
	"postgres": true, "postgresql": true, "redis": true, "valkey": true, "nginx": true, "traefik": true,
	"envoy": true, "caddy": true, "qdrant": true, "milvus": true, "weaviate": true, "chroma": true,
	"etcd": true, "minio": true, "nats": true, "rabbitmq": true, "kafka": true, "mongo": true, "mongodb": true,
	"mysql": true, "elasticsearch": true, "opensearch": true, "clickhouse": true, "prometheus": true, "grafana": true,
}

func isNameByte(c byte) bool { return nameByte[c] }

// nameByte is the bytes of a compose container name (letters, digits, '-',
// '_', '.') as a table: peelCompose tries most lines that start with a letter.
var nameByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
	}
	return t
}()

// peelSyslogPRI reads a syslog line that starts with its priority "<PRI>":
// RFC 5424 ("<13>1 TIME HOST APP PROCID MSGID SD MSG") or RFC 3164
// ("<13>Jan 28 10:04:05 host tag[pid]: MSG", as relays and `logger` write
// it, where the host may be missing). The priority is not used as a level:
// relays give every line of a stream the same one.
func peelSyslogPRI(s string, year int) (string, time.Time, string, bool) {
	end := strings.IndexByte(s, '>')
	if end < 2 || end > 4 || !allDigits(s[1:end]) {
		return s, time.Time{}, "", false
	}
	rest := s[end+1:]
	if strings.HasPrefix(rest, "1 ") {
		return peelRFC5424(s, rest[2:])
	}
	if len(rest) > 0 && rest[0] >= 'A' && rest[0] <= 'Z' {
		if r, t, o, ok := peelMonthSyslog(rest, year, true); ok {
			return r, t, o, true
		}
	}
	if len(rest) > 0 && isDigit(rest[0]) {
		if t, n := parseDateTime(rest); n > 0 {
			if r, t, o, ok := peelISOSyslog(rest, t, n, true); ok {
				return r, t, o, true
			}
		}
	}
	return s, time.Time{}, "", false
}

// peelRFC5424 reads the header after "<PRI>1 ": TIMESTAMP HOSTNAME
// APP-NAME PROCID MSGID STRUCTURED-DATA, each "-" when absent.
func peelRFC5424(s, h string) (string, time.Time, string, bool) {
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
		if t, n = parseDateTime(fields[0]); n != len(fields[0]) {
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
	return h, t, procID(fields[1], fields[2], fields[3]), true
}

// procID names a process from syslog fields, skipping absent ones ("-").
func procID(host, app, pid string) string {
	host, app, pid = present(host), present(app), present(pid)
	n := len(host) + len(app)
	if host != "" && app != "" {
		n++
	}
	if pid != "" {
		n += len(pid) + 2
	}
	if n == 0 {
		return ""
	}
	var b strings.Builder
	b.Grow(n) // one allocation, not one per part: every journald line names one
	b.WriteString(host)
	if host != "" && app != "" {
		b.WriteByte('/')
	}
	b.WriteString(app)
	if pid != "" {
		b.WriteByte('[')
		b.WriteString(pid)
		b.WriteByte(']')
	}
	return b.String()
}

// present is s, or "" for syslog's "-" (absent).
func present(s string) string {
	if s == "-" {
		return ""
	}
	return s
}

var months = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// peelExplorerDate reads the time column of a row copied from a log
// explorer's table, in the human form Kibana's Discover shows by default
// (dateFormat "MMM D, YYYY @ HH:mm:ss.SSS"; without the "@" as others
// write it), before the tab that ends the column: "Oct 14, 2025 @
// 18:00:01.481\t<line>".
func peelExplorerDate(s string) (string, time.Time, bool) {
	mo := 0
	for i, m := range months {
		if s[:3] == m {
			mo = i + 1
			break
		}
	}
	if mo == 0 || len(s) < 21 || s[3] != ' ' {
		return s, time.Time{}, false
	}
	c := s[4:]
	d := 0
	for len(c) > 0 && isDigit(c[0]) && d < 100 {
		d = d*10 + int(c[0]-'0')
		c = c[1:]
	}
	if d < 1 || d > 31 || !strings.HasPrefix(c, ", ") || len(c) < 15 {
		return s, time.Time{}, false
	}
	c = c[2:]
	if !isDigit(c[0]) || !isDigit(c[1]) || !isDigit(c[2]) || !isDigit(c[3]) || c[4] != ' ' {
		return s, time.Time{}, false
	}
	y := atoi2(c[0:2])*100 + atoi2(c[2:4])
	c = c[5:]
	c = strings.TrimPrefix(c, "@ ")
	if len(c) < 9 || c[2] != ':' || c[5] != ':' || !allDigits(c[0:2]) || !allDigits(c[3:5]) || !allDigits(c[6:8]) {
		return s, time.Time{}, false
	}
	h, mi, se := atoi2(c[0:2]), atoi2(c[3:5]), atoi2(c[6:8])
	c = c[8:]
	ns := 0
	if c != "" && c[0] == '.' {
		j, scale := 1, 100000000
		for j < len(c) && isDigit(c[j]) && j <= 9 {
			ns += int(c[j]-'0') * scale
			scale /= 10
			j++
		}
		c = c[j:]
	}
	if c == "" || c[0] != '\t' {
		return s, time.Time{}, false
	}
	return c[1:], dateUTC(y, mo, d, h, mi, se, ns), true
}

// peelMonthSyslog reads journalctl's default format and RFC 3164's:
// "Jan 28 10:04:05 host ident[pid]: " (the day may be space-padded, the
// seconds may carry a fraction as with journalctl -o short-precise). The
// year comes from year; with 0 the time stays zero.
func peelMonthSyslog(s string, year int, hostless bool) (string, time.Time, string, bool) {
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
	rest, origin, ok := syslogTail(c[1:], hostless)
	if !ok {
		return s, time.Time{}, "", false
	}
	var t time.Time
	if year > 0 {
		t = dateUTC(year, mo, d, h, mi, se, ns)
	}
	return rest, t, origin, true
}

// peelISOSyslog reads journalctl -o short-iso and rsyslog's file format:
// "2026-01-28T10:04:05[.frac](Z|+01:00|+0100) host ident[pid]: ". The
// host is required unless the line came with a syslog priority, and it must
// not be a level word: TGI's "2026-01-28T10:04:05Z ERROR target: msg" is
// the server's own prefix.
// t and n are parseDateTime(s), n > 0.
func peelISOSyslog(s string, t time.Time, n int, hostless bool) (string, time.Time, string, bool) {
	if s[10] != 'T' {
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
	if r, origin, ok := syslogTail(rest[1:], hostless); ok {
		return r, t, origin, true
	}
	return s, time.Time{}, "", false
}

// syslogTail reads "host ident[pid]: " or "host ident: " (and, when
// hostless, "ident[pid]: ") and returns the message and "host/ident[pid]".
func syslogTail(s string, hostless bool) (string, string, bool) {
	sp := strings.IndexByte(s, ' ')
	if sp <= 0 || sp > 255 {
		return s, "", false
	}
	first := s[:sp]
	if hostless {
		if name, pid, ok := syslogIdent(first); ok {
			return s[sp+1:], procID("", name, pid), true
		}
	}
	if strings.ContainsAny(first, ":[]()<>{}=\"'/") || normLevel(first) != "" {
		// No host name has these: "[41873] func: msg" after a time is
		// a child's tag and a function (llama-server's router), not a
		// host and an ident; "AllTraffic/i-0a1b..." is a CloudWatch log
		// stream (peelLogStream), whose message may start with a word
		// and a colon ("ai.djl.engine.EngineException: ...").
		return s, "", false
	}
	rest := s[sp+1:]
	sp = strings.IndexByte(rest, ' ')
	tag, msg := rest, ""
	if sp >= 0 {
		tag, msg = rest[:sp], rest[sp+1:]
	}
	name, pid, ok := syslogIdent(tag)
	if !ok {
		return s, "", false
	}
	return msg, procID(first, name, pid), true
}

// syslogIdent reads "ident[pid]:" or "ident:".
func syslogIdent(tag string) (string, string, bool) {
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
	// strings.ContainsAny(name, "[]:\"'") byte by byte: the bytes are ASCII,
	// so no byte of another character is one, and ContainsAny decoded
	// runes (and built a set) on every journald line.
	for i := 0; i < len(name); i++ {
		switch name[i] {
		case '[', ']', ':', '"', '\'':
			return "", "", false
		}
	}
	return name, pid, true
}
