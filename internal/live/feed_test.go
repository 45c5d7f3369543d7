package live

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// memLaunch is a launch held in memory, read the way a launch's source
// reads the database: Read publishes the lines added since its last call
// (a message of at most page lines each), then its state when it changed.
type memLaunch struct {
	mu    sync.Mutex
	lines []string // seq i+1 is lines[i]
	state string
	page  int

	reads     atomic.Int64 // Read calls
	lineReads atomic.Int64 // Lines calls (a follower's own reads)

	// the feed's goroutine's:
	started bool
	seq     int64
	sent    string
}

func (m *memLaunch) add(n int, state string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for range n {
		m.lines = append(m.lines, "line "+strconv.Itoa(len(m.lines)+1))
	}
	m.state = state
}

func (m *memLaunch) encode(from, through int64) Message {
	var b strings.Builder
	fmt.Fprintf(&b, "lines %d-%d:", from+1, through)
	for _, l := range m.lines[from:through] {
		b.WriteString(" " + l)
	}
	msg, err := NewMessage([]byte(b.String()), from, through)
	if err != nil {
		panic(err)
	}
	return msg
}

func (m *memLaunch) Read(context.Context) ([]Message, int64, error) {
	m.reads.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	last := int64(len(m.lines))
	if !m.started {
		m.started, m.seq = true, last
	}
	var out []Message
	for m.seq < last {
		through := min(last, m.seq+int64(m.page))
		out = append(out, m.encode(m.seq, through))
		m.seq = through
	}
	if m.state != m.sent {
		m.sent = m.state
		msg, _ := NewMessage([]byte("state "+m.state), 0, 0)
		out = append(out, msg)
	}
	return out, m.seq, nil
}

func (m *memLaunch) Lines(_ context.Context, after, through int64, emit func(Message) error) error {
	m.lineReads.Add(1)
	m.mu.Lock()
	through = min(through, int64(len(m.lines)))
	var msgs []Message
	for after < through {
		to := min(through, after+int64(m.page))
		msgs = append(msgs, m.encode(after, to))
		after = to
	}
	m.mu.Unlock()
	for _, msg := range msgs {
		if err := emit(msg); err != nil {
			return err
		}
	}
	return nil
}

// received is what one follower was sent.
type received struct {
	mu   sync.Mutex
	msgs []Message
}

func (r *received) write(m Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	return nil
}

// seqs is the lines the follower got, in the order it got them, and the
// last state.
func (r *received) seqs() (lines []int64, state string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, m := range r.msgs {
		if !m.lines() {
			state = "?"
			continue
		}
		for s := m.From + 1; s <= m.Through; s++ {
			lines = append(lines, s)
		}
	}
	return lines, state
}

// follow runs a follower as the websocket handler does: Send, then wait
// for news, until ctx ends or the feed ends.
func follow(ctx context.Context, fl *Follower, r *received, write func(Message) error) error {
	defer fl.Close()
	for {
		if err := fl.Send(ctx, write); err != nil {
			return err
		}
		if fl.Ended() {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-fl.Changed():
		}
	}
}

// eventually polls cond until it holds, failing after 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond) // polling a condition
	}
}

func wantLines(t *testing.T, who string, got []int64, from, to int64) {
	t.Helper()
	if int64(len(got)) != to-from {
		t.Fatalf("%s got %d lines, want %d (%d-%d)", who, len(got), to-from, from+1, to)
	}
	for i, s := range got {
		if s != from+int64(i)+1 {
			t.Fatalf("%s: line %d is seq %d, want %d", who, i, s, from+int64(i)+1)
		}
	}
}

