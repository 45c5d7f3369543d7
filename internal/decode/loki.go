package decode

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/golang/snappy"

	"launchwatch/internal/launchid"
)

// DefaultLokiLaunchLabel is the stream label that names the launch of a
// Loki push when none is configured.
const DefaultLokiLaunchLabel = "launch"

// lokiFallbackLabels name the launch when a stream lacks the launch label:
// Loki's own service_name, then Promtail's and Alloy's usual job.
var lokiFallbackLabels = []string{"service_name", "job"}

// LokiOptions configure the Loki decoder.
type LokiOptions struct {
	LaunchLabel  string // the label naming the launch; DefaultLokiLaunchLabel when ""
	MaxBodyBytes int64  // the largest decompressed protobuf body
	MaxLineBytes int
}

// lokiStream is one stream of a push request, whichever its encoding.
type lokiStream struct {
	labels  map[string]string
	entries []lokiEntry
}

type lokiEntry struct {
	ts   time.Time
	line string
}

// ReadLokiBody reads a push body as Loki does: Content-Encoding gzip or
// deflate is undone here; snappy (or none) leaves the body as sent, since
// the protobuf body is snappy-framed anyway.
func ReadLokiBody(body io.Reader, contentEncoding string, size, maxBytes int64) ([]byte, error) {
	if strings.EqualFold(strings.TrimSpace(contentEncoding), "snappy") {
		contentEncoding = ""
	}
	return ReadBody(body, contentEncoding, size, maxBytes)
}

