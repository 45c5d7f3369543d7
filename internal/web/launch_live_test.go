package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

type liveMsg struct {
	Type   string      `json:"type"`
	Launch *launchView `json:"launch"`
	Lines  []lineView  `json:"lines"`
}

// liveClient is a websocket client of /api/v1/launches/{key}/live.
type liveClient struct {
	t  testing.TB
	ws *websocket.Conn
}

func (b *testBundle) dialLive(key string, after int64, header http.Header) *liveClient {
	b.t.Helper()
	url := "ws" + strings.TrimPrefix(b.url, "http") + fmt.Sprintf("/api/v1/launches/%s/live?after=%d", key, after)
	ws, res, err := websocket.DefaultDialer.Dial(url, adminHeader(header))
	if err != nil {
		status := 0
		if res != nil {
			status = res.StatusCode
		}
		b.t.Fatalf("dial %s: %v (HTTP %d)", url, err, status)
	}
	b.t.Cleanup(func() { ws.Close() })
	return &liveClient{t: b.t, ws: ws}
}

// next returns the next message, failing the test after 10s.
func (c *liveClient) next() liveMsg {
	c.t.Helper()
	c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	var m liveMsg
	if err := c.ws.ReadJSON(&m); err != nil {
		c.t.Fatalf("reading live message: %v", err)
	}
	return m
}

// until reads messages until one satisfies ok.
func (c *liveClient) until(what string, ok func(liveMsg) bool) liveMsg {
	c.t.Helper()
	for range 100 {
		if m := c.next(); ok(m) {
			return m
		}
	}
	c.t.Fatalf("no %s in 100 messages", what)
	return liveMsg{}
}

func TestLaunchLive(t *testing.T) {
	t.Parallel()

	t.Run("WaitsForTheLaunchThenTailsLinesAndStatus", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		c := b.dialLive("tail", 0, nil)
		if m := c.next(); m.Type != "absent" {
			t.Fatalf("first message = %+v, want absent", m)
		}
		b.postText("/api/v1/launches/tail/lines?server=sglang", "one\ntwo\n")
		m := c.until("lines", func(m liveMsg) bool { return m.Type == "lines" })
		if len(m.Lines) != 2 || m.Lines[0].Text != "one" || m.Lines[1].Seq != 2 {
			t.Errorf("lines = %+v", m.Lines)
		}
		b.postText("/api/v1/launches/tail/lines", "The server is fired up and ready to roll!\n")
		m = c.until("lines", func(m liveMsg) bool { return m.Type == "lines" })
		if len(m.Lines) != 1 || m.Lines[0].Seq != 3 || m.Lines[0].Kind != "ready" {
			t.Errorf("lines = %+v", m.Lines)
		}
		c.until("ready status", func(m liveMsg) bool { return m.Type == "launch" && m.Launch.Status == "ready" })
	})

	t.Run("ResumesAfterTheLastSeenSeq", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/resume/lines", "a\nb\nc\nd\n")
		c := b.dialLive("resume", 2, nil)
		m := c.until("lines", func(m liveMsg) bool { return m.Type == "lines" })
		if len(m.Lines) != 2 || m.Lines[0].Text != "c" || m.Lines[1].Text != "d" {
			t.Errorf("resumed lines = %+v, want c and d", m.Lines)
		}
	})

	t.Run("SlowClientNeverSlowsIngest", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.dialLive("busy", 0, nil) // connected, never reads
		var body strings.Builder
		for i := range 2000 {
			fmt.Fprintf(&body, "%d %s\n", i, strings.Repeat("x", 200))
		}
		for range 20 { // ~8 MB the client will not read
			b.postText("/api/v1/launches/busy/lines", body.String())
		}
		if l := b.launch("busy"); l.Counts.Lines != 40000 {
			t.Errorf("%d lines stored, want 40000", l.Counts.Lines)
		}
	})

	t.Run("ForeignOriginIsRefused", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		url := "ws" + strings.TrimPrefix(b.url, "http") + "/api/v1/launches/x/live"
		_, res, err := websocket.DefaultDialer.Dial(url, adminHeader(http.Header{"Origin": {"https://evil.example"}}))
		if err == nil || res == nil || res.StatusCode != http.StatusForbidden {
			t.Errorf("dial from a foreign origin: err %v, response %v; want 403", err, res)
		}
	})
}

func TestLaunchesLive(t *testing.T) {
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
		ws.SetReadDeadline(time.Now().Add(10 * time.Second))
		var m changed
		if err := ws.ReadJSON(&m); err != nil {
			t.Fatalf("reading: %v", err)
		}
		return m
	}
	if m := read(); m.Type != "hello" {
		t.Fatalf("first message %+v, want hello", m)
	}
	b.postText("/api/v1/launches/listed/lines", "one\n")
	m := read()
	if m.Type != "changed" || len(m.Launches) != 1 || m.Launches[0] != "listed" {
		t.Errorf("message %+v, want the change of launch listed", m)
	}
}
