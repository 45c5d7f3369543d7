package web_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// slowUpload opens a connection, sends the headers of an ingest post and
// part of its body once the server asks for it (100-continue: the handler
// is reading the body), and then stalls.
func slowUpload(t *testing.T, baseURL string, n int) (net.Conn, *bufio.Reader) {
	t.Helper()
	addr := strings.TrimPrefix(baseURL, "http://")
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /api/v1/launches/slow-%d/lines HTTP/1.1\r\nHost: %s\r\nContent-Type: text/plain\r\n"+
		"Authorization: Bearer %s\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n", n, addr, webtest.AdminToken)
	br := bufio.NewReader(conn)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck // a failed read says more
	status, err := br.ReadString('\n')
	if err != nil || !strings.Contains(status, " 100 ") {
		t.Fatalf("slow upload %d: %q, %v; want 100 Continue", n, status, err)
	}
	if _, err := br.ReadString('\n'); err != nil { // the blank line after 100 Continue
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "a line of a slow upload %d\n", n)
	return conn, br
}

// TestSlowUploadsLeaveShippersServed: 64 uploads that send their headers
// and a little of their body, then stall, hold no ingest slot (there are
// 64): other shippers are served meanwhile, and the stalled uploads are
// answered 408 once they fall behind the minimum rate, having stored
// nothing.
func TestSlowUploadsLeaveShippersServed(t *testing.T) {
	t.Parallel()
	b := setupWith(t, web.Config{MaxConcurrentIngest: 64, IngestBodyGrace: 2 * time.Second, IngestBodyMinRate: 1 << 20})
	const slow = 64
	type upload struct {
		conn net.Conn
		br   *bufio.Reader
	}
	uploads := make([]upload, slow)
	for i := range uploads {
		uploads[i].conn, uploads[i].br = slowUpload(t, b.url, i)
	}
	// Every slow upload is inside its handler, reading its body.
	for i := range 5 {
		r := b.do("POST", fmt.Sprintf("/api/v1/launches/served/lines?seq=%d", i+1), "text/plain", fmt.Appendf(nil, "served line %d\n", i+1))
		if r.status != http.StatusOK {
			t.Fatalf("a shipper beside %d slow uploads: %d %s, want 200", slow, r.status, r.body)
		}
	}
	if n := len(b.lines("served")); n != 5 {
		t.Errorf("the served launch has %d lines, want 5", n)
	}
	for i, u := range uploads {
		u.conn.SetReadDeadline(time.Now().Add(20 * time.Second)) //nolint:errcheck // a failed read says more
		res, err := http.ReadResponse(u.br, nil)
		if err != nil {
			t.Fatalf("slow upload %d: no answer: %v", i, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestTimeout {
			t.Errorf("slow upload %d answered %d, want 408", i, res.StatusCode)
		}
	}
	if b.exists("slow-0") && len(b.lines("slow-0")) > 0 {
		t.Errorf("a stalled upload stored lines")
	}
	if v := b.metricValue(`launchwatch_ingest_rejections_total{protocol="native",reason="slow"}`); v != slow {
		t.Errorf("slow rejections: %v, want %d", v, slow)
	}
}
