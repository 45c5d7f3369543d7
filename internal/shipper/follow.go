package shipper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"launchwatch/internal/client"
)

// FollowConfig says which file to ship and how.
type FollowConfig struct {
	Path      string
	StatePath string        // where progress is kept between runs
	Once      bool          // read to the end, send everything, stop
	Poll      time.Duration // how often to look for new data; default 200ms
	// MaxQueued pauses reading while this many lines wait to be sent (the
	// file keeps them); default 50000.
	MaxQueued int
	Sender    SenderConfig // its RetryFor also bounds asking the server what it holds at start
	Log       *slog.Logger
}

// Result is what a Follow sent.
type Result struct {
	Sent   int64 // lines posted and acknowledged (each counted once, however often retried)
	Stored int64 // of those, the lines the server did not hold yet
	// Resent is how many lines were sent again because the server no
	// longer held them after acknowledging them.
	Resent int64
	// LastSeq is the last line the server acknowledged (0: none).
	LastSeq int64
	// Unsent are the lines read from the file and queued that the server
	// did not acknowledge before Follow returned, oldest first.
	Unsent []client.Line
	// Behind is how many lines of the file after LastSeq were not
	// acknowledged (queued or not read yet), when Follow returned early.
	Behind int64
}

// maxLineBytes is where a line without a newline is cut into pieces; the
// server keeps 64 KiB of a line anyway.
const maxLineBytes = 4 << 20

