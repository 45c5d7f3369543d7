package bench_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"launchwatch/internal/live"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// pace is how a followed launch posts in the followers' figures: a batch
// of perBatch lines every followEvery (the shipper's batch time), for
// followRunFor; every follower gets every line.
type pace struct{ perBatch int }

const (
	followEvery  = 250 * time.Millisecond
	followRunFor = 6 * time.Second
	// followRounds rounds of the runs without and with 1,000 followers
	// alternate, and the ratio is the median of theirs: the machine is
	// shared, and each run's neighbour is the one it is compared with.
	followRounds = 3
	// followSample followers of a run decode what they get, to time its
	// arrival; the others (in child processes) read and discard it, as
	// cheap a client as a websocket client can be.
	followSample = 20
)

var (
	// busy is a launch at full chatter, 1,000 lines a second.
	busy = pace{perBatch: 250}
	// calm is a launch loading its weights, 100 lines a second.
	calm = pace{perBatch: 25}
)

func (p pace) String() string {
	return fmt.Sprintf("%d-line batches every %s for %s (%d lines/s to each follower)", p.perBatch, followEvery, followRunFor,
		p.perBatch*int(time.Second/followEvery))
}

// BenchmarkLiveFollowers is liveFollowers alone: go test -run '^$'
// -bench BenchmarkLiveFollowers -benchtime 1x ./internal/bench/.
// LWBENCH_FOLLOWERS (default 1000,10000) lists the runs beside the runs
// without followers.
func BenchmarkLiveFollowers(b *testing.B) {
	srv := webtest.Start(b, web.Config{MaxNewLaunchesPerMinute: -1})
	for b.Loop() {
		liveFollowers(b, srv)
	}
}

// liveFollowers posts the same paced stream of batches to a launch that
// nobody follows and to launches that 1,000 and 10,000 websocket clients
// follow on the same node, and compares the POSTs' p50: the node reads
// each change once, whatever the number of followers (live.Feeds), so
// followers cost ingest only the writes of the same bytes to each. 1,000
// followers are held to 1.5× at the busy pace; 10,000 are a figure at the
// busy and the calm pace. The delivery times are from a sample of
// followers: POST begun → the batch's last line read by the follower.
func liveFollowers(b *testing.B, srv *webtest.Server) {
	counts := []int{1000, 10000}
	if s := os.Getenv("LWBENCH_FOLLOWERS"); s != "" {
		counts = nil
		for f := range strings.SplitSeq(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				b.Fatalf("LWBENCH_FOLLOWERS=%q: want follower counts, comma-separated", s)
			}
			counts = append(counts, n)
		}
	}
	run := 0
	measure := func(n int, p pace) followed {
		run++
		return followedIngest(b, srv, fmt.Sprintf("followers-%d-%d", n, run), n, p)
	}
	detail := func(n int, r, none followed, p pace) string {
		p0 := percentile(none.ingest, 50)
		return fmt.Sprintf("%d followers on one node: ingest p50 %.1f ms, p99 %.1f ms (without followers p50 %.1f ms: %.2f×); delivery p50 %.1f ms, p99 %.1f ms (%d samples from %d followers); %d followers dropped; %d connected in %.1f s; %s",
			n, ms(percentile(r.ingest, 50)), ms(percentile(r.ingest, 99)), ms(p0), ms(percentile(r.ingest, 50))/ms(p0),
			ms(percentile(r.delivery, 50)), ms(percentile(r.delivery, 99)), len(r.delivery), min(n, followSample),
			r.dropped, n, r.connect.Seconds(), p)
	}
	for _, n := range counts {
		if n != 1000 {
			continue
		}
		var ratios []float64
		var none, last followed
		for range followRounds {
			none = measure(0, busy)
			last = measure(n, busy)
			ratios = append(ratios, ms(percentile(last.ingest, 50))/ms(percentile(none.ingest, 50)))
		}
		x := percentile(ratios, 50)
		ratio("ingest-1000-followers", fmt.Sprintf("p50, median of %d rounds", len(ratios)), "ingest p50 without followers",
			x, "< 1.5×", x < 1.5, fmt.Sprintf("rounds %.2f; last round: %s", ratios, detail(n, last, none, busy)))
	}
	for _, n := range counts {
		if n == 1000 {
			continue
		}
		for _, p := range []pace{busy, calm} {
			none := measure(0, p)
			fmt.Printf("followers: %s\n", detail(n, measure(n, p), none, p))
		}
	}
}

