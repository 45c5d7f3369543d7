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