// Follow ships the file at cfg.Path like `tail -F`: from where the last run
// stopped (or the start), then every line appended, across rotation (the
// name now points to a new file) and truncation (the file's first bytes
// changed or it shrank), whose new content is numbered after the old one.
// Seq is the line number, counted on across rotations and truncations. At
// start the server is asked what it holds, so a server that holds less than
// the state file says (holes too) gets what the file still has. An
// acknowledgement is no proof: after a failed request, or when the server's
// database history changes, the server is asked again and what it lost of
// the content being read is sent again from the file (repair.go). It
// returns when ctx ends, or with Once at the end of the file once the
// server holds every line of it; everything acknowledged is recorded in the
// state file, so a restart resumes with nothing lost or doubled.
func Follow(ctx context.Context, c *client.Client, cfg FollowConfig) (Result, error) {
	if cfg.Poll <= 0 {
		cfg.Poll = 200 * time.Millisecond
	}
	if cfg.MaxQueued <= 0 {
		cfg.MaxQueued = 50000
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	st, err := LoadState(cfg.StatePath)
	if err != nil {
		return Result{}, err
	}
	if st.Launch != "" && st.Launch != cfg.Sender.Launch {
		return Result{}, fmt.Errorf("state file %s belongs to launch %q, not %q: use another --state-file", cfg.StatePath, st.Launch, cfg.Sender.Launch)
	}
	f := &follower{cfg: cfg, c: c, q: NewQueue(), state: st, acks: make(chan struct{}, 1)}
	f.state.Server, f.state.Launch, f.state.Path = c.BaseURL(), cfg.Sender.Launch, cfg.Path
	cfg.Sender.OnAck = f.acked
	cfg.Sender.OnSuspect = func() { f.suspect.Store(true) }
	cfg.Sender.Keep = 0 // the file keeps the lines
	sender := NewSender(c, f.q, cfg.Sender)
	f.sender = sender
	f.outage = sender.outage // asking what the server holds counts against RetryFor too

	sendCtx, cancelSend := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelSend()
	sent := make(chan error, 1)
	// A sender that stops (a batch refused for good) stops the reading too:
	// nothing more could be sent, and the error must be reported.
	readCtx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	go func() {
		err := sender.Run(sendCtx)
		stopReading()
		sent <- err
	}()

	readErr := f.read(readCtx)
	f.q.Close()
	if readErr != nil || readCtx.Err() != nil {
		// Interrupted: what is acknowledged is recorded; the rest is read
		// again next time. Give the batch in flight a moment to land,
		// unless the server is not answering anyway.
		grace := 5 * time.Second
		if f.outage.down() {
			grace = 0
		}
		stop := time.AfterFunc(grace, cancelSend)
		defer stop.Stop()
	}
	sendErr := <-sent
	f.closeFile()
	f.mu.Lock()
	res := f.res
	res.LastSeq = f.state.Seq
	f.mu.Unlock()
	res.Unsent = f.q.Lines()
	res.Resent = sender.Resent()
	if readErr != nil || sendErr != nil || ctx.Err() != nil {
		res.Behind = f.behind()
	}
	if readErr != nil {
		return res, readErr
	}
	if sendErr != nil && !errors.Is(sendErr, context.Canceled) {
		return res, sendErr
	}
	return res, nil
}

// behind counts the lines of the file the state is about after the
// acknowledged offset: what a Follow that stopped early did not get
// acknowledged (0 when the file is gone or is another one now).
func (f *follower) behind() int64 {
	f.mu.Lock()
	st := f.state
	f.mu.Unlock()
	file, err := os.Open(f.cfg.Path)
	if err != nil {
		return 0
	}
	defer file.Close()
	if fi, err := file.Stat(); err != nil || st.Ino == 0 {
		return 0
	} else if dev, ino := fileID(fi); dev != st.Dev || ino != st.Ino {
		return 0
	}
	if _, err := file.Seek(st.Offset, io.SeekStart); err != nil {
		return 0
	}
	var n int64
	buf := make([]byte, 256<<10)
	last := byte('\n')
	for {
		k, err := file.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if k > 0 {
			last = buf[k-1]
		}
		if err != nil {
			break
		}
	}
	if last != '\n' {
		n++ // an unfinished last line
	}
	return n
}

// follower reads the file and keeps, for every line in flight, where it
// ends, so an acknowledgement can be turned into a file offset.
type follower struct {
	cfg  FollowConfig
	c    *client.Client
	q    *Queue
	acks chan struct{} // signalled after each acknowledgement
	// outage is the sender's: since when the server has not answered.
	outage *outage
	sender *Sender
	// held are the seqs the server held at start: those lines are not sent
	// (heldAt is where the next line may be in it); serverLast is its last
	// seq then. Only the reader uses them.
	held         []client.SeqRun
	heldAt       int
	serverLast   int64
	warnedNoRuns bool
	// suspect is set when the server may have lost lines it acknowledged
	// (the sender's OnSuspect); the reader then checks (repair.go).
	suspect atomic.Bool

	mu       sync.Mutex
	state    State       // acknowledged progress in the content being read
	head     []byte      // that content's first bytes, for the state's fingerprint
	file     *os.File    // that content's file, for the fingerprint before the offset (track)
	inflight []linePlace // lines queued, oldest first
	saveErr  error
	res      Result
}

type linePlace struct {
	seq int64
	end int64 // offset just after the line
}

// acked records that every line up to seq is stored, in the state file.
func (f *follower) acked(seq int64, lines int, ack client.Ack) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.res.Sent += int64(lines)
	f.res.Stored += int64(ack.Accepted)
	i := 0
	for i < len(f.inflight) && f.inflight[i].seq <= seq {
		i++
	}
	if i > 0 {
		last := f.inflight[i-1]
		f.inflight = append(f.inflight[:0:0], f.inflight[i:]...)
		f.record(last)
	}
	select {
	case f.acks <- struct{}{}:
	default:
	}
}

// record saves that the server holds every line up to p. Call with f.mu
// held.
func (f *follower) record(p linePlace) {
	f.state.Seq, f.state.Offset = p.seq, p.end
	f.state.Head, f.state.HeadLen = headSum(f.head), len(f.head)
	f.state.Tail, f.state.TailLen = "", 0
	if f.file != nil && p.end > 0 {
		// The bytes the lines just acknowledged end with, read again from
		// the file: the reader has them no more. (Truncated meanwhile, the
		// reader finds out and starts a new content, whose state replaces
		// this one.)
		if sum, n, ok := tailSum(f.file, p.end); ok {
			f.state.Tail, f.state.TailLen = sum, n
		}
	}
	f.save()
}

