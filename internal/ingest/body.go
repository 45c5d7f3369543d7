package ingest

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// DefaultMaxBodyBytes is the largest request body accepted (after decompression).
const DefaultMaxBodyBytes = 16 << 20

// Format is the wire format of a native batch.
type Format int

// Native batch formats.
const (
	FormatText   Format = iota // text/plain: one line per \n
	FormatNDJSON               // application/x-ndjson: one JSON object per line
	FormatJSON                 // application/json: an array of such objects
)

// FormatOf maps a Content-Type header to a format. curl's default
// (application/x-www-form-urlencoded, from --data-binary without -H) and a
// missing header are read as plain text, since that is what people send
// when they post a log file by hand.
func FormatOf(contentType string) (Format, error) {
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

// ReadBody reads a request body of at most maxBytes, decompressing it first
// when contentEncoding says gzip or deflate; the limit applies to the
// decompressed bytes too, so a small compressed bomb is refused the same way.
func ReadBody(body io.Reader, contentEncoding string, maxBytes int64) ([]byte, error) {
	r := io.LimitReader(body, maxBytes+1)
	switch enc := strings.ToLower(strings.TrimSpace(contentEncoding)); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, badRequest("body is not valid gzip: %v", err)
		}
		defer zr.Close()
		r = io.LimitReader(zr, maxBytes+1)
	case "deflate":
		// HTTP's deflate is zlib-wrapped, but some clients send raw deflate.
		peek, err := io.ReadAll(r)
		if err != nil {
			return nil, readError(err, maxBytes)
		}
		r = io.LimitReader(inflate(peek), maxBytes+1)
	default:
		return nil, &InputError{Status: http.StatusUnsupportedMediaType,
			Message: fmt.Sprintf("unsupported Content-Encoding %q: send gzip, deflate or no encoding", enc)}
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, readError(err, maxBytes)
	}
	if int64(len(data)) > maxBytes {
		return nil, tooLarge(maxBytes)
	}
	return data, nil
}

func inflate(compressed []byte) io.Reader {
	if zr, err := zlib.NewReader(bytes.NewReader(compressed)); err == nil {
		return zr
	}
	return flate.NewReader(bytes.NewReader(compressed))
}

func readError(err error, maxBytes int64) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(maxBytes)
	}
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) {
		return badRequest("body is not valid compressed data: %v", err)
	}
	var ce flate.CorruptInputError
	if errors.As(err, &ce) {
		return badRequest("body is not valid compressed data: %v", err)
	}
	return badRequest("reading body: %v", err)
}

func tooLarge(maxBytes int64) error {
	return &InputError{Status: http.StatusRequestEntityTooLarge,
		Message: fmt.Sprintf("body larger than %d bytes: split it into smaller batches", maxBytes)}
}
