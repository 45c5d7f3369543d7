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
	// Every slow upload is inside its handler, reading its body. (They are
	// the admin token's: 64 is as many as one credential may send at once,
	// TestOneCredentialCannotHoldEveryBodySlot; the other shipper has a
	// token of its own.)
	shipper := b.srv.NewToken(t, "ingest")
	for i := range 5 {
		r := b.do("POST", fmt.Sprintf("/api/v1/launches/served/lines?seq=%d", i+1), "text/plain", fmt.Appendf(nil, "served line %d\n", i+1),
			"Authorization", "Bearer "+shipper)
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

// startBody opens a connection and sends the headers of an ingest post
// with token, asking whether to send its body (100-continue), and returns
// the connection and the server's first answer: 100 once the handler reads
// the body (it holds a body slot), or the final status when it refused the
// post without reading it.
func startBody(t *testing.T, baseURL, token, key string) (net.Conn, *bufio.Reader, int) {
	t.Helper()
	addr := strings.TrimPrefix(baseURL, "http://")
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /api/v1/launches/%s/lines HTTP/1.1\r\nHost: %s\r\nContent-Type: text/plain\r\n"+
		"Authorization: Bearer %s\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n", key, addr, token)
	br := bufio.NewReader(conn)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second)) //nolint:errcheck // a failed read says more
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("%s: no answer to the headers: %v", key, err)
	}
	if res.StatusCode != http.StatusContinue {
		res.Body.Close()
	}
	return conn, br, res.StatusCode
}

// TestOneCredentialCannotHoldEveryBodySlot: a token that opens more slow
// bodies than there are body slots (16 here) holds only its share of them
// (4); its other bodies are 429 before a byte of them is read, other
// shippers are served meanwhile, and a slot its slow body gives back is
// its again.
func TestOneCredentialCannotHoldEveryBodySlot(t *testing.T) {
	t.Parallel()
	// 4 ingest slots make 16 body slots; a long grace keeps the slow
	// bodies in them for the whole test.
	b := setupWith(t, web.Config{MaxConcurrentIngest: 4, MaxIngestBodiesPerCredential: 4, IngestBodyGrace: time.Minute, IngestBodyMinRate: 1 << 20})
	greedy := b.srv.NewToken(t, "ingest")
	var held []net.Conn
	refused := 0
	for i := range 20 {
		conn, _, status := startBody(t, b.url, greedy, fmt.Sprintf("greedy-%d", i))
		switch status {
		case http.StatusContinue:
			held = append(held, conn)
		case http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("slow body %d: %d, want 100 or 429", i, status)
		}
	}
	if len(held) != 4 || refused != 16 {
		t.Fatalf("one token holds %d body slots (%d refused), want 4 (16 refused)", len(held), refused)
	}
	// The others' shippers, with tokens of their own, are served.
	other := b.srv.NewToken(t, "ingest")
	for i := range 40 {
		r := b.do("POST", fmt.Sprintf("/api/v1/launches/other/lines?seq=%d", i+1), "text/plain", fmt.Appendf(nil, "line %d\n", i+1),
			"Authorization", "Bearer "+other)
		if r.status != http.StatusOK {
			t.Fatalf("another shipper's post %d beside a greedy token: %d %s, want 200", i, r.status, r.body)
		}
	}
	// Another token may be slow too, in slots of its own share.
	for i := range 4 {
		if _, _, status := startBody(t, b.url, webtest.AdminToken, fmt.Sprintf("admin-%d", i)); status != http.StatusContinue {
			t.Fatalf("another token's slow body %d beside a greedy token: %d, want 100", i, status)
		}
	}
	// A slow body that goes gives its slot back to its token.
	held[0].Close()
	waitFor(t, 10*time.Second, "the token's slot to come back", func() bool {
		conn, _, status := startBody(t, b.url, greedy, "greedy-again")
		if status == http.StatusContinue {
			return true
		}
		conn.Close()
		return false
	})
}

// TestTricklingBodyIsTimedOut: a body that keeps arriving, but slower than
// the minimum rate once its grace is over, is answered 408 (the slot it
// held goes back), however steadily its bytes come.
func TestTricklingBodyIsTimedOut(t *testing.T) {
	t.Parallel()
	b := setupWith(t, web.Config{IngestBodyGrace: time.Second, IngestBodyMinRate: 1 << 10})
	conn, br := slowUpload(t, b.url, 1)
	done := make(chan struct{})
	go func() { // 20 bytes a second, far below 1 KiB/s
		defer close(done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for range tick.C {
			if _, err := conn.Write([]byte("x")); err != nil {
				return
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(20 * time.Second)) //nolint:errcheck // a failed read says more
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	res.Body.Close()
	conn.Close()
	<-done
	if res.StatusCode != http.StatusRequestTimeout {
		t.Errorf("a trickling body: %d, want 408", res.StatusCode)
	}
}