// track makes file the one the content the state is about is read from,
// and closes the one before: the follower moves to a new content only once
// every line of the old one is acknowledged, so nothing is recorded of it
// any more. Call with f.mu held.
func (f *follower) track(file *os.File) {
	if f.file != nil && f.file != file {
		f.file.Close()
	}
	f.file = file
}

// closeFile closes the file being read, once no acknowledgement can come.
func (f *follower) closeFile() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.track(nil)
}

func (f *follower) save() {
	if err := f.state.Save(f.cfg.StatePath); err != nil && f.saveErr == nil {
		f.saveErr = err
		f.cfg.Log.Error("cannot save the state file; a restart may send lines again (never loses them)",
			slog.String("error", err.Error()))
	}
}

// begin makes of, read from its start with its lines numbered after base,
// the content the state is about. Every line of the previous content must
// be acknowledged: the state then says which content any later seq the
// server holds belongs to.
func (f *follower) begin(of *openFile, base int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.head = nil
	f.track(of.f)
	f.state.Dev, f.state.Ino, f.state.Base = of.dev, of.ino, base
	f.state.Head, f.state.HeadLen, f.state.Offset, f.state.Seq = "", 0, 0, base
	f.state.Tail, f.state.TailLen = "", 0
	f.save()
}

// awaitAcked waits until every queued line is acknowledged; false if ctx
// ended first.
func (f *follower) awaitAcked(ctx context.Context) bool {
	for {
		f.mu.Lock()
		n := len(f.inflight)
		f.mu.Unlock()
		if n == 0 {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-f.acks:
		}
	}
}

// read is the tail -F loop.
func (f *follower) read(ctx context.Context) error {
	of, seq, err := f.start(ctx)
	if err != nil || of == nil {
		return err
	}
	// of's file is the follower's (track) from here: Follow closes it once
	// the sender is done, as the acknowledgements of its last lines may
	// come after the reading stopped.
	buf := make([]byte, 256<<10)
	for {
		if f.suspect.Swap(false) {
			// The server may have lost what it acknowledged: what it
			// lacks of this content goes again, from the file.
			if _, err := f.repair(ctx, of); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				if f.cfg.Once {
					return err
				}
				f.cfg.Log.Warn("cannot check which lines the server holds", slog.String("error", err.Error()))
			}
		}
		for f.q.Len() >= f.cfg.MaxQueued { // the server is behind; the file keeps the lines
			if !sleep(ctx, f.cfg.Poll) {
				return nil
			}
		}
		n, err := of.f.Read(buf)
		if n > 0 {
			// Truncated and written again since the last look: what was
			// just read may be the new content at the old offset. It is
			// read again from the start instead.
			if gone, err := of.replaced(); err != nil {
				return err
			} else if gone {
				if seq, err = f.truncated(ctx, of, seq); err != nil || ctx.Err() != nil {
					return err
				}
				continue
			}
			seq = f.emit(of, buf[:n], seq)
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		// At the end of the file: rotated, truncated, done, or just quiet.
		if fi, err := os.Stat(f.cfg.Path); err == nil && !sameFile(fi, of) {
			next, err := os.Open(f.cfg.Path)
			if os.IsNotExist(err) {
				continue // rotated again; look once more
			}
			if err != nil {
				return err
			}
			f.drain(of, buf, &seq)
			f.cfg.Log.Info("file rotated; following the new one", slog.String("path", f.cfg.Path))
			if seq, err = f.next(ctx, of, next, seq); err != nil || ctx.Err() != nil {
				return err
			}
			continue
		}
		if gone, err := of.replaced(); err != nil {
			return err
		} else if gone {
			if seq, err = f.truncated(ctx, of, seq); err != nil || ctx.Err() != nil {
				return err
			}
			continue
		}
		if f.cfg.Once {
			// Done only when the server holds every line: an
			// acknowledgement is no proof (repair.go).
			f.flushPartial(of, &seq)
			f.q.Hurry()
			if !f.awaitAcked(ctx) {
				return nil
			}
			if err := f.confirm(ctx, of); err != nil && ctx.Err() == nil {
				return err
			}
			return nil
		}
		if !sleep(ctx, f.cfg.Poll) {
			return nil
		}
	}
}

