package decode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Line is one decoded line of a batch, ready for the pipeline.
type Line struct {
	Seq    int64     // 0 means "assign the next seq after the last stored"
	Text   string    // cleaned: valid UTF-8, no NUL, at most the line limit plus a marker
	TS     time.Time // the shipper's timestamp, zero if none
	Stream string    // "stdout", "stderr" or ""
	// Level is the shipper's own severity (OTLP severity, a Loki level
	// label); stored when the line's text shows no level of its own.
	Level string
	// Key identifies a seqless line for duplicate detection (see LineKey);
	// nil means the line has no identity and is always stored.
	Key []byte
	// group is the request stream the line came in (a Loki label set, an
	// OTLP resource and scope), numbered in order of first appearance;
	// orderSeqless uses it to break ties between lines of one time.
	group int
}

// Text splits a text/plain body into lines on \n, dropping one
// trailing \r per line and the empty piece after a final \n. A \r inside a
// line (a progress bar) stays in the line. firstSeq > 0 numbers the lines
// from it; 0 leaves them to be numbered after the last stored line.
func Text(body []byte, firstSeq int64, maxLineBytes int) ([]Line, error) {
	if firstSeq < 0 {
		return nil, BadRequest("seq must be a positive integer, got %d", firstSeq)
	}
	if len(body) == 0 {
		return nil, nil
	}
	body = bytes.TrimSuffix(body, []byte("\n"))
	n := bytes.Count(body, []byte("\n")) + 1
	if n > MaxBatchLines { // counted before anything is allocated per line
		return nil, TooManyLines()
	}
	if firstSeq > MaxSeq-int64(n-1) {
		return nil, SeqAboveMax(fmt.Sprintf("the seq of the body's last line, %d lines from ?seq=%d,", n, firstSeq))
	}
	lines := make([]Line, n)
	parts := 1
	if len(body) >= parallelTextBytes {
		parts = runtime.GOMAXPROCS(0)
	}
	// A large body is cut at newlines into a part per core, each split
	// by a goroutine of its own into its own run of lines: ingest waits
	// for the split before anything else can start (about 10 ms of one
	// core for 50,000 lines).
	var wg sync.WaitGroup
	rest, off := body, 0
	for p := 0; p < parts && off < n; p++ {
		part := rest
		if p < parts-1 {
			// Up to the first newline after the part's share of the body.
			if want := max(len(body)*(p+1)/parts-(len(body)-len(rest)), 0); want < len(rest) {
				if nl := bytes.IndexByte(rest[want:], '\n'); nl >= 0 {
					part = rest[:want+nl]
				}
			}
		}
		k := n - off // the last part's lines: the rest
		if len(part) < len(rest) {
			k = bytes.Count(part, []byte("\n")) + 1
			rest = rest[len(part)+1:]
		}
		dst, seq := lines[off:off+k], int64(0)
		if firstSeq > 0 {
			seq = firstSeq + int64(off)
		}
		off += k
		if off == n {
			textLines(dst, part, seq, maxLineBytes) // the last part, on this goroutine
			break
		}
		wg.Go(func() { textLines(dst, part, seq, maxLineBytes) })
	}
	wg.Wait()
	return lines, nil
}

// parallelTextBytes is the body size from which Text splits in parts.
const parallelTextBytes = 1 << 20

// textLines splits body into the len(lines) lines it holds, numbered
// from firstSeq (0: not numbered).
func textLines(lines []Line, body []byte, firstSeq int64, maxLineBytes int) {
	// One string for the whole body, of which the lines that need no
	// cleaning are slices: one allocation instead of one a line.
	text := string(body)
	for i := range lines {
		raw, rest, _ := strings.Cut(text, "\n")
		text = rest
		lines[i].Text = cleanText(strings.TrimSuffix(raw, "\r"), maxLineBytes)
		if firstSeq > 0 {
			lines[i].Seq = firstSeq + int64(i)
		}
	}
}

// ndjsonLine is the wire shape of one NDJSON object. Pointers and raw
// messages let the decoder tell a missing field from a wrong one.
// The text may also come as "message" (Vector), "msg" or "log" (Fluent
// Bit), the time as "timestamp", "time", "@timestamp" or "date".
type ndjsonLine struct {
	Seq         json.RawMessage `json:"seq"`
	Line        *string         `json:"line"`
	Message     *string         `json:"message"`
	Msg         *string         `json:"msg"`
	Log         *string         `json:"log"`
	TS          json.RawMessage `json:"ts"`
	Timestamp   json.RawMessage `json:"timestamp"`
	Time        json.RawMessage `json:"time"`
	AtTimestamp json.RawMessage `json:"@timestamp"`
	Date        json.RawMessage `json:"date"`
	Stream      *string         `json:"stream"`
}

