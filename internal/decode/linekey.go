package decode

import (
	"crypto/sha256"
	"encoding/binary"
	"time"
)

// LineKey is the duplicate key of a line that has no seq: a hash of the
// stream it came in (Loki's sorted label string, an OTLP resource and
// scope, a native stream), its timestamp in nanoseconds and its text. Like
// Loki's exact-duplicate rule, a second line with the same three is a
// retry and is not stored; the same text at another time, or another text
// at the same time, is a new line.
func LineKey(stream string, ts time.Time, text string) []byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(stream)))
	h.Write(n[:])
	h.Write([]byte(stream))
	binary.BigEndian.PutUint64(n[:], uint64(ts.UnixNano()))
	h.Write(n[:])
	h.Write([]byte(text))
	return h.Sum(nil)[:16]
}