func TestFeeds(t *testing.T) {
	t.Parallel()

	t.Run("OneReadPerChangeAndTheSameBytesForEveryFollower", func(t *testing.T) {
		t.Parallel()
		hub := NewHub()
		defer hub.Close()
		src := &memLaunch{page: 100}
		src.add(50, "loading")
		feeds := NewFeeds(hub, func(string) Source { return src }, nil)
		feeds.poll = time.Hour // only the hub wakes the feed
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		const n = 200
		rs := make([]*received, n)
		var wg sync.WaitGroup
		for i := range rs {
			rs[i] = &received{}
			fl := feeds.Follow("a", 50)
			wg.Add(1)
			go func() { defer wg.Done(); follow(ctx, fl, rs[i], rs[i].write) }() //nolint:errcheck // writes cannot fail
		}
		// Every follower joined (sent the state) before the changes.
		eventually(t, "every follower's first state", func() bool {
			for _, r := range rs {
				if _, st := r.seqs(); st == "" {
					return false
				}
			}
			return true
		})
		readsBefore := src.reads.Load()
		const changes = 20
		for c := range changes {
			src.add(10, "loading")
			hub.Publish("a")
			eventually(t, "change "+strconv.Itoa(c)+" at every follower", func() bool {
				for _, r := range rs {
					if got, _ := r.seqs(); len(got) != (c+1)*10 {
						return false
					}
				}
				return true
			})
		}
		cancel()
		wg.Wait()
		if reads := src.reads.Load() - readsBefore; reads > changes {
			t.Errorf("%d reads of the launch for %d changes and %d followers, want at most one a change", reads, changes, n)
		}
		if src.lineReads.Load() != 0 {
			t.Errorf("followers that were never behind read lines themselves %d times", src.lineReads.Load())
		}
		for i, r := range rs {
			got, _ := r.seqs()
			wantLines(t, "follower "+strconv.Itoa(i), got, 50, 50+changes*10)
			for j, m := range r.msgs {
				if m.pm != rs[0].msgs[j].pm {
					t.Fatalf("follower %d message %d is not the one message the feed framed for all", i, j)
				}
			}
		}
		eventually(t, "the feed to stop with its last follower", func() bool { return feeds.Feeding() == 0 })
		if hub.Subscribers() != 0 {
			t.Errorf("%d subscribers after every follower left", hub.Subscribers())
		}
	})

	t.Run("ASlowFollowerCatchesUpFromTheSourceWithoutHoldingOthers", func(t *testing.T) {
		t.Parallel()
		hub := NewHub()
		defer hub.Close()
		src := &memLaunch{page: 5, state: "starting"}
		feeds := NewFeeds(hub, func(string) Source { return src }, nil)
		feeds.poll = time.Hour // only the hub wakes the feed
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		fast, slow := &received{}, &received{}
		gate := make(chan struct{})
		var stuck atomic.Bool
		slowWrite := func(m Message) error {
			if stuck.CompareAndSwap(false, true) {
				<-gate // its socket does not take the first message for a while
			}
			return slow.write(m)
		}
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); follow(ctx, feeds.Follow("a", 0), fast, fast.write) }() //nolint:errcheck
		go func() { defer wg.Done(); follow(ctx, feeds.Follow("a", 0), slow, slowWrite) }()  //nolint:errcheck
		eventually(t, "the slow follower to block on its first message", stuck.Load)
		// Far more changes than the feed keeps, each a message.
		total := int64(0)
		for range FeedKeep + 50 {
			src.add(5, "loading")
			total += 5
			hub.Publish("a")
			eventually(t, "the fast follower to have it", func() bool {
				got, _ := fast.seqs()
				return int64(len(got)) == total
			})
		}
		close(gate)
		eventually(t, "the slow follower to catch up", func() bool {
			got, _ := slow.seqs()
			return int64(len(got)) >= total
		})
		cancel()
		wg.Wait()
		got, _ := fast.seqs()
		wantLines(t, "fast", got, 0, total)
		got, _ = slow.seqs()
		wantLines(t, "slow", got, 0, total)
		if src.lineReads.Load() == 0 {
			t.Error("the slow follower fell behind what the feed keeps but read nothing itself")
		}
	})

	t.Run("AFollowerAheadGetsOnlyWhatItLacks", func(t *testing.T) {
		t.Parallel()
		hub := NewHub()
		defer hub.Close()
		src := &memLaunch{page: 10}
		src.add(10, "loading")
		feeds := NewFeeds(hub, func(string) Source { return src }, nil)
		feeds.poll = time.Hour // only the hub wakes the feed
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		behind, into, state := &received{}, &received{}, &received{}
		var wg sync.WaitGroup
		for _, f := range []struct {
			r     *received
			after int64
		}{{behind, 3}, {into, 15}, {state, 1 << 62}} {
			fl := feeds.Follow("a", f.after)
			wg.Add(1)
			go func() { defer wg.Done(); follow(ctx, fl, f.r, f.r.write) }() //nolint:errcheck
		}
		eventually(t, "the followers to join", func() bool {
			_, a := behind.seqs()
			_, b := into.seqs()
			_, c := state.seqs()
			return a != "" && b != "" && c != ""
		})
		src.add(10, "ready") // lines 11-20 in one message: the second follower has seen half
		hub.Publish("a")
		eventually(t, "the lines", func() bool {
			a, _ := behind.seqs()
			b, _ := into.seqs()
			return len(a) == 17 && len(b) == 5
		})
		cancel()
		wg.Wait()
		a, _ := behind.seqs()
		wantLines(t, "behind", a, 3, 20)
		b, _ := into.seqs()
		wantLines(t, "ahead into the message", b, 15, 20)
		if c, st := state.seqs(); len(c) != 0 || st == "" {
			t.Errorf("a follower of the state alone got lines %v, state %q", c, st)
		}
	})

	t.Run("FollowersHearTheHubClose", func(t *testing.T) {
		t.Parallel()
		hub := NewHub()
		src := &memLaunch{page: 10, state: "starting"}
		feeds := NewFeeds(hub, func(string) Source { return src }, nil)
		feeds.poll = time.Hour // only the hub wakes the feed
		r := &received{}
		done := make(chan error, 1)
		fl := feeds.Follow("a", 0)
		go func() { done <- follow(context.Background(), fl, r, r.write) }()
		eventually(t, "the first state", func() bool { _, st := r.seqs(); return st != "" })
		hub.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the follower did not hear the hub close")
		}
		eventually(t, "the feed to stop", func() bool { return feeds.Feeding() == 0 })
	})

	t.Run("AFailedWriteIsTheFollowersAlone", func(t *testing.T) {
		t.Parallel()
		hub := NewHub()
		defer hub.Close()
		src := &memLaunch{page: 10, state: "starting"}
		feeds := NewFeeds(hub, func(string) Source { return src }, nil)
		feeds.poll = time.Hour // only the hub wakes the feed
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ok := &received{}
		broken := errors.New("broken pipe")
		failed := make(chan error, 1)
		go func() {
			failed <- follow(ctx, feeds.Follow("a", 0), &received{}, func(Message) error { return broken })
		}()
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); follow(ctx, feeds.Follow("a", 0), ok, ok.write) }() //nolint:errcheck
		if err := <-failed; !errors.Is(err, broken) {
			t.Fatalf("the failing follower ended with %v", err)
		}
		src.add(3, "ready")
		hub.Publish("a")
		eventually(t, "the other follower's lines", func() bool { got, _ := ok.seqs(); return len(got) == 3 })
		cancel()
		wg.Wait()
	})
}
