package web_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"testing"

	"launchwatch/internal/web"
)

// webConfigSmallBody keeps size-limit tests fast.
var webConfigSmallBody = web.Config{MaxBodyBytes: 64 << 10}

func gzipped(s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(s)) //nolint:errcheck // writes to memory
	zw.Close()
	return buf.Bytes()
}

// errorMessage returns the "error" field of a JSON error answer.
func errorMessage(t *testing.T, r response) string {
	t.Helper()
	var body struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || body.Error == "" {
		t.Fatalf("error answer %d is not {\"error\": ...}: %s", r.status, r.body)
	}
	return body.Error
}

// report posts a process report and checks the status it answers.
func (b *testBundle) report(path, body, wantStatus string) {
	b.t.Helper()
	r := b.do("POST", path, "application/json", []byte(body))
	if r.status != 200 {
		b.t.Fatalf("%s %s: %d %s", path, body, r.status, r.body)
	}
	var ack struct {
		Status string `json:"status"`
	}
	if err := json.Unmarshal(r.body, &ack); err != nil || ack.Status != wantStatus {
		b.t.Errorf("%s %s: status %q (%s), want %q", path, body, ack.Status, r.body, wantStatus)
	}
}
