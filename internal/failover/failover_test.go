package failover

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/store/storetest"
)

// The pace of every stream: feedChunk lines every feedEvery.
const (
	feedChunk = 20
	feedEvery = 20 * time.Millisecond
	// readyLine is where the ship and OTLP launches print their ready line;
	// the native launch prints its own just before the primary dies.
	readyLine = 500
	// lagBytes is how much WAL the primary writes after the standby's WAL
	// receiver froze before the lines that must be lost: many times what
	// the socket between them can hold in flight (a few hundred KiB).
	lagBytes = 2 << 20
	// ready is SGLang's ready line.
	ready = "The server is fired up and ready to roll!"
)

// TestFailover kills the primary under three shippers and promotes its
// asynchronous standby, once caught up and once lagging behind acknowledged
// writes; see the package comment.
func TestFailover(t *testing.T) {
	t.Parallel()
	t.Run("StandbyCaughtUp", func(t *testing.T) {
		t.Parallel()
		failover(t, false)
	})
	t.Run("StandbyLagging", func(t *testing.T) {
		t.Parallel()
		failover(t, true)
	})
}

// feeder writes a launch's log as it is printed: feedChunk lines every
// feedEvery, with the ready line where asked.
type feeder struct {
	launch string
	sink   func([]string)

	mu       sync.Mutex
	lines    []string
	readyAt  int  // the line number of the ready line (0: readyNow decides)
	readyNow bool // the next line is the ready line
	stopped  bool
	done     chan struct{}
}

func startFeeder(ctx context.Context, launch string, readyAt int, sink func([]string)) *feeder {
	f := &feeder{launch: launch, sink: sink, readyAt: readyAt, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		tick := time.NewTicker(feedEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			f.mu.Lock()
			if f.stopped {
				f.mu.Unlock()
				return
			}
			chunk := make([]string, feedChunk)
			for i := range chunk {
				n := len(f.lines) + 1
				switch {
				case n == f.readyAt || f.readyNow && f.readyAt == 0:
					chunk[i], f.readyAt, f.readyNow = ready, n, false
				default:
					chunk[i] = fmt.Sprintf("[2026-12-01 10:%02d:%02d TP%d] %s line %d: Decode batch. #running-req: %d, #token: %d",
						n/60%60, n%60, n%4, launch, n, n%33, n*17)
				}
				f.lines = append(f.lines, chunk[i])
			}
			f.sink(chunk)
			f.mu.Unlock()
		}
	}()
	return f
}

// printReady has the next line be the ready line; it returns its number.
func (f *feeder) printReady() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.readyNow = true
}

func (f *feeder) readyNo() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.readyNow {
		return 0
	}
	return f.readyAt
}

// stop ends the log; it returns every line printed.
func (f *feeder) stop() []string {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
	<-f.done
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.lines...)
}