// Loki decodes a Loki push request body (POST /loki/api/v1/push) as
// Grafana Loki does: JSON when the Content-Type is application/json, else
// snappy-compressed protobuf. It groups the entries by launch; the lines of
// each launch are sorted by timestamp (stable, so equal timestamps keep
// their order in the push) and carry their duplicate key. A stream that
// names no launch rejects the whole push.
func Loki(body []byte, contentType string, opts LokiOptions) ([]Batch, error) {
	var streams []lokiStream
	var err error
	if isJSON(contentType) {
		streams, err = decodeLokiJSON(body)
	} else {
		streams, err = decodeLokiProto(body, opts.MaxBodyBytes)
	}
	if err != nil {
		return nil, err
	}
	return lokiBatches(streams, opts)
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// lokiJSONPush is the JSON push body:
// {"streams":[{"stream":{"k":"v"},"values":[["<ns>","line",{meta}]]}]}.
type lokiJSONPush struct {
	Streams []struct {
		Stream map[string]string   `json:"stream"`
		Values [][]json.RawMessage `json:"values"`
	} `json:"streams"`
}

func decodeLokiJSON(body []byte) ([]lokiStream, error) {
	var push lokiJSONPush
	if err := json.Unmarshal(body, &push); err != nil {
		return nil, BadRequest("body is not a Loki JSON push request: %v", err)
	}
	streams := make([]lokiStream, 0, len(push.Streams))
	for i, s := range push.Streams {
		st := lokiStream{labels: s.Stream}
		for j, v := range s.Values {
			// values[j] = ["<unix ns as a string>", "<line>"(, {structured metadata})]
			if len(v) < 2 || len(v) > 3 {
				return nil, BadRequest("streams[%d].values[%d]: want [\"<unix ns>\", \"<line>\"] with optional metadata, got %d elements", i, j, len(v))
			}
			var tsText, line string
			if err := json.Unmarshal(v[0], &tsText); err != nil {
				return nil, BadRequest("streams[%d].values[%d]: the timestamp must be unix nanoseconds as a string, got %s", i, j, v[0])
			}
			ns, err := strconv.ParseInt(tsText, 10, 64)
			if err != nil || ns < 0 {
				return nil, BadRequest("streams[%d].values[%d]: the timestamp must be unix nanoseconds, got %q", i, j, tsText)
			}
			if err := json.Unmarshal(v[1], &line); err != nil {
				return nil, BadRequest("streams[%d].values[%d]: the line must be a string, got %s", i, j, v[1])
			}
			// Structured metadata (v[2]) is accepted in any shape (real
			// clients send numbers and nested objects) and not stored.
			st.entries = append(st.entries, lokiEntry{ts: time.Unix(0, ns).UTC(), line: line})
		}
		streams = append(streams, st)
	}
	return streams, nil
}

func decodeLokiProto(body []byte, maxBytes int64) ([]lokiStream, error) {
	n, err := snappy.DecodedLen(body)
	if err != nil {
		return nil, BadRequest("body is not snappy-compressed protobuf (send Content-Type: application/json for JSON): %v", err)
	}
	if maxBytes > 0 && int64(n) > maxBytes {
		return nil, tooLarge(maxBytes)
	}
	raw, err := snappy.Decode(nil, body)
	if err != nil {
		return nil, BadRequest("body is not snappy-compressed protobuf: %v", err)
	}
	streams, err := decodePushRequest(raw)
	if err != nil {
		return nil, BadRequest("body is not a Loki PushRequest: %v", err)
	}
	return streams, nil
}

// lokiBatches maps streams to launches and lines.
func lokiBatches(streams []lokiStream, opts LokiOptions) ([]Batch, error) {
	total := 0
	for _, s := range streams {
		if total += len(s.entries); total > MaxBatchLines {
			return nil, TooManyLines()
		}
	}
	launchLabel := opts.LaunchLabel
	if launchLabel == "" {
		launchLabel = DefaultLokiLaunchLabel
	}
	keyLabels := append([]string{launchLabel}, lokiFallbackLabels...)
	var batches []Batch
	index := map[string]int{}
	groups := map[string]int{}
	for _, s := range streams {
		if len(s.entries) == 0 {
			continue
		}
		labelString := canonicalLabels(s.labels)
		group, ok := groups[labelString]
		if !ok {
			group = len(groups) + 1
			groups[labelString] = group
		}
		key := ""
		for _, l := range keyLabels {
			if key = launchKeyFrom(s.labels[l]); key != "" {
				break
			}
		}
		if key == "" {
			return nil, BadRequest("stream %s names no launch: add a %q label (or service_name or job)", labelString, launchLabel)
		}
		i, ok := index[key]
		if !ok {
			i = len(batches)
			index[key] = i
			batches = append(batches, Batch{Key: key})
		}
		b := &batches[i]
		mergeAttrs(&b.Attrs, attrsFrom(s.labels, []string{"server"}, []string{"host", "hostname"}, []string{"name"},
			append(slices.Clone(keyLabels), "level", "detected_level", "stream", "filename")))
		level := strings.ToUpper(oneLine(cmp.Or(s.labels["level"], s.labels["detected_level"])))
		stream := s.labels["stream"]
		if stream != "stdout" && stream != "stderr" {
			stream = ""
		}
		for _, e := range s.entries {
			text := cleanLine([]byte(e.line), opts.MaxLineBytes)
			b.Lines = append(b.Lines, Line{Text: text, TS: e.ts, Stream: stream, Level: level,
				Key: LineKey(labelString, e.ts, text), group: group})
		}
	}
	for i := range batches {
		orderSeqless(batches[i].Lines)
	}
	return batches, nil
}

// mergeAttrs adds the attributes of another stream of the same launch.
func mergeAttrs(dst *launchid.Attrs, src launchid.Attrs) {
	if dst.Server == "" {
		dst.Server = src.Server
	}
	if dst.Host == "" {
		dst.Host = src.Host
	}
	if dst.Name == "" {
		dst.Name = src.Name
	}
	for k, v := range src.Labels {
		if dst.Labels == nil {
			dst.Labels = map[string]string{}
		}
		if _, ok := dst.Labels[k]; ok || len(dst.Labels) < MaxBatchLabels {
			dst.Labels[k] = v
		}
	}
}

// canonicalLabels writes labels as Loki does: {a="b", c="d"}, sorted, Go-quoted.
func canonicalLabels(labels map[string]string) string {
	names := make([]string, 0, len(labels))
	for k := range labels {
		names = append(names, k)
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(strconv.Quote(labels[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// ParseLabels reads a label string as Loki writes it ({a="b", c="d"}) or as
// some clients do ({level="info",app="a"}, values not escaped).
func ParseLabels(s string) (map[string]string, error) {
	s = strings.TrimSpace(s)
	if len(s) < 2 || s[0] != '{' || s[len(s)-1] != '}' {
		return nil, fmt.Errorf("labels %q: want {name=\"value\", ...}", s)
	}
	in := s[1 : len(s)-1]
	out := map[string]string{}
	for i := 0; ; {
		i = skipSpaces(in, i)
		if i == len(in) {
			return out, nil
		}
		start := i
		for i < len(in) && (in[i] == '_' || in[i] >= 'a' && in[i] <= 'z' || in[i] >= 'A' && in[i] <= 'Z' || i > start && in[i] >= '0' && in[i] <= '9') {
			i++
		}
		name := in[start:i]
		i = skipSpaces(in, i)
		if name == "" || i == len(in) || in[i] != '=' {
			return nil, fmt.Errorf("labels %q: want name=\"value\" at byte %d", s, start+1)
		}
		i = skipSpaces(in, i+1)
		if i == len(in) || in[i] != '"' {
			return nil, fmt.Errorf("labels %q: the value of %s must be quoted", s, name)
		}
		end := closingQuote(in, i)
		if end < 0 {
			return nil, fmt.Errorf("labels %q: the value of %s has no closing quote", s, name)
		}
		raw := in[i : end+1]
		v, err := strconv.Unquote(raw)
		if err != nil {
			v = raw[1 : len(raw)-1] // a client that does not escape
		}
		out[name] = v
		i = skipSpaces(in, end+1)
		if i < len(in) {
			if in[i] != ',' {
				return nil, fmt.Errorf("labels %q: want ',' after the value of %s", s, name)
			}
			i++
		}
	}
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// closingQuote finds the quote that ends the value opened at s[open]: the
// first unescaped '"' followed by a ',' or the end (so an unescaped quote
// inside a value, as some clients send, does not end it early).
func closingQuote(s string, open int) int {
	for i := open + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			if j := skipSpaces(s, i+1); j == len(s) || s[j] == ',' {
				return i
			}
		}
	}
	return -1
}
