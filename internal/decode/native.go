package decode

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// The native API (POST /api/v1/launches/{key}/lines): a body of text
// lines, NDJSON objects or a JSON array of objects, the format named by
// its Content-Type. The seq rule lives here: a text batch's lines are
// numbered from its ?seq= (or after the launch's last stored line, when
// absent); NDJSON objects and JSON array elements carry their own "seq"
// (or none), so ?seq= on them is refused rather than ignored.

// NativeBatch is how the body of a native batch is to be decoded, read
// from the request before its body: its format and the seq of a text
// batch's first line.
type NativeBatch struct {
	Format   Format
	firstSeq int64 // ?seq=, 0 when absent
	seqGiven bool
}

// NativeBatchOf reads a native batch's ?seq= and Content-Type, in that
// order: either one that is not valid is refused before the body is read.
func NativeBatchOf(q url.Values, contentType string) (NativeBatch, error) {
	first, err := seqParam(q)
	if err != nil {
		return NativeBatch{}, err
	}
	format, err := formatOf(contentType)
	if err != nil {
		return NativeBatch{}, err
	}
	return NativeBatch{Format: format, firstSeq: first, seqGiven: q.Has("seq")}, nil
}

// Native decodes body, the body of native batch b, into lines.
func Native(body []byte, b NativeBatch, maxLineBytes int) ([]Line, error) {
	switch {
	case b.Format != FormatText && b.seqGiven:
		return nil, BadRequest("seq is a parameter of text/plain batches; NDJSON objects carry their own \"seq\", and so do JSON arrays")
	case b.Format == FormatNDJSON:
		return NDJSON(body, maxLineBytes)
	case b.Format == FormatJSON:
		return JSON(body, maxLineBytes)
	}
	return Text(body, b.firstSeq, maxLineBytes)
}

// Format is the wire format of a native batch.
type Format int

// Native batch formats.
const (
	FormatText   Format = iota // text/plain: one line per \n
	FormatNDJSON               // application/x-ndjson: one JSON object per line
	FormatJSON                 // application/json: an array of such objects
)

// formatOf maps a Content-Type header to a format. curl's default
// (application/x-www-form-urlencoded, from --data-binary without -H) and a
// missing header are read as plain text, since that is what people send
// when they post a log file by hand.
func formatOf(contentType string) (Format, error) {
	if strings.TrimSpace(contentType) == "" {
		return FormatText, nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return 0, &InputError{Status: http.StatusUnsupportedMediaType, Message: fmt.Sprintf("unreadable Content-Type %q", contentType)}
	}
	switch mt {
	case "text/plain", "application/x-www-form-urlencoded", "application/octet-stream":
		return FormatText, nil
	case "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines":
		return FormatNDJSON, nil
	case "application/json":
		return FormatJSON, nil
	}
	return 0, &InputError{Status: http.StatusUnsupportedMediaType,
		Message: fmt.Sprintf("unsupported Content-Type %q: send text/plain (one line per \\n), application/x-ndjson or application/json", mt)}
}

// seqParam reads the seq of a text batch's first line (?seq=); 0, when
// absent, numbers the lines after the last stored one.
func seqParam(q url.Values) (int64, error) {
	s := q.Get("seq")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 || n > MaxSeq {
		return 0, BadRequest("seq must be an integer from 1 to %s, got %q", MaxSeqText, s)
	}
	return n, nil
}
