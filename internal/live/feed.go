package live

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// A feed is the one reader of a followed launch in this process. However
// many clients follow the launch here, a change is read from the database
// once, by the feed's goroutine, encoded and framed once (a
// websocket.PreparedMessage), and the same bytes are written to every
// follower. Each follower writes from its own goroutine at its own pace:
// the feed never waits for a follower, and a follower never waits for
// another. The feed keeps the messages of its recent changes (FeedKeep);
// a follower that fell further behind, or that joins, reads what it lacks
// from the database itself (Source.Lines) and then takes the feed's
// messages from where it stands.

// Message is one websocket message, encoded and framed once for every
// follower.
type Message struct {
	// From and Through are the lines a message of lines carries: those
	// after From, through Through. Both are 0 in any other message (a
	// launch's state, "absent").
	From, Through int64
	size          int
	pm            *websocket.PreparedMessage
}

// NewMessage frames data as a text message. Give from and through for a
// message of lines (after from, through through); 0, 0 otherwise.
func NewMessage(data []byte, from, through int64) (Message, error) {
	pm, err := websocket.NewPreparedMessage(websocket.TextMessage, data)
	if err != nil {
		return Message{}, err
	}
	return Message{From: from, Through: through, size: len(data), pm: pm}, nil
}

// Write sends m on ws.
func (m Message) Write(ws *websocket.Conn) error { return ws.WritePreparedMessage(m.pm) }

func (m Message) lines() bool { return m.Through > 0 }

// Source reads one launch for its feed.
type Source interface {
	// Read is called by the feed's goroutine alone: first when the feed
	// starts, then whenever the launch may have changed. It returns the
	// messages that tell a follower what changed since its last call, in
	// order (new lines, then the launch's state if it changed), and the
	// seq of the launch's last line they cover. The first call returns
	// the launch's state and where it stands, not its lines: a follower
	// reads those itself (Lines).
	Read(ctx context.Context) (msgs []Message, seq int64, err error)
	// Lines reads the lines after after through through for one
	// follower, as messages of lines in seq order, calling emit for each.
	// Followers call it concurrently with each other and with Read.
	Lines(ctx context.Context, after, through int64, emit func(Message) error) error
}

// What a feed keeps for followers that are behind: the messages of its
// last FeedKeep changes, at most FeedKeepBytes of them.
const (
	FeedKeep      = 256
	FeedKeepBytes = 8 << 20
)

// feedPoll is how often a feed reads its launch without a wake, so that
// a launch falling silent changes state without any event.
const feedPoll = 5 * time.Second

// snapshot is what followers see of a feed: immutable once published.
// entries[i] is the message with index base+i.
type snapshot struct {
	ready   bool // the first Read is done
	ended   bool // the hub closed
	base    int64
	entries []Message
	seq     int64    // the launch's last line the messages cover
	state   *Message // the launch's state as of seq, for a follower that joins
	changed chan struct{}
}

func (s *snapshot) end() int64 { return s.base + int64(len(s.entries)) }

type feed struct {
	key  string
	src  Source
	snap atomic.Pointer[snapshot]
	// refs is the followers' count, under Feeds.mu.
	refs   int
	cancel context.CancelFunc
	// keptBytes is the size of the kept messages (the feed's goroutine's).
	keptBytes int
}

// Feeds runs the feeds of one process: a feed starts with a launch's first
// follower and stops with its last.
type Feeds struct {
	hub  *Hub
	open func(key string) Source
	log  *slog.Logger
	poll time.Duration

	mu    sync.Mutex
	feeds map[string]*feed
}

// NewFeeds returns the feeds of a process whose changes hub announces;
// open makes the Source of a launch when its first follower comes.
func NewFeeds(hub *Hub, open func(key string) Source, log *slog.Logger) *Feeds {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Feeds{hub: hub, open: open, log: log, poll: feedPoll, feeds: map[string]*feed{}}
}

// Feeding counts the feeds running, for tests and metrics.
func (fs *Feeds) Feeding() int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return len(fs.feeds)
}

// Follow makes a follower of launch key that has seen its lines through
// after. Close it when done.
func (fs *Feeds) Follow(key string, after int64) *Follower {
	fs.mu.Lock()
	f := fs.feeds[key]
	if f == nil {
		ctx, cancel := context.WithCancel(context.Background())
		f = &feed{key: key, src: fs.open(key), cancel: cancel}
		f.snap.Store(&snapshot{changed: make(chan struct{})})
		fs.feeds[key] = f
		// Subscribed before the first Read, so no change is missed.
		sub := fs.hub.subscribe(key, true)
		go fs.run(ctx, f, sub)
	}
	f.refs++
	fs.mu.Unlock()
	fs.hub.followers.Add(1)
	return &Follower{fs: fs, f: f, seq: after}
}

func (fs *Feeds) leave(f *feed) {
	fs.hub.followers.Add(-1)
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f.refs--
	if f.refs == 0 {
		delete(fs.feeds, f.key)
		f.cancel()
	}
}

