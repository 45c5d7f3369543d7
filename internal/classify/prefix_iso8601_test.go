package classify

import "testing"

// Triton's --log-format ISO8601 writes the glog fields after an ISO time:
// the level letter, the pid and file:line, then the quoted message.
func TestTritonISO8601Prefix(t *testing.T) {
	for _, c := range []struct{ line, level, body string }{
		{`2031-01-02T03:04:05Z I 1 grpc_server.cc:2562] "Started GRPCInferenceService at 0.0.0.0:8001"`, "INFO", "Started GRPCInferenceService at 0.0.0.0:8001"},
		{`2031-01-02T03:04:05Z E 77 model_lifecycle.cc:654] "failed to load 'm' version 1: Internal: boom"`, "ERROR", "failed to load 'm' version 1: Internal: boom"},
		{`2031-01-02T03:04:05Z W 12 onnxruntime.cc:2741] plain message`, "WARNING", "plain message"},
		// not glog fields: a sentence after a time keeps its words
		{`2031-01-02T03:04:05Z I 2 apples were eaten] today`, "", "I 2 apples were eaten] today"},
	} {
		p := ParsePrefix(c.line, 2031)
		if p.Level != c.level || p.Body != c.body {
			t.Errorf("%q: level %q body %q, want %q %q", c.line, p.Level, p.Body, c.level, c.body)
		}
	}
}
