package classify

import "testing"

// TestGGMLClockPrefix: llama.cpp's --log-prefix --log-timestamps prefix
// gives the level and the body (the srv/slot padding kept); the relative
// clock sets no time, and look-alikes stay in the body.
func TestGGMLClockPrefix(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, level, body string
	}{
		{"0.00.031.207 E srv          start: couldn't bind", "ERROR", "srv          start: couldn't bind"},
		{"12.41.002.913 W llama_context: n_ctx_per_seq (4096) < n_ctx_train", "WARNING", "llama_context: n_ctx_per_seq (4096) < n_ctx_train"},
		{"0.05.611.210 I main: server is listening on http://0.0.0.0:8080", "INFO", "main: server is listening on http://0.0.0.0:8080"},
		{"0.00.000.616 I ", "INFO", ""},
		{"0.00.000.616 I", "INFO", ""},
		{"0.00.000.433 D graph_reserve: reserving", "DEBUG", "graph_reserve: reserving"},
		{"1.2.3.4 E not a clock", "", "1.2.3.4 E not a clock"},
		{"0.00.031.207 X unknown level", "", "0.00.031.207 X unknown level"},
		{"0.00.031.207 Error spelled out", "", "0.00.031.207 Error spelled out"},
		{"3.14.159.265 is pi-ish", "", "3.14.159.265 is pi-ish"},
	}
	for _, tt := range tests {
		p := ParsePrefix(tt.in, 2031)
		if p.Level != tt.level || p.Body != tt.body {
			t.Errorf("ParsePrefix(%q) = level %q body %q, want %q %q", tt.in, p.Level, p.Body, tt.level, tt.body)
		}
		if !p.Time.IsZero() {
			t.Errorf("ParsePrefix(%q): a relative clock gave time %v", tt.in, p.Time)
		}
	}
}

// vLLM before 0.7 wrote "LEVEL MM-DD hh:mm:ss file.py:123] msg" (no
// brackets): the source tag is prefix, so logged traceback lines keep their
// shape.
func TestVLLMUnbracketedFileTag(t *testing.T) {
	p := ParsePrefix(`ERROR 12-01 09:05:00 async_llm_engine.py:57]   File "/x/y.py", line 47, in f`, 2026)
	if p.Level != "ERROR" || p.Body != `  File "/x/y.py", line 47, in f` {
		t.Fatalf("level %q body %q", p.Level, p.Body)
	}
	q := ParsePrefix(`INFO 12-01 09:05:00 see foo.py:57] for details`, 2026)
	if q.Body != "see foo.py:57] for details" {
		t.Fatalf("body %q: only a leading file:line tag is prefix", q.Body)
	}
}