// run is the feed's goroutine: it reads the launch at start, whenever the
// hub wakes it and every poll, and publishes what changed.
func (fs *Feeds) run(ctx context.Context, f *feed, sub *Sub) {
	defer fs.hub.Unsubscribe(sub)
	poll := time.NewTicker(fs.poll)
	defer poll.Stop()
	backoff := 100 * time.Millisecond
	for {
		msgs, seq, err := f.src.Read(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			// The followers stay; the next read tells them what they
			// missed meanwhile.
			fs.log.Warn("live: reading a followed launch", slog.String("launch", f.key), slog.String("error", err.Error()),
				slog.Duration("retry_in", backoff))
			select {
			case <-ctx.Done():
				return
			case <-sub.Done():
				f.publishEnd()
				return
			case <-time.After(backoff):
			}
			backoff = min(backoff*2, 5*time.Second)
			continue
		}
		backoff = 100 * time.Millisecond
		f.publish(msgs, seq)
		select {
		case <-ctx.Done():
			return
		case <-sub.Done():
			f.publishEnd()
			return
		case <-sub.Wake():
		case <-poll.C:
		}
	}
}

// publish appends msgs to the kept messages, drops the oldest beyond what
// is kept, and wakes the followers.
func (f *feed) publish(msgs []Message, seq int64) {
	old := f.snap.Load()
	if old.ready && len(msgs) == 0 && seq == old.seq {
		return
	}
	next := &snapshot{ready: true, base: old.base, entries: old.entries, seq: seq, state: old.state,
		changed: make(chan struct{})}
	for i := range msgs {
		m := msgs[i]
		// Appending never writes where an older snapshot's followers
		// read: they read below their own len.
		next.entries = append(next.entries, m)
		f.keptBytes += m.size
		if !m.lines() {
			next.state = &msgs[i]
		}
	}
	for len(next.entries) > 0 && (len(next.entries) > FeedKeep || f.keptBytes > FeedKeepBytes) {
		f.keptBytes -= next.entries[0].size
		next.entries = next.entries[1:]
		next.base++
	}
	f.snap.Store(next)
	close(old.changed)
}

func (f *feed) publishEnd() {
	old := f.snap.Load()
	next := *old
	next.ended, next.changed = true, make(chan struct{})
	f.snap.Store(&next)
	close(old.changed)
}

// Follower is one client of a feed. Its methods are for one goroutine.
type Follower struct {
	fs      *Feeds
	f       *feed
	seq     int64 // the last line sent
	joined  bool
	next    int64 // the index of the next message to send
	changed chan struct{}
	closed  bool
}

// Changed is signalled (closed) when the feed has news for the follower
// since its last Send.
func (fl *Follower) Changed() <-chan struct{} {
	if fl.changed == nil {
		return fl.f.snap.Load().changed
	}
	return fl.changed
}

// Ended reports whether the feed ended (the hub closed: the process is
// stopping).
func (fl *Follower) Ended() bool { return fl.f.snap.Load().ended }

// Send writes with write everything the follower has not been sent yet:
// when it joins or fell behind what the feed keeps, the lines it lacks
// (read by Source.Lines) and the launch's state; then the feed's messages.
// A message of lines it has seen (after= ahead) is not sent; one it has
// seen part of is read again from its last line on.
func (fl *Follower) Send(ctx context.Context, write func(Message) error) error {
	snap := fl.f.snap.Load()
	fl.changed = snap.changed
	if !snap.ready {
		return nil
	}
	if !fl.joined || fl.next < snap.base {
		// Joining, or behind what the feed keeps: catch up from the
		// database to where the feed stands, then its state.
		if err := fl.lines(ctx, snap.seq, write); err != nil {
			return err
		}
		if snap.state != nil {
			if err := write(*snap.state); err != nil {
				return err
			}
		}
		fl.joined, fl.next = true, snap.end()
		return nil
	}
	for ; fl.next < snap.end(); fl.next++ {
		m := snap.entries[fl.next-snap.base]
		if !m.lines() {
			if err := write(m); err != nil {
				return err
			}
			continue
		}
		if m.Through <= fl.seq {
			continue
		}
		if m.From != fl.seq {
			// A gap before the message (lines the feed passed over), or
			// a follower ahead into it: read what it lacks itself.
			if err := fl.lines(ctx, m.Through, write); err != nil {
				return err
			}
			continue
		}
		if err := write(m); err != nil {
			return err
		}
		fl.seq = m.Through
	}
	return nil
}

// lines sends the lines after the follower's last through through, read
// for it alone.
func (fl *Follower) lines(ctx context.Context, through int64, write func(Message) error) error {
	if fl.seq >= through {
		return nil
	}
	err := fl.f.src.Lines(ctx, fl.seq, through, func(m Message) error {
		if err := write(m); err != nil {
			return err
		}
		fl.seq = max(fl.seq, m.Through)
		return nil
	})
	if err != nil {
		return err
	}
	// Seqs the launch does not hold (a hole) are passed over too.
	fl.seq = max(fl.seq, through)
	return nil
}

// Close leaves the feed; the feed stops with its last follower. It is safe
// to call more than once.
func (fl *Follower) Close() {
	if fl.closed {
		return
	}
	fl.closed = true
	fl.fs.leave(fl.f)
}
