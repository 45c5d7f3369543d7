package decode

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// The Collector's filelog receiver stamps each line with the time it read
// it: two equal lines of a file read within one nanosecond would share a
// duplicate key, and the second would be dropped as a retry of the first.
// The record number it gives each line of the file (log.file.record_number)
// tells them apart; a retry of the same record keeps its key.
func TestOTLPRecordNumberSeparatesEqualLinesOfOneInstant(t *testing.T) {
	t.Parallel()
	record := func(n int) string {
		return `{"timeUnixNano":"0","observedTimeUnixNano":"1772359200000000000","body":{"stringValue":"INFO same line"},
			"attributes":[{"key":"log.file.name","value":{"stringValue":"server.log"}},
			{"key":"log.file.record_number","value":{"intValue":"` + string(rune('0'+n)) + `"}}]}`
	}
	body := `{"resourceLogs":[{"resource":{"attributes":[{"key":"launchwatch.launch","value":{"stringValue":"rn"}}]},
		"scopeLogs":[{"logRecords":[` + record(1) + `,` + record(2) + `,` + record(1) + `]}]}]}`
	res, err := OTLP([]byte(body), OTLPJSON, DefaultMaxLineBytes)
	if err != nil {
		t.Fatal(err)
	}
	lines := res.Batches[0].Lines
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3", len(lines))
	}
	if bytes.Equal(lines[0].Key, lines[1].Key) {
		t.Error("lines 1 and 2 of the file share a key: the second would be dropped as a retry")
	}
	if !bytes.Equal(lines[0].Key, lines[2].Key) {
		t.Error("record 1 sent again has another key: a retry would be stored twice")
	}
}

// TestOTLPErrorIsAStatus: a refusal is a google.rpc.Status, code 3
// (INVALID_ARGUMENT) and the message, in the request's encoding.
func TestOTLPErrorIsAStatus(t *testing.T) {
	t.Parallel()
	msg := `body is not <JSON> & "so on"`
	if got, want := string(OTLPError(OTLPJSON, msg)), `{"code":3,"message":"body is not \u003cJSON\u003e \u0026 \"so on\""}`+"\n"; got != want {
		t.Errorf("JSON: %s, want %s", got, want)
	}
	b := OTLPError(OTLPProto, msg)
	var code uint64
	var got string
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("protobuf: %x is not a message", b)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			code, n = protowire.ConsumeVarint(b)
		case num == 2 && typ == protowire.BytesType:
			got, n = protowire.ConsumeString(b)
		default:
			t.Fatalf("protobuf: unexpected field %d", num)
		}
		if n < 0 {
			t.Fatal("protobuf: a field does not parse")
		}
		b = b[n:]
	}
	if code != 3 || got != msg {
		t.Errorf("protobuf: code %d message %q, want 3 and %q", code, got, msg)
	}
}