// followed is what one run measured.
type followed struct {
	ingest, delivery []time.Duration
	dropped          int
	connect          time.Duration
}

// followersPerChild is how many followers one child process holds: the
// server's ends of the sockets are in this process, the clients' in
// children (each process has its own open-file limit, which an
// unprivileged container cannot raise).
const followersPerChild = 5000

// followerChildEnv tells a child process of the benchmark to be
// followers: "URL N".
const followerChildEnv = "LWBENCH_FOLLOWER_CHILD"

// followedIngest connects n followers to launch key (before its first
// line): followSample of them in this process, which time what they get,
// the others in child processes, which read and discard it. It posts the
// paced batches, waits for the sampled followers to read the last one,
// and disconnects everyone.
func followedIngest(b *testing.B, srv *webtest.Server, key string, n int, p pace) followed {
	var r followed
	type batch struct {
		last int64
		at   time.Time
	}
	var mu sync.Mutex
	var batches []batch
	var delivery []time.Duration
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/api/v1/launches/" + key + "/live?after=0"
	start := time.Now()
	sampled := min(n, followSample)
	var children []*followerChild
	for left := n - sampled; left > 0; left -= followersPerChild {
		children = append(children, startFollowerChild(b, url, min(left, followersPerChild)))
	}
	conns := make([]*websocket.Conn, sampled)
	lastSeen := make([]atomic.Int64, sampled)
	var readers sync.WaitGroup
	for i := range conns {
		ws, res, err := websocket.DefaultDialer.Dial(url, http.Header{"Authorization": {"Bearer " + webtest.AdminToken}})
		if err != nil {
			b.Fatalf("dial: %v %v", err, res)
		}
		conns[i] = ws
		readers.Add(1)
		go func() {
			defer readers.Done()
			sent := 0
			for {
				var m struct {
					Type  string `json:"type"`
					Lines []struct {
						Seq int64 `json:"seq"`
					} `json:"lines"`
				}
				_, data, err := ws.ReadMessage()
				if err != nil {
					return
				}
				if json.Unmarshal(data, &m) != nil || m.Type != "lines" || len(m.Lines) == 0 {
					continue
				}
				now, last := time.Now(), m.Lines[len(m.Lines)-1].Seq
				mu.Lock()
				for sent < len(batches) && batches[sent].last <= last {
					delivery = append(delivery, now.Sub(batches[sent].at))
					sent++
				}
				mu.Unlock()
				lastSeen[i].Store(last)
			}
		}()
	}
	for _, c := range children {
		c.waitConnected(b)
	}
	waitFor(b, fmt.Sprintf("%d followers", n), 2*time.Minute, func() bool { return followers(srv.Hub) >= n })
	r.connect = time.Since(start)

	tick := time.NewTicker(followEvery)
	defer tick.Stop()
	seq := int64(0)
	for began := time.Now(); time.Since(began) < followRunFor; {
		<-tick.C
		var body strings.Builder
		for i := range p.perBatch {
			fmt.Fprintf(&body, "[2026-04-02 09:28:%02d TP%d] Decode batch. #running-req: %d, #token: %d, gen throughput (token/s): %d.%02d\n",
				i%60, i%8, i%33, int(seq)*17+i, 1000+i, i%100)
		}
		at := time.Now()
		mu.Lock()
		batches = append(batches, batch{last: seq + int64(p.perBatch), at: at})
		mu.Unlock()
		post(b, srv.URL+"/api/v1/launches/"+key+"/lines?seq="+strconv.FormatInt(seq+1, 10), "text/plain", body.String())
		r.ingest = append(r.ingest, time.Since(at))
		seq += int64(p.perBatch)
	}
	waitFor(b, "the sampled followers to read the last batch", time.Minute, func() bool {
		for i := range lastSeen {
			if lastSeen[i].Load() < seq {
				return false
			}
		}
		return true
	})
	for _, c := range children {
		r.dropped += c.stop(b)
	}
	for _, ws := range conns {
		ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second)) //nolint:errcheck
		ws.Close()
	}
	readers.Wait()
	waitFor(b, "the followers to go", time.Minute, func() bool { return followers(srv.Hub) == 0 })
	mu.Lock()
	r.delivery = delivery
	mu.Unlock()
	return r
}

