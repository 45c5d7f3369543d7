package decode

import (
	"bytes"
	"testing"
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