// text is the first of the line's text fields that is present.
func (w *ndjsonLine) text() *string {
	for _, t := range []*string{w.Line, w.Message, w.Msg, w.Log} {
		if t != nil {
			return t
		}
	}
	return nil
}

// aliasTS is the first of the alternative time fields that is present.
func (w *ndjsonLine) aliasTS() json.RawMessage {
	for _, t := range []json.RawMessage{w.Timestamp, w.Time, w.AtTimestamp, w.Date} {
		if len(t) > 0 && string(t) != "null" {
			return t
		}
	}
	return nil
}

// NDJSON decodes an application/x-ndjson body: one object per line,
// {"seq": 12, "line": "...", "ts": "RFC 3339" or unix ns, "stream": "stdout"}.
// Blank lines are skipped. Either every object has a seq or none has, and
// no two have the same. The first bad object rejects the whole batch with
// a message naming its line (and, for a repeated seq, the line it repeats).
func NDJSON(body []byte, maxLineBytes int) ([]Line, error) {
	var lines []Line
	var seqs seqIndex
	for n := 1; len(body) > 0; n++ {
		raw, rest, _ := bytes.Cut(body, []byte("\n"))
		body = rest
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		l, err := decodeNDJSONLine(raw, maxLineBytes)
		if err != nil {
			return nil, BadRequest("line %d of the body: %v", n, err)
		}
		if len(lines) > 0 && (l.Seq > 0) != (lines[0].Seq > 0) {
			return nil, BadRequest("line %d of the body: either every object has a \"seq\" or none has", n)
		}
		if len(lines) == MaxBatchLines {
			return nil, TooManyLines()
		}
		if first := seqs.add(l.Seq, n); first != 0 {
			return nil, BadRequest("line %d of the body has the \"seq\" %d of line %d: every line of a batch needs its own seq", n, l.Seq, first)
		}
		lines = append(lines, l)
	}
	return lines, nil
}

// seqIndex finds a seq that repeats in a batch, by where it was seen (a
// line of the body, an element of an array). The usual batch's seqs
// increase, which needs no index: one is made when a seq comes that is not
// above every seq before it.
type seqIndex struct {
	max   int64
	seqs  []int64 // in order, with where each came
	where []int
	seen  map[int64]int
}

// add records seq, seen at where (0 is no seq: nothing to check), and
// returns where it was seen before, or 0.
func (x *seqIndex) add(seq int64, where int) int {
	if seq == 0 {
		return 0
	}
	if x.seen == nil && seq > x.max {
		x.max = seq
		x.seqs, x.where = append(x.seqs, seq), append(x.where, where)
		return 0
	}
	if x.seen == nil {
		x.seen = make(map[int64]int, len(x.seqs)+1)
		for i, s := range x.seqs {
			x.seen[s] = x.where[i]
		}
		x.seqs, x.where = nil, nil
	}
	if first, ok := x.seen[seq]; ok {
		return first
	}
	x.seen[seq] = where
	return 0
}

func decodeNDJSONLine(raw []byte, maxLineBytes int) (Line, error) {
	var w ndjsonLine
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&w); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return Line{}, fmt.Errorf("%q has the wrong type (%s)", typeErr.Field, typeErr.Value)
		}
		return Line{}, fmt.Errorf("not a JSON object: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Line{}, errors.New("more than one JSON value on the line")
	}
	text := w.text()
	if text == nil {
		return Line{}, errors.New(`missing "line" (or "message", "msg", "log")`)
	}
	l := Line{Text: cleanLine([]byte(*text), maxLineBytes)}
	if len(w.Seq) > 0 && string(w.Seq) != "null" {
		seq, err := strconv.ParseInt(string(w.Seq), 10, 64)
		if err != nil || seq < 1 || seq > MaxSeq {
			return Line{}, fmt.Errorf(`"seq" must be a positive integer up to %s, got %s`, MaxSeqText, w.Seq)
		}
		l.Seq = seq
	}
	if len(w.TS) > 0 && string(w.TS) != "null" {
		ts, err := parseTS(w.TS)
		if err != nil {
			return Line{}, err
		}
		l.TS = ts
	} else if raw := w.aliasTS(); raw != nil {
		ts, err := parseAnyTS(raw)
		if err != nil {
			return Line{}, err
		}
		l.TS = ts
	}
	if y := l.TS.UTC().Year(); y < 1 || y > 9999 {
		// Stored, such a time could never be written back as RFC 3339
		// (encoding/json refuses years outside 0-9999): every read of the
		// launch's lines would fail.
		return Line{}, fmt.Errorf("the time %s is out of range (years 1 to 9999 in UTC)", l.TS.Format(time.RFC3339Nano))
	}
	if w.Stream != nil {
		switch *w.Stream {
		case "", "stdout", "stderr":
			l.Stream = *w.Stream
		default:
			return Line{}, fmt.Errorf(`"stream" must be "stdout" or "stderr", got %q`, *w.Stream)
		}
	}
	if l.Seq == 0 && !l.TS.IsZero() {
		// A seqless line with a time has an identity: a retried batch
		// stores it once (see LineKey).
		l.Key = LineKey("native\x00"+l.Stream, l.TS, l.Text)
	}
	return l, nil
}