// followerChild is a child process holding followers.
type followerChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Scanner
}

func startFollowerChild(b *testing.B, url string, n int) *followerChild {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d", followerChildEnv, url, n))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill() //nolint:errcheck
			cmd.Wait()         //nolint:errcheck
		}
	})
	return &followerChild{cmd: cmd, stdin: stdin, out: bufio.NewScanner(stdout)}
}

// waitConnected waits for the child to say all its followers connected.
func (c *followerChild) waitConnected(b *testing.B) {
	if !c.out.Scan() || c.out.Text() != "connected" {
		b.Fatalf("follower child: %q %v", c.out.Text(), c.out.Err())
	}
}

// stop has the child disconnect its followers and exit; it returns how
// many of them the server dropped before.
func (c *followerChild) stop(b *testing.B) int {
	c.stdin.Close()
	dropped := -1
	if c.out.Scan() {
		fmt.Sscanf(c.out.Text(), "dropped %d", &dropped) //nolint:errcheck // checked below
	}
	if err := c.cmd.Wait(); err != nil || dropped < 0 {
		b.Fatalf("follower child: %v, last said %q", err, c.out.Text())
	}
	return dropped
}

// followerChildMain is a child process's life: it connects its followers,
// says so, reads and discards what they get until its stdin closes, then
// closes them and says how many the server dropped before.
func followerChildMain(spec string) int {
	url, count, _ := strings.Cut(spec, " ")
	n, err := strconv.Atoi(count)
	if err != nil {
		fmt.Fprintln(os.Stderr, "follower child:", err)
		return 2
	}
	dialer := websocket.Dialer{ReadBufferSize: 16 << 10, WriteBufferSize: 256, HandshakeTimeout: time.Minute}
	header := http.Header{"Authorization": {"Bearer " + webtest.AdminToken}}
	conns := make([]*websocket.Conn, n)
	var dropped atomic.Int64
	var closing atomic.Bool
	var readers, dialers sync.WaitGroup
	next := atomic.Int64{}
	var failed atomic.Value
	for range 32 {
		dialers.Add(1)
		go func() {
			defer dialers.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				ws, res, err := dialer.Dial(url, header)
				if err != nil {
					failed.Store(fmt.Sprintf("dial follower %d: %v %v", i, err, res))
					return
				}
				conns[i] = ws
				readers.Add(1)
				go func() {
					defer readers.Done()
					for {
						_, rd, err := ws.NextReader()
						if err == nil {
							_, err = io.Copy(io.Discard, rd)
						}
						if err != nil {
							if !closing.Load() {
								dropped.Add(1)
							}
							return
						}
					}
				}()
			}
		}()
	}
	dialers.Wait()
	if msg := failed.Load(); msg != nil {
		fmt.Fprintln(os.Stderr, msg)
		return 1
	}
	fmt.Println("connected")
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck // until the parent closes it
	closing.Store(true)
	for _, ws := range conns {
		ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second)) //nolint:errcheck
		ws.Close()
	}
	readers.Wait()
	fmt.Printf("dropped %d\n", dropped.Load())
	return 0
}

func followers(h *live.Hub) int { return h.Subscribers() }

// waitFor polls cond until it holds, failing the benchmark after within.
func waitFor(b *testing.B, what string, within time.Duration, cond func() bool) {
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition
	}
}
