// Package auditchain is the audit log's hash chain, computed again away
// from the database that wrote it: each row's hash is
// sha256(previous row's hash || Content(row)), the first row's previous
// hash 32 zero bytes, as migration 00030's trigger computes it when the
// row is inserted. A row changed afterwards, by anyone who could get round
// the log's append-only trigger, no longer matches its hash; a row taken
// out leaves a hole in the places; rows cut off the end leave the chain's
// head pointing past the last row. `launchwatch audit verify` uses it. No
// I/O.
package auditchain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"
)

// Row is what a row's hash covers.
type Row struct {
	Seq     int64  // its place in the chain, from 1
	ID      int64  // the audit event's id
	AtMicro int64  // when it was recorded, in unix microseconds
	Actor   string // who
	Action  string
	Subject string
	Detail  string // the detail as PostgreSQL writes jsonb (detail::text)
}

// Genesis is the previous hash of the chain's first row.
var Genesis = make([]byte, sha256.Size)

// Content is the bytes of r that its hash covers: a version line, then
// each field as its length in bytes, ':', the field and a newline.
func Content(r Row) []byte {
	var b bytes.Buffer
	b.WriteString("launchwatch audit v1\n")
	for _, f := range []string{strconv.FormatInt(r.Seq, 10), strconv.FormatInt(r.ID, 10), strconv.FormatInt(r.AtMicro, 10),
		r.Actor, r.Action, r.Subject, r.Detail} {
		b.WriteString(strconv.Itoa(len(f)))
		b.WriteByte(':')
		b.WriteString(f)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Hash is the hash of r after a row whose hash is prev.
func Hash(prev []byte, r Row) []byte {
	h := sha256.New()
	h.Write(prev)
	h.Write(Content(r))
	return h.Sum(nil)
}

// BrokenError says where the chain is broken, and how.
type BrokenError struct {
	Seq    int64 // the first place that does not hold
	Row    *Row  // the row there, if there is one
	Reason string
}

func (e *BrokenError) Error() string {
	if e.Row == nil {
		return fmt.Sprintf("the audit log is broken at row %d: %s", e.Seq, e.Reason)
	}
	r := e.Row
	return fmt.Sprintf("the audit log is broken at row %d (audit event %d, %s by %s on %s at %s): %s", e.Seq, r.ID, r.Action, r.Actor,
		r.Subject, time.UnixMicro(r.AtMicro).UTC().Format(time.RFC3339Nano), e.Reason)
}

// Verifier checks a chain's rows in their order.
type Verifier struct {
	prev []byte
	seq  int64
	// Anchor, when its Seq is set, is a place and hash noted earlier
	// (verify's output): the row there must still have that hash, which
	// catches a chain rewritten from that row on by someone who computed
	// every later hash again.
	Anchor struct {
		Seq  int64
		Hash []byte
	}
	anchored bool
}

// NewVerifier returns a verifier for a chain from its first row.
func NewVerifier() *Verifier { return &Verifier{prev: Genesis} }

// Rows is how many rows were checked.
func (v *Verifier) Rows() int64 { return v.seq }

// Last is the hash of the last row checked (Genesis before any).
func (v *Verifier) Last() []byte { return v.prev }

// Check checks the next row, stored with hash: it must take the next
// place, and its hash must be the one computed from the row before and its
// content. It returns a *BrokenError when it is not.
func (v *Verifier) Check(r Row, hash []byte) error {
	switch {
	case r.Seq <= v.seq:
		return &BrokenError{Seq: r.Seq, Row: &r, Reason: fmt.Sprintf("it comes again after row %d (rows out of order)", v.seq)}
	case r.Seq != v.seq+1:
		return &BrokenError{Seq: v.seq + 1, Reason: fmt.Sprintf("it is missing: the next row is %d (rows were deleted)", r.Seq)}
	}
	want := Hash(v.prev, r)
	if !bytes.Equal(want, hash) {
		return &BrokenError{Seq: r.Seq, Row: &r, Reason: fmt.Sprintf("its hash %s is not the %s its content and the row before give: it was changed after it was written",
			short(hash), short(want))}
	}
	if v.Anchor.Seq == r.Seq {
		if !bytes.Equal(hash, v.Anchor.Hash) {
			return &BrokenError{Seq: r.Seq, Row: &r, Reason: fmt.Sprintf("its hash %s is not the %s noted for it: the log was rewritten from here on or before",
				short(hash), short(v.Anchor.Hash))}
		}
		v.anchored = true
	}
	v.prev, v.seq = hash, r.Seq
	return nil
}

// End checks the end of the chain against its head (the place and hash of
// the last row chained, as the database keeps it): rows cut off the end
// leave the head past the last row.
func (v *Verifier) End(headSeq int64, headHash []byte) error {
	if headSeq > v.seq {
		return &BrokenError{Seq: v.seq + 1, Reason: fmt.Sprintf("the log ends at row %d but its head says %d rows were chained (rows at the end were deleted)", v.seq, headSeq)}
	}
	if headSeq < v.seq {
		return &BrokenError{Seq: headSeq + 1, Reason: fmt.Sprintf("the head says %d rows were chained but the log goes on to row %d (the head was changed)", headSeq, v.seq)}
	}
	if !bytes.Equal(headHash, v.prev) {
		return &BrokenError{Seq: v.seq, Reason: fmt.Sprintf("the head's hash %s is not the last row's %s (the head was changed)", short(headHash), short(v.prev))}
	}
	if v.Anchor.Seq > 0 && !v.anchored {
		return &BrokenError{Seq: v.Anchor.Seq, Reason: fmt.Sprintf("the log has no row %d, the row noted", v.Anchor.Seq)}
	}
	return nil
}

func short(h []byte) string {
	s := hex.EncodeToString(h)
	if len(s) > 16 {
		return s[:16] + "…"
	}
	return s
}