func failover(t *testing.T, lagging bool) {
	began := time.Now()
	pair := storetest.NewPair(t)
	web, webOut := startWeb(t, pair.BothURL())
	hooks := newHookReceiver(t)
	if st := api(t, "POST", web+"/api/v1/webhooks", fmt.Sprintf(`{"url": %q, "format": "json", "events": ["ready"]}`, hooks.url), nil); st != 201 {
		t.Fatalf("webhook target: %d", st)
	}
	proxy := newStatusProxy(t, web)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()

	// The three shippers. ship follows a file the feeder writes.
	dir := t.TempDir()
	const shipKey, nativeKey, otlpKey = "failover-ship", "failover-native", "failover-otlp"
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	ship, shipOut := start(t, env("LAUNCHWATCH_TOKEN="+token, "LAUNCHWATCH_SPOOL_DIR="+filepath.Join(dir, "spool")), cliBin,
		"ship", logPath, "--launch", shipKey, "--server", "sglang", "--url", proxy.url, "--state-file", filepath.Join(dir, "state"))
	native := newPoster("native", nativeKey, proxy.url, nativeBatch(nativeKey))
	otlp := newPoster("otlp", otlpKey, proxy.url, otlpBatch(otlpKey, time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)))
	var failMu sync.Mutex
	var failures []string
	fail := func(msg string) {
		failMu.Lock()
		defer failMu.Unlock()
		failures = append(failures, msg)
	}
	for _, p := range []*poster{native, otlp} {
		wg.Add(1)
		go func() { defer wg.Done(); p.run(ctx, fail) }()
	}
	feeds := map[string]*feeder{
		shipKey: startFeeder(ctx, shipKey, readyLine, func(lines []string) {
			if _, err := logFile.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
				fail("writing the shipped file: " + err.Error())
			}
		}),
		nativeKey: startFeeder(ctx, nativeKey, 0, native.add),
		otlpKey:   startFeeder(ctx, otlpKey, readyLine, otlp.add),
	}
	keys := []string{shipKey, nativeKey, otlpKey}
	lastSeqs := func() map[string]int64 {
		m := map[string]int64{}
		for _, k := range keys {
			m[k] = lastSeq(t, web, k)
		}
		return m
	}
	allPast := func(what string, within time.Duration, want map[string]int64) {
		t.Helper()
		eventually(t, within, what, func() bool {
			for k, n := range lastSeqs() {
				if n < want[k] {
					return false
				}
			}
			return true
		})
	}
	// delivered: the primary of the moment (the standby once promoted)
	// records n delivered webhooks.
	primary := interface{ ConnString(string) string }(pair.Primary)
	delivered := func(n int) func() bool {
		return func() bool { return deliveries(t, pair, primary, "delivered") == n }
	}

	// Before: the ship and OTLP launches are ready, their webhooks
	// delivered, and the standby has all of it.
	allPast("2000 lines of every launch", time.Minute, map[string]int64{shipKey: 2000, nativeKey: 2000, otlpKey: 2000})
	eventually(t, time.Minute, "the two ready webhooks", delivered(2))
	pair.WaitReplayed()

	var acked map[string]int64 // what the primary acknowledged before it died
	// killed is when the kill began: from then on the primary answers
	// nothing (KillPrimary returns once every process of it is dead, and
	// a shipper may have been answered 503 by then).
	var killed time.Time
	var standbyHeld map[string]int64
	if lagging {
		// The standby's WAL receiver freezes; the primary goes on. Past
		// lagBytes of WAL, the lines acknowledged are not on the standby
		// and never will be: the native launch prints its ready line
		// there, and every launch gets 300 more lines acknowledged.
		stopAt := pair.LSN(pair.Primary, `SELECT pg_current_wal_insert_lsn()::text`)
		resume := pair.StopReceiving()
		eventually(t, time.Minute, fmt.Sprintf("%d bytes of WAL past the standby", lagBytes), func() bool {
			return pair.LSN(pair.Primary, `SELECT pg_current_wal_insert_lsn()::text`)-stopAt >= lagBytes
		})
		mark := lastSeqs()
		feeds[nativeKey].printReady()
		allPast("300 lines of every launch past the lag", time.Minute,
			map[string]int64{shipKey: mark[shipKey] + 300, nativeKey: mark[nativeKey] + 300, otlpKey: mark[otlpKey] + 300})
		eventually(t, time.Minute, "the native launch's ready line acknowledged", func() bool {
			n := feeds[nativeKey].readyNo()
			return n > 0 && lastSeq(t, web, nativeKey) > int64(n)
		})
		// Its ready webhook waits for the standby to hold it.
		if got := hooks.of(nativeKey, "ready"); len(got) != 0 {
			t.Errorf("the native launch's ready webhook was sent while the standby lacked it: %+v", got)
		}
		// The primary's postmaster dies alone: its WAL senders exit at
		// once, its backends as they notice, a webhook worker's statement
		// in the middle of a look at pg_stat_replication finishes first
		// and finds no standby connected. The standby's replication slot
		// still holds the delivery back.
		acked = lastSeqs()
		killed = time.Now()
		pair.KillPrimaryPostmaster()
		resume()
		standbyHeld = map[string]int64{}
		for _, k := range keys {
			standbyHeld[k] = standbyLastSeq(t, pair, k)
			if standbyHeld[k] >= acked[k] {
				t.Errorf("%s: the lagging standby holds through %d, the primary acknowledged %d: no loss to repair", k, standbyHeld[k], acked[k])
			}
		}
	} else {
		// The native launch becomes ready, its webhook is delivered, the
		// standby replays everything written so far: the primary dies, as
		// a machine losing power, every process of it at once.
		feeds[nativeKey].printReady()
		eventually(t, time.Minute, "the native launch's ready webhook", delivered(3))
		pair.WaitReplayed()
		acked = lastSeqs()
		killed = time.Now()
		pair.KillPrimary()
	}
	// No primary: the web node answers 503 until the standby is promoted.
	// Every shipper sees it before it is (so each checks what the new
	// primary holds before it sends anything new, and ship comes back
	// after Retry-After's 5 s, when the answers name the new history).
	for deadline := time.Now().Add(time.Minute); !native.stats().failedAt.After(killed) || !otlp.stats().failedAt.After(killed) ||
		!proxy.unavailableSince(shipKey, killed); {
		if time.Now().After(deadline) {
			counts, _ := proxy.summary()
			t.Fatalf("the shippers did not see the database fail within a minute of the kill: native %+v, otlp %+v, ship %v; answers %s",
				native.stats(), otlp.stats(), proxy.unavailableSince(shipKey, killed), counts)
		}
		time.Sleep(20 * time.Millisecond) // polling the shippers
	}
	pair.Promote()
	promoted := time.Now()
	primary = pair.Standby

	// After: the streams go on for a while on the new primary, then end;
	// every line of each is stored once, in order.
	allPast("500 new lines of every launch on the new primary", 2*time.Minute,
		map[string]int64{shipKey: acked[shipKey] + 500, nativeKey: acked[nativeKey] + 500, otlpKey: acked[otlpKey] + 500})
	want := map[string][]string{}
	for _, k := range keys {
		want[k] = feeds[k].stop()
	}
	for _, k := range keys {
		whole := fmt.Sprintf("[[1,%d]]", len(want[k]))
		eventually(t, 2*time.Minute, k+" to hold "+whole, func() bool { return runs(t, web, k) == whole })
		equalLines(t, k, storedTexts(t, web, k), want[k])
	}
	if code := interrupt(t, ship); code != 130 {
		t.Errorf("ship after SIGINT: exit %d, want 130", code)
	}
	cancel()
	wg.Wait()

	// Webhooks: each launch's ready, once, under one delivery id; none
	// pending or failed on the new primary.
	eventually(t, time.Minute, "the three ready webhooks on the new primary", delivered(3))
	if n := deliveries(t, pair, pair.Standby, ""); n != 3 {
		t.Errorf("%d webhook deliveries on the new primary, want the three ready", n)
	}
	for _, k := range keys {
		if got := hooks.of(k, "ready"); len(got) != 1 {
			t.Errorf("%s: the ready webhook was delivered %d times, want once: %+v", k, len(got), got)
		}
	}
	if got := hooks.deliveries(); len(got) != 3 {
		t.Errorf("%d webhook deliveries received, want 3: %+v", len(got), got)
	}

	counts, bad := proxy.summary()
	if len(bad) > 0 {
		t.Errorf("answers other than 2xx and 503:\n%s", strings.Join(bad, "\n"))
	}
	failMu.Lock()
	for _, f := range failures {
		t.Error(f)
	}
	failMu.Unlock()
	ns, ostats := native.stats(), otlp.stats()
	for _, p := range []struct {
		name string
		s    posterStats
	}{{"native", ns}, {"otlp", ostats}} {
		if p.s.checks < 2 {
			t.Errorf("the %s poster asked /seqs %d times, want at start and after the failover", p.name, p.s.checks)
		}
		if lagging && p.s.lost == 0 {
			t.Errorf("the %s poster lost no acknowledged line to the lagging standby", p.name)
		}
	}
	if lagging && !strings.Contains(shipOut.String(), "sending them again") {
		t.Errorf("ship did not say it sent lost lines again:\n%s", shipOut)
	}
	// ship's next try after its 503 comes after Retry-After's 5 s, when
	// the node's answers name the new history (read at most a second old).
	if !strings.Contains(shipOut.String(), "another history now") {
		t.Errorf("ship did not notice the database's new history:\n%s", shipOut)
	}
	if t.Failed() {
		t.Logf("web node:\n%s", webOut)
	}
	t.Logf("acknowledged before the kill %v; the standby held %v; lost and sent again: native %d, otlp %d; "+
		"requests failed: native %d, otlp %d; history changes seen: native %d, otlp %d; promoted %.1f s after the kill; answers %s; lines %d/%d/%d; %.1f s in all",
		acked, standbyHeld, ns.lost, ostats.lost, ns.failures, ostats.failures, ns.histories, ostats.histories, promoted.Sub(killed).Seconds(), counts,
		len(want[shipKey]), len(want[nativeKey]), len(want[otlpKey]), time.Since(began).Seconds())
}

// deliveries counts the webhook deliveries on server s in state ("" for
// any), 0 when s does not answer.
func deliveries(t *testing.T, pair *storetest.Pair, s interface{ ConnString(string) string }, state string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.ConnString(pair.DB))
	if err != nil {
		return 0
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE $1 = '' OR state = $1`, state).Scan(&n); err != nil {
		return 0
	}
	return n
}

// standbyLastSeq is a launch's last seq as the standby holds it.
func standbyLastSeq(t *testing.T, pair *storetest.Pair, key string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pair.StandbyURL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int64
	if err := conn.QueryRow(ctx, `SELECT last_seq FROM launches WHERE key = $1`, key).Scan(&n); err != nil && err != pgx.ErrNoRows {
		t.Fatal(err)
	}
	return n
}
