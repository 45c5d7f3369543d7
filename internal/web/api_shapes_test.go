package web_test

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"launchwatch/internal/client"
)

// strictDecode decodes body into v refusing any field v does not have.
func strictDecode(t *testing.T, what string, body []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Errorf("%s: the client's type cannot hold what the server sent: %v\n%s", what, err, body)
	}
}

// TestClientDecodesEveryFieldTheServerSends: the client's types are the
// API's own (package api); decoding what a real server sends for a launch
// with progress, readiness, endpoints, a fatal alarm and an exit, its lines
// and its live messages, refusing unknown fields, loses nothing.
func TestClientDecodesEveryFieldTheServerSends(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/shape-1/lines?seq=1&server=vllm&label.team=infra",
		"INFO 04-02 09:28:01 [loader.py:88] Loading weights of acme/heron-7b\n"+
			"Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:02<00:02,  1.00s/it]\n"+
			"INFO 04-02 09:28:20 [api_server.py:1900] Starting vLLM API server 0 on http://0.0.0.0:8000\n"+
			"INFO:     Application startup complete.\n"+
			"Traceback (most recent call last):\n"+
			"  File \"/srv/engine.py\", line 12, in step\n"+
			"    self.run()\n"+
			"RuntimeError: CUDA error: an illegal memory access was encountered\n")
	b.do("POST", "/api/v1/launches/shape-1/exit", "application/json", []byte(`{"code": 1}`))

	r := b.do("GET", "/api/v1/launches/shape-1", "", nil)
	var l client.Launch
	strictDecode(t, "GET /api/v1/launches/{key}", r.body, &l)
	if l.Key != "shape-1" || len(l.Alarms) == 0 || l.Labels["team"] != "infra" || l.Times.FirstLine == nil || l.ExitCode == nil || len(l.Endpoints) == 0 {
		t.Errorf("decoded launch: %+v", l)
	}

	r = b.do("GET", "/api/v1/launches/shape-1/lines?after=0&limit=3", "", nil)
	var page client.LinesPage
	strictDecode(t, "GET /api/v1/launches/{key}/lines", r.body, &page)
	if len(page.Lines) != 3 || page.NextAfter == nil || page.Lines[0].TS.IsZero() {
		t.Errorf("decoded lines page: %+v", page)
	}

	live := b.dialLive("shape-1", 0, nil)
	seen := map[string]bool{}
	deadline := time.Now().Add(10 * time.Second)
	for !(seen["launch"] && seen["lines"]) && time.Now().Before(deadline) {
		if err := live.ws.SetReadDeadline(deadline); err != nil {
			t.Fatal(err)
		}
		_, data, err := live.ws.ReadMessage()
		if err != nil {
			t.Fatalf("live: %v", err)
		}
		var m client.LiveMessage
		strictDecode(t, "a live message", data, &m)
		seen[m.Type] = true
	}
	if !seen["launch"] || !seen["lines"] {
		t.Errorf("live messages seen: %v, want launch and lines", seen)
	}
}
