package decode

import (
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// The Loki push protobuf (grafana/loki pkg/push/push.proto), decoded by
// hand so that no Loki module is needed:
//
//	message PushRequest   { repeated StreamAdapter streams = 1; }
//	message StreamAdapter { string labels = 1; repeated EntryAdapter entries = 2; uint64 hash = 3; }
//	message EntryAdapter  { google.protobuf.Timestamp timestamp = 1; string line = 2;
//	                        repeated LabelPairAdapter structuredMetadata = 3; ... }
//	message Timestamp     { int64 seconds = 1; int32 nanos = 2; }
//
// Unknown fields are skipped, as protobuf requires.

// maxUnixSeconds is 9999-12-31T23:59:59Z.
const maxUnixSeconds = 253402300799

// decodePushRequest decodes a PushRequest.
func decodePushRequest(b []byte) ([]lokiStream, error) {
	var streams []lokiStream
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte) error {
		if num != 1 {
			return nil
		}
		if typ != protowire.BytesType {
			return errors.New("streams: wrong wire type")
		}
		s, err := decodeStream(v)
		if err != nil {
			return fmt.Errorf("stream %d: %w", len(streams), err)
		}
		streams = append(streams, s)
		return nil
	})
	return streams, err
}

func decodeStream(b []byte) (lokiStream, error) {
	var s lokiStream
	var labels string
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte) error {
		switch num {
		case 1:
			if typ != protowire.BytesType {
				return errors.New("labels: wrong wire type")
			}
			labels = string(v)
		case 2:
			if typ != protowire.BytesType {
				return errors.New("entries: wrong wire type")
			}
			e, err := decodeEntry(v)
			if err != nil {
				return fmt.Errorf("entry %d: %w", len(s.entries), err)
			}
			s.entries = append(s.entries, e)
		}
		return nil
	})
	if err != nil {
		return s, err
	}
	if s.labels, err = ParseLabels(labels); err != nil {
		return s, err
	}
	return s, nil
}

func decodeEntry(b []byte) (lokiEntry, error) {
	var e lokiEntry
	var sec, nsec int64
	err := eachField(b, func(num protowire.Number, typ protowire.Type, v []byte) error {
		switch num {
		case 1:
			if typ != protowire.BytesType {
				return errors.New("timestamp: wrong wire type")
			}
			return eachField(v, func(num protowire.Number, typ protowire.Type, v []byte) error {
				if num != 1 && num != 2 {
					return nil
				}
				if typ != protowire.VarintType {
					return errors.New("timestamp: wrong wire type")
				}
				x, n := protowire.ConsumeVarint(v)
				if n < 0 {
					return protowire.ParseError(n)
				}
				if num == 1 {
					sec = int64(x)
				} else {
					nsec = int64(int32(x))
				}
				return nil
			})
		case 2:
			if typ != protowire.BytesType {
				return errors.New("line: wrong wire type")
			}
			e.line = string(v)
		}
		return nil
	})
	if err != nil {
		return e, err
	}
	// Past year 9999 is no log time (and beyond what PostgreSQL stores).
	if sec < 0 || sec > maxUnixSeconds || nsec < 0 || nsec >= 1e9 {
		return e, fmt.Errorf("timestamp %d.%09d is out of range", sec, nsec)
	}
	e.ts = time.Unix(sec, nsec).UTC()
	return e, nil
}

// eachField calls fn with every field of the message b. For a varint field
// v holds its encoded bytes (read them with protowire.ConsumeVarint); for a
// length-delimited field, its contents.
func eachField(b []byte, fn func(protowire.Number, protowire.Type, []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		var v []byte
		switch typ {
		case protowire.BytesType:
			var m int
			v, m = protowire.ConsumeBytes(b)
			if m < 0 {
				return protowire.ParseError(m)
			}
			b = b[m:]
		default:
			m := protowire.ConsumeFieldValue(num, typ, b)
			if m < 0 {
				return protowire.ParseError(m)
			}
			v, b = b[:m], b[m:]
		}
		if err := fn(num, typ, v); err != nil {
			return err
		}
	}
	return nil
}