// JSON decodes an application/json body: an array of objects with
// the fields of an NDJSON line (Vector's and Fluent Bit's default HTTP
// body), or a single such object. Either every object has a seq or none
// has; the first bad object rejects the whole batch.
func JSON(body []byte, maxLineBytes int) ([]Line, error) {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return nil, nil
	}
	if body[0] == '{' {
		l, err := decodeNDJSONLine(body, maxLineBytes)
		if err != nil {
			return nil, BadRequest("the body: %v", err)
		}
		return []Line{l}, nil
	}
	// Element by element, so a huge array is refused at MaxBatchLines
	// instead of being decoded whole first.
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, BadRequest("body is not a JSON array of objects or one object")
	}
	var lines []Line
	var seqs seqIndex
	for i := 0; dec.More(); i++ {
		if len(lines) == MaxBatchLines {
			return nil, TooManyLines()
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, BadRequest("body is not a JSON array of objects: %v", err)
		}
		l, err := decodeNDJSONLine(raw, maxLineBytes)
		if err != nil {
			return nil, BadRequest("element %d of the array: %v", i, err)
		}
		if len(lines) > 0 && (l.Seq > 0) != (lines[0].Seq > 0) {
			return nil, BadRequest("element %d of the array: either every object has a \"seq\" or none has", i)
		}
		// Elements are counted from 0 in messages; where 0 means "no seq" to
		// the index, so it is told i+1.
		if first := seqs.add(l.Seq, i+1); first != 0 {
			return nil, BadRequest("element %d of the array has the \"seq\" %d of element %d: every line of a batch needs its own seq", i, l.Seq, first-1)
		}
		lines = append(lines, l)
	}
	if _, err := dec.Token(); err != nil {
		return nil, BadRequest("body is not a JSON array of objects: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, BadRequest("body is not one JSON array: something follows it")
	}
	return lines, nil
}

// parseAnyTS reads the time of a shipper that is not ours: an RFC 3339
// string, or a unix time whose unit is told by its size (seconds, possibly
// with a fraction, as Fluent Bit's "date"; milliseconds; microseconds;
// nanoseconds), as a number or a string.
func parseAnyTS(raw json.RawMessage) (time.Time, error) {
	s := string(raw)
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return time.Time{}, fmt.Errorf("the time is not a valid string: %v", err)
		}
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	// f < 2^63: a larger number is no unix time in any unit (and would not
	// convert to int64 nanoseconds); !(f > 0) also refuses NaN.
	if err != nil || !(f > 0) || f >= 1<<63 || strings.ContainsAny(s, "xXnN") {
		return time.Time{}, fmt.Errorf("the time must be RFC 3339 or a unix time, got %s", raw)
	}
	switch {
	case f < 1e11:
		return time.Unix(0, int64(f*1e9)).UTC(), nil
	case f < 1e14:
		return time.Unix(0, int64(f*1e6)).UTC(), nil
	case f < 1e17:
		return time.Unix(0, int64(f*1e3)).UTC(), nil
	}
	if ns, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.Unix(0, ns).UTC(), nil
	}
	return time.Unix(0, int64(f)).UTC(), nil
}

// minUnixNanos is 1973-03-03 in nanoseconds: a smaller number is almost
// certainly seconds or milliseconds sent where nanoseconds were meant.
const minUnixNanos = 1e17

// parseTS reads an RFC 3339 string, or unix nanoseconds as a number or a
// string of digits.
func parseTS(raw json.RawMessage) (time.Time, error) {
	s := string(raw)
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return time.Time{}, fmt.Errorf(`"ts" is not a valid string: %v`, err)
		}
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t, nil
		}
	}
	ns, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf(`"ts" must be an RFC 3339 time or unix nanoseconds, got %s`, raw)
	}
	if ns < minUnixNanos {
		return time.Time{}, fmt.Errorf(`"ts" %d is too small for unix nanoseconds (seconds or milliseconds?)`, ns)
	}
	return time.Unix(0, ns).UTC(), nil
}