// truncated starts reading of again from its start: new content, numbered
// after the old, like a rotation.
func (f *follower) truncated(ctx context.Context, of *openFile, seq int64) (int64, error) {
	f.cfg.Log.Info("file truncated; reading it from the start", slog.String("path", f.cfg.Path))
	return f.next(ctx, of, nil, seq)
}

// next moves from of's content to the next one: the file next (a
// rotation) or of's own file from its start (nil: a truncation). Its lines
// are numbered after seq, once the old content's lines are acknowledged.
func (f *follower) next(ctx context.Context, of *openFile, next *os.File, seq int64) (int64, error) {
	f.flushPartial(of, &seq)
	if !f.awaitAcked(ctx) {
		if next != nil {
			next.Close()
		}
		return seq, nil // stopping; the caller sees ctx ended
	}
	seq = max(seq, f.serverLast)
	if next != nil {
		nof, err := newOpenFile(next)
		if err != nil {
			next.Close()
			return seq, err
		}
		*of = *nof // the old file is closed by begin (track)
	} else {
		if _, err := of.f.Seek(0, io.SeekStart); err != nil {
			return seq, err
		}
		of.offset, of.head, of.partial = 0, nil, nil
	}
	f.begin(of, seq)
	return seq, nil
}

// drain reads the rest of a rotated file.
func (f *follower) drain(of *openFile, buf []byte, seq *int64) {
	for {
		n, _ := of.f.Read(buf)
		if n == 0 {
			return
		}
		*seq = f.emit(of, buf[:n], *seq)
	}
}

// batch is what one read gives the sender.
type batch struct {
	lines   []client.Line
	places  []linePlace
	skipped *linePlace // the last line the server already holds
	now     time.Time
}

// isHeld reports whether the server held seq at start. Seqs are asked in
// increasing order.
func (f *follower) isHeld(seq int64) bool {
	for f.heldAt < len(f.held) && f.held[f.heldAt].To < seq {
		f.heldAt++
	}
	return f.heldAt < len(f.held) && f.held[f.heldAt].From <= seq
}

func (f *follower) add(b *batch, seq int64, text string, end int64) {
	if f.isHeld(seq) {
		b.skipped = &linePlace{seq: seq, end: end}
		return
	}
	b.lines = append(b.lines, client.Line{Seq: seq, Text: text, TS: b.now})
	b.places = append(b.places, linePlace{seq: seq, end: end})
}

func (f *follower) push(b *batch) {
	f.mu.Lock()
	if b.skipped != nil && len(f.inflight) == 0 {
		f.record(*b.skipped) // nothing to send up to here: remember it as sent
	}
	f.inflight = append(f.inflight, b.places...)
	f.mu.Unlock()
	if len(b.lines) > 0 {
		f.q.Push(b.lines...)
	}
}

// emit queues the complete lines in data (plus what was left of the last
// read) and keeps the unfinished end for later.
func (f *follower) emit(of *openFile, data []byte, seq int64) int64 {
	if of.grow(data) {
		f.mu.Lock()
		f.head = slices.Clone(of.head)
		f.mu.Unlock()
	}
	b := batch{now: time.Now().UTC()}
	of.feed(data, func(text []byte, end int64) {
		seq++
		f.add(&b, seq, string(text), end)
	})
	f.push(&b)
	return seq
}

// flushPartial sends an unfinished last line: the writer is done with this
// content (end of --once, rotation, truncation).
func (f *follower) flushPartial(of *openFile, seq *int64) {
	b := batch{now: time.Now().UTC()}
	of.flush(func(text []byte, end int64) {
		*seq++
		f.add(&b, *seq, string(text), end)
	})
	if len(b.lines) > 0 || b.skipped != nil {
		f.push(&b)
	}
}

// sleep waits d; false if ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
