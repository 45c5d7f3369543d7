package web_test

import (
	"testing"
)

// OTLP times are unsigned nanoseconds; one past 2^63 wrapped to a negative
// int64 and the line was stored in 1677-1969, stretching the launch's
// timeline over centuries. Such a time is no time: the record's observed
// time is used instead, as for a record without one.
func TestOTLPTimePastInt64UsesTheObservedTime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	body := `{"resourceLogs":[{"resource":{"attributes":[{"key":"launchwatch.launch","value":{"stringValue":"wrapped"}}]},
		"scopeLogs":[{"logRecords":[
			{"timeUnixNano":"18446744073709551615","observedTimeUnixNano":"1772359200000000000","body":{"stringValue":"far future"}},
			{"timeUnixNano":"9223372036854775808","body":{"stringValue":"no usable time"}}]}]}]}`
	if r := b.do("POST", "/v1/logs", "application/json", []byte(body)); r.status != 200 {
		t.Fatalf("export: %d %s", r.status, r.body)
	}
	lines := b.lines("wrapped")
	if len(lines) != 2 {
		t.Fatalf("%d lines stored, want 2", len(lines))
	}
	if lines[0].TS != "2026-03-01T10:00:00Z" {
		t.Errorf("line 1 ts = %s, want the observed time 2026-03-01T10:00:00Z", lines[0].TS)
	}
	if lines[1].TS < "2026" {
		t.Errorf("line 2 ts = %s, want the receive time", lines[1].TS)
	}
}
