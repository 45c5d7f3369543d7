package web_test

import (
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"launchwatch/internal/clock"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// TestNewLaunchLimit: a token may create so many launches a minute (here
// 3); the next new launch, by lines or by a heartbeat, is a 429 with
// Retry-After and creates nothing, while lines of its launches that exist
// are still stored and another token is counted apart. A minute later on
// the server's clock the token may create launches again.
func TestNewLaunchLimit(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(time.Now())
	srv := webtest.Start(t, web.Config{MaxNewLaunchesPerMinute: 3}, webtest.WithClock(clk))
	b := &testBundle{t: t, url: srv.URL, store: srv.Store, srv: srv}
	shipper, other := srv.NewToken(t, "ingest"), srv.NewToken(t, "ingest")
	post := func(token, key string) response {
		return b.do("POST", "/api/v1/launches/"+key+"/lines", "text/plain", []byte("INFO a line\n"), "Authorization", "Bearer "+token)
	}
	for i := range 3 {
		if r := post(shipper, fmt.Sprintf("lim-%d", i)); r.status != http.StatusOK {
			t.Fatalf("new launch %d: %d %s", i, r.status, r.body)
		}
	}
	r := post(shipper, "lim-3")
	if r.status != http.StatusTooManyRequests {
		t.Fatalf("4th new launch in a minute: %d, want 429", r.status)
	}
	if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 || s > 60 {
		t.Errorf("Retry-After %q, want 1..60 seconds", r.header.Get("Retry-After"))
	}
	hb := b.do("POST", "/api/v1/launches/lim-hb/heartbeat", "", nil, "Authorization", "Bearer "+shipper)
	if hb.status != http.StatusTooManyRequests {
		t.Errorf("a heartbeat of a new launch over the limit: %d, want 429", hb.status)
	}
	for _, key := range []string{"lim-3", "lim-hb"} {
		if r := b.do("GET", "/api/v1/launches/"+key+"?wait=0", "", nil); r.status != http.StatusNotFound {
			t.Errorf("refused launch %s exists: %d", key, r.status)
		}
	}
	if r := post(shipper, "lim-0"); r.status != http.StatusOK {
		t.Errorf("lines of an existing launch over the limit: %d, want 200", r.status)
	}
	if r := post(other, "lim-other"); r.status != http.StatusOK {
		t.Errorf("another token's new launch: %d, want 200", r.status)
	}
	clk.Advance(61 * time.Second)
	if r := post(shipper, "lim-3"); r.status != http.StatusOK {
		t.Errorf("a new launch a minute later: %d %s, want 200", r.status, r.body)
	}
}
