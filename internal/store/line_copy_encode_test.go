package store

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestLineCopyEncodesAsPgx: every column of a row lineCopy encodes is the
// bytes pgx's own binary encoding gives the same value for the column's
// type, NULLs included.
func TestLineCopyEncodesAsPgx(t *testing.T) {
	t.Parallel()
	logged := time.Date(1999, 12, 31, 23, 59, 59, 999_999_999, time.UTC) // before PostgreSQL's epoch, sub-microsecond
	alarm := 7
	zone := time.FixedZone("x", -5*3600)
	rows := []Line{
		{Seq: 1, TS: time.Date(2026, 4, 2, 9, 28, 1, 123_456_789, zone), ReceivedAt: time.Unix(1_775_000_000, 5).UTC(),
			LoggedAt: &logged, Stream: "stderr", Kind: "error", Level: "ERROR", Rank: "TP3", AlarmNo: &alarm, Text: "Grüße, ünïcode ✓"},
		{Seq: 1 << 53, TS: time.Time{}, ReceivedAt: time.Unix(0, 0), Kind: "plain", Text: ""},
	}
	m := pgtype.NewMap()
	for _, l := range rows {
		c := &lineCopy{launchID: 42}
		got, err := c.appendRow(nil, &l)
		if err != nil {
			t.Fatal(err)
		}
		want := binary.BigEndian.AppendUint16(nil, uint16(len(copyLineColumns)))
		fields := []struct {
			oid uint32
			v   any
		}{
			{pgtype.Int8OID, int64(42)}, {pgtype.Int8OID, l.Seq}, {pgtype.TimestamptzOID, l.TS}, {pgtype.TimestamptzOID, l.ReceivedAt},
			{pgtype.TimestamptzOID, l.LoggedAt}, {pgtype.TextOID, l.Stream}, {pgtype.TextOID, l.Kind}, {pgtype.TextOID, l.Level},
			{pgtype.TextOID, l.Rank}, {pgtype.Int4OID, l.AlarmNo}, {pgtype.TextOID, l.Text},
		}
		for _, f := range fields {
			enc, err := m.Encode(f.oid, pgtype.BinaryFormatCode, f.v, []byte{})
			if err != nil {
				t.Fatal(err)
			}
			if enc == nil {
				want = binary.BigEndian.AppendUint32(want, 0xffffffff)
				continue
			}
			want = binary.BigEndian.AppendUint32(want, uint32(len(enc)))
			want = append(want, enc...)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("line %d encodes as\n%x\npgx encodes it as\n%x", l.Seq, got, want)
		}
	}
}
