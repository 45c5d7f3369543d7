package decode

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// DefaultMaxBodyBytes is the largest request body accepted (after decompression).
const DefaultMaxBodyBytes = 16 << 20

// ReadBody reads a request body of at most maxBytes, decompressing it first
// when contentEncoding says gzip or deflate; the limit applies to the
// decompressed bytes too, so a small compressed bomb is refused the same way.
// size is the length the client announced (Content-Length), or -1: an
// uncompressed body is read into a buffer of that size at once, instead of
// one that doubles as it fills (a 50,000-line batch was copied about three
// times over).
func ReadBody(body io.Reader, contentEncoding string, size, maxBytes int64) ([]byte, error) {
	var r io.Reader
	sized := false
	// Data that does not compress is a little larger compressed (headers,
	// 5 bytes per stored block): the compressed bytes may exceed maxBytes
	// by that much, and more is a body too large, not a corrupt one.
	raw := &limitedReader{r: body, n: maxBytes + maxBytes/64 + 4096}
	switch enc := strings.ToLower(strings.TrimSpace(contentEncoding)); enc {
	case "", "identity":
		r = io.LimitReader(body, maxBytes+1)
		sized = size >= 0 && size <= maxBytes
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(raw)
		if err != nil {
			var inputErr *InputError
			switch {
			case raw.hit:
				return nil, tooLarge(maxBytes)
			case errors.As(err, &inputErr):
				return nil, inputErr
			}
			return nil, BadRequest("body is not valid gzip: %v", err)
		}
		defer zr.Close()
		r = io.LimitReader(zr, maxBytes+1)
	case "deflate":
		// HTTP's deflate is zlib-wrapped, but some clients send raw deflate.
		peek, err := io.ReadAll(raw)
		if err != nil {
			return nil, readError(err, maxBytes)
		}
		if raw.hit {
			return nil, tooLarge(maxBytes)
		}
		r = io.LimitReader(inflate(peek), maxBytes+1)
	default:
		return nil, &InputError{Status: http.StatusUnsupportedMediaType,
			Message: fmt.Sprintf("unsupported Content-Encoding %q: send gzip, deflate or no encoding", enc)}
	}
	var data []byte
	var err error
	if sized {
		// Room for the body and the read that reports its end: a
		// bytes.Buffer grows only when fewer than MinRead bytes are free.
		buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead))
		_, err = buf.ReadFrom(r)
		data = buf.Bytes()
	} else {
		data, err = io.ReadAll(r)
	}
	if int64(len(data)) > maxBytes || raw.hit {
		return nil, tooLarge(maxBytes)
	}
	if err != nil {
		return nil, readError(err, maxBytes)
	}
	return data, nil
}

// limitedReader reads at most n bytes of r and remembers whether r had
// more (hit): then the body is too large, whatever error follows.
type limitedReader struct {
	r   io.Reader
	n   int64
	hit bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		// Look one byte further: a body of exactly n bytes is not too large.
		var one [1]byte
		if k, _ := l.r.Read(one[:]); k > 0 {
			l.hit = true
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	return k, err
}

func inflate(compressed []byte) io.Reader {
	if zr, err := zlib.NewReader(bytes.NewReader(compressed)); err == nil {
		return zr
	}
	return flate.NewReader(bytes.NewReader(compressed))
}

func readError(err error, maxBytes int64) error {
	var inputErr *InputError
	if errors.As(err, &inputErr) { // the body's reader knows better (a body too slow: 408)
		return inputErr
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(maxBytes)
	}
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) {
		return BadRequest("body is not valid compressed data: %v", err)
	}
	var ce flate.CorruptInputError
	if errors.As(err, &ce) {
		return BadRequest("body is not valid compressed data: %v", err)
	}
	return BadRequest("reading body: %v", err)
}

// MaxBatchLines is the most lines one request may carry, whatever its
// protocol: a 16 MiB body of bare newlines is 16 million lines, and every
// line costs memory in decoding, classifying and writing, so the count is
// bounded as well as the bytes.
const MaxBatchLines = 100_000

// TooManyLines answers a request with more than MaxBatchLines lines.
func TooManyLines() error {
	return &InputError{Status: http.StatusRequestEntityTooLarge,
		Message: fmt.Sprintf("more than %d lines in one request: split it into smaller batches", MaxBatchLines)}
}

func tooLarge(maxBytes int64) error {
	return &InputError{Status: http.StatusRequestEntityTooLarge,
		Message: fmt.Sprintf("body larger than %d bytes: split it into smaller batches", maxBytes)}
}
