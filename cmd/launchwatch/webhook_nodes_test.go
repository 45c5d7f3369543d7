package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// With two cmd/web processes on one database, each crash reaches a real
// receiver exactly once, before and after one of the processes restarts:
// both delivery workers wake for every event and race for the delivery,
// and its row lock lets one of them send it.
func TestWebhookOncePerCrashAcrossWebProcesses(t *testing.T) {
	t.Parallel()
	db := webtest.Start(t, web.Config{}) // only for its database; the receiver is on 127.0.0.1
	var mu sync.Mutex
	got := map[string]int{} // deliveries by launch key
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Event, Launch string }
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &body); err != nil || body.Event != "crashed" {
			t.Errorf("receiver: %v: %s", err, raw)
		}
		mu.Lock()
		got[body.Launch]++
		mu.Unlock()
	}))
	defer rcv.Close()
	count := func() (launches, deliveries int) {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range got {
			deliveries += n
		}
		return len(got), deliveries
	}

	addrs := []string{freeAddr(t), freeAddr(t)}
	nodes := []*webProc{startWebProcess(t, addrs[0], db.DBURL, "--webhook-allow-private"), startWebProcess(t, addrs[1], db.DBURL, "--webhook-allow-private")}
	defer func() {
		for _, n := range nodes {
			n.stop(t)
		}
	}()
	res, err := http.Post("http://"+addrs[0]+"/api/v1/webhooks", "application/json",
		strings.NewReader(`{"url":"`+rcv.URL+`/hook","format":"json","events":["crashed"],"server":"","label":""}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create webhook: %d", res.StatusCode)
	}

	const perRound = 6
	crashAll := func(round int) {
		var wg sync.WaitGroup
		for i := range perRound {
			wg.Add(1)
			go func() { // at once, through both processes
				defer wg.Done()
				node := "http://" + addrs[i%2]
				key := fmt.Sprintf("nodes-r%d-crash-%d", round, i)
				lines := "INFO engine: loading shard 1/4\nTraceback (most recent call last):\n  File \"/opt/engine/run.py\", line 3, in main\nRuntimeError: demo widget failure " + key + "\n"
				for _, req := range []struct{ path, ct, body string }{
					{"/lines?server=sglang", "text/plain", lines},
					{"/exit", "application/json", `{"code": 1}`},
				} {
					res, err := http.Post(node+"/api/v1/launches/"+key+req.path, req.ct, strings.NewReader(req.body))
					if err != nil {
						t.Error(err)
						return
					}
					res.Body.Close()
					if res.StatusCode != http.StatusOK {
						t.Errorf("POST %s: %d", req.path, res.StatusCode)
					}
				}
			}()
		}
		wg.Wait()
		eventually(t, fmt.Sprintf("round %d's crashes delivered", round), func() bool {
			n, _ := count()
			return n == perRound*(round+1)
		})
	}

	crashAll(0)
	nodes[1].stop(t)
	nodes[1] = startWebProcess(t, addrs[1], db.DBURL, "--webhook-allow-private")
	crashAll(1)

	// Every delivery is recorded delivered, after one attempt: no worker
	// will send any of them again, so the receiver's count is final.
	var hooks struct {
		Webhooks []struct{ ID, Pending, Delivered, Failed int }
	}
	getJSON(t, "http://"+addrs[1]+"/api/v1/webhooks", &hooks)
	var log struct {
		Deliveries []struct {
			State    string
			Attempts int
		}
	}
	getJSON(t, fmt.Sprintf("http://%s/api/v1/webhooks/%d/deliveries", addrs[0], hooks.Webhooks[0].ID), &log)
	if len(log.Deliveries) != 2*perRound {
		t.Fatalf("%d deliveries logged, want %d", len(log.Deliveries), 2*perRound)
	}
	for _, d := range log.Deliveries {
		if d.State != "delivered" || d.Attempts != 1 {
			t.Errorf("delivery %+v, want delivered at the first attempt", d)
		}
	}
	launches, deliveries := count()
	if launches != 2*perRound || deliveries != 2*perRound {
		t.Errorf("receiver got %d deliveries for %d launches, want exactly one per crash: %v", deliveries, launches, got)
	}
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
}
