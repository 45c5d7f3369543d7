package web_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"math/rand/v2"
	"testing"
)

// The size limit is on the decompressed body, but the compressed bytes were
// cut at the same limit: a gzip or deflate body of data that does not
// compress, which decompresses to less than the limit, was refused as "not
// valid compressed data" (400), and one that decompresses to more than the
// limit got that 400 instead of 413.
func TestIngestCompressedBodyNearTheLimit(t *testing.T) {
	t.Parallel()
	b := setupWith(t, webConfigSmallBody) // 64 KiB
	noise := func(n int) string {
		rnd := rand.New(rand.NewPCG(1, uint64(n)))
		p := make([]byte, n)
		for i := range p {
			p[i] = byte('!' + rnd.IntN(94)) // printable, one line
			if i%100 == 99 {
				p[i] = '\n'
			}
		}
		return string(p)
	}
	deflated := func(s string) []byte {
		var buf bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&buf, zlib.NoCompression)
		zw.Write([]byte(s)) //nolint:errcheck // writes to memory
		zw.Close()
		return buf.Bytes()
	}
	gzipped := func(s string) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.NoCompression)
		zw.Write([]byte(s)) //nolint:errcheck // writes to memory
		zw.Close()
		return buf.Bytes()
	}
	tests := []struct {
		name, encoding string
		body           []byte
		status         int
	}{
		{"GzipUnderTheLimit", "gzip", gzipped(noise(64<<10 - 1)), 200},
		{"DeflateUnderTheLimit", "deflate", deflated(noise(64<<10 - 1)), 200},
		{"GzipOverTheLimit", "gzip", gzipped(noise(64<<10 + 4096)), 413},
		{"DeflateOverTheLimit", "deflate", deflated(noise(64<<10 + 4096)), 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.status == 200 && len(tt.body) <= 64<<10 {
				t.Fatalf("the compressed body is %d bytes: the test needs more than the limit", len(tt.body))
			}
			r := b.do("POST", "/api/v1/launches/compressed/lines", "text/plain", tt.body, "Content-Encoding", tt.encoding)
			if r.status != tt.status {
				t.Errorf("%d compressed bytes: got %d %s, want %d", len(tt.body), r.status, r.body, tt.status)
			}
		})
	}
}
