package store

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"
	"time"
)

// lineCopy is the body of a binary COPY of lines (copyLineColumns), read
// by pgconn a buffer at a time: rows come from next a piece at a time. It
// encodes the
// rows itself, without pgx's per-value planning and boxing (a dozen
// allocations a line); line_copy_test.go holds it to pgx's encoding.
type lineCopy struct {
	next     func() ([]Line, error)
	launchID int64
	cur      []Line // the rest of the current piece
	rows     int64
	copyStream
}

// copyStream is what a binary COPY's encoder shares with the database's
// reads of it (lineCopy's rows, blockCopy's blocks): the bytes encoded and
// not read yet, buf[off:], and what stopped the encoding.
type copyStream struct {
	buf     []byte
	off     int
	started bool // the COPY header is written
	done    bool // the encoder has no more to give
	// errMu guards err: when the connection breaks, pgconn may return
	// before its goroutine stops reading (which then ends with an error
	// of its own), so the COPY's caller reads err while Read may write it.
	errMu sync.Mutex
	err   error // what stopped the encoding
}

// failure is what stopped the encoding, if anything did.
func (c *copyStream) failure() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// copyHeader starts a binary COPY: the signature, no flags, no extension.
var copyHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// read is an io.Reader's Read over what fill (the encoder's) appends to
// buf, about as many bytes as p holds at a time.
func (c *copyStream) read(p []byte, fill func(want int) error) (int, error) {
	for c.off >= len(c.buf) {
		if c.done {
			return 0, io.EOF
		}
		c.buf, c.off = c.buf[:0], 0
		if err := fill(len(p)); err != nil {
			c.errMu.Lock()
			c.err = err
			c.errMu.Unlock()
			return 0, err
		}
	}
	n := copy(p, c.buf[c.off:])
	c.off += n
	return n, nil
}

func (c *lineCopy) Read(p []byte) (int, error) { return c.read(p, c.fill) }

// fill encodes rows until about want bytes are ready. It waits for the
// next piece only when nothing is ready: what is encoded goes to the
// database first.
func (c *lineCopy) fill(want int) error {
	if !c.started {
		c.buf = append(c.buf, copyHeader...)
		c.started = true
	}
	for len(c.buf) < want {
		if len(c.cur) == 0 {
			if len(c.buf) > 0 {
				return nil
			}
			piece, err := c.next()
			if err != nil {
				return err
			}
			if piece == nil {
				c.done = true
				return nil
			}
			c.cur = piece
			continue
		}
		var err error
		if c.buf, err = c.appendRow(c.buf, &c.cur[0]); err != nil {
			return err
		}
		c.cur = c.cur[1:]
		c.rows++
	}
	return nil
}

// appendRow encodes one line in the order of copyLineColumns.
func (c *lineCopy) appendRow(b []byte, l *Line) ([]byte, error) {
	b = binary.BigEndian.AppendUint16(b, uint16(len(copyLineColumns)))
	b = appendInt8(b, c.launchID)
	b = appendInt8(b, l.Seq)
	b = appendTimestamptz(b, l.TS)
	b = appendTimestamptz(b, l.ReceivedAt)
	if l.LoggedAt == nil {
		b = appendNull(b)
	} else {
		b = appendTimestamptz(b, *l.LoggedAt)
	}
	b = appendText(b, l.Stream)
	b = appendText(b, l.Kind)
	b = appendText(b, l.Level)
	b = appendText(b, l.Rank)
	switch {
	case l.AlarmNo == nil:
		b = appendNull(b)
	case *l.AlarmNo < math.MinInt32 || *l.AlarmNo > math.MaxInt32:
		return nil, fmt.Errorf("alarm number %d of line %d is out of range", *l.AlarmNo, l.Seq)
	default:
		b = binary.BigEndian.AppendUint32(b, 4)
		b = binary.BigEndian.AppendUint32(b, uint32(int32(*l.AlarmNo)))
	}
	if len(l.Text) > math.MaxInt32 {
		return nil, fmt.Errorf("line %d is too long", l.Seq)
	}
	return appendText(b, l.Text), nil
}

func appendNull(b []byte) []byte { return binary.BigEndian.AppendUint32(b, math.MaxUint32) } // length -1

func appendInt8(b []byte, v int64) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(v))
}

// y2k is PostgreSQL's epoch, in microseconds after Unix's.
const y2k = 946_684_800 * 1_000_000

// appendTimestamptz encodes t as microseconds since 2000-01-01 UTC, as
// pgx does (sub-microsecond digits dropped).
func appendTimestamptz(b []byte, t time.Time) []byte {
	b = binary.BigEndian.AppendUint32(b, 8)
	return binary.BigEndian.AppendUint64(b, uint64(t.Unix()*1_000_000+int64(t.Nanosecond())/1000-y2k))
}

func appendText(b []byte, s string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}
