package web_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// A launch created by a heartbeat (launchwatch run before the server
// prints anything) is a change of the launch list like one created by its
// first lines, but it sent no NOTIFY: list clients heard of it only at
// their next 30 s tick.
func TestLaunchesLiveHearsOfALaunchCreatedByAHeartbeat(t *testing.T) {
	t.Parallel()
	b := setup(t)
	url := "ws" + strings.TrimPrefix(b.url, "http") + "/api/v1/live"
	ws, _, err := websocket.DefaultDialer.Dial(url, adminHeader(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	type changed struct {
		Type     string   `json:"type"`
		Launches []string `json:"launches"`
	}
	read := func() changed {
		t.Helper()
		ws.SetReadDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck
		var m changed
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatalf("reading: %v", err)
		}
		return m
	}
	if m := read(); m.Type != "hello" {
		t.Fatalf("first message %+v, want hello", m)
	}
	if r := b.do("POST", "/api/v1/launches/beating/heartbeat?server=vllm", "", nil); r.status != 200 {
		t.Fatalf("heartbeat: %d %s", r.status, r.body)
	}
	if m := read(); m.Type != "changed" || len(m.Launches) != 1 || m.Launches[0] != "beating" {
		t.Errorf("message %+v, want the change of launch beating", m)
	}
}
