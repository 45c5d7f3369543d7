package shipper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
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
	Sender    SenderConfig
	Log       *slog.Logger
}

// maxLineBytes is where a line without a newline is cut into pieces; the
// server keeps 64 KiB of a line anyway.
const maxLineBytes = 4 << 20

// Follow ships the file at cfg.Path like `tail -F`: from where the last run
// stopped (or the start), then every line appended, across rotation (the
// name now points to a new file) and truncation. Seq is the line number,
// counted on across rotations. It returns when ctx ends, or with Once at
// the end of the file; everything acknowledged is recorded in the state
// file, so a restart resumes with nothing lost or doubled.
func Follow(ctx context.Context, c *client.Client, cfg FollowConfig) error {
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
		return err
	}
	if st.Launch != "" && st.Launch != cfg.Sender.Launch {
		return fmt.Errorf("state file %s belongs to launch %q, not %q: use another --state-file", cfg.StatePath, st.Launch, cfg.Sender.Launch)
	}
	f := &follower{cfg: cfg, c: c, q: NewQueue(), state: st}
	f.state.Launch, f.state.Path = cfg.Sender.Launch, cfg.Path
	cfg.Sender.OnAck = f.acked
	sender := NewSender(c, f.q, cfg.Sender)

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
		// again next time. Give the batch in flight a moment to land.
		grace := time.AfterFunc(5*time.Second, cancelSend)
		defer grace.Stop()
	}
	sendErr := <-sent
	if readErr != nil {
		return readErr
	}
	if sendErr != nil && !errors.Is(sendErr, context.Canceled) {
		return sendErr
	}
	return nil
}

// follower reads the file and keeps, for every line in flight, where it
// ends, so an acknowledgement can be turned into a file offset.
type follower struct {
	cfg FollowConfig
	c   *client.Client
	q   *Queue

	mu       sync.Mutex
	state    State       // acknowledged progress
	inflight []linePlace // lines queued, oldest first
	saveErr  error
}

type linePlace struct {
	seq      int64
	dev, ino uint64
	end      int64 // offset just after the line
}

// acked records that every line up to seq is stored, in the state file.
func (f *follower) acked(seq int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := 0
	for i < len(f.inflight) && f.inflight[i].seq <= seq {
		i++
	}
	if i == 0 {
		return
	}
	last := f.inflight[i-1]
	f.inflight = append(f.inflight[:0:0], f.inflight[i:]...)
	f.state.Seq, f.state.Dev, f.state.Ino, f.state.Offset = last.seq, last.dev, last.ino, last.end
	if err := f.state.Save(f.cfg.StatePath); err != nil && f.saveErr == nil {
		f.saveErr = err
		f.cfg.Log.Error("cannot save the state file; a restart may send lines again (never loses them)",
			slog.String("error", err.Error()))
	}
}

// openFile is the file being read.
type openFile struct {
	f        *os.File
	dev, ino uint64
	offset   int64 // read position
	partial  []byte
	restart  bool // opened at its start although the state was about another file or place
}

func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino
	}
	return 0, 0
}

func (f *follower) open(resume bool) (*openFile, error) {
	file, err := os.Open(f.cfg.Path)
	if err != nil {
		return nil, err
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, err
	}
	of := &openFile{f: file}
	of.dev, of.ino = fileID(fi)
	f.mu.Lock()
	st := f.state
	f.mu.Unlock()
	if resume && st.Ino != 0 && (st.Ino != of.ino || st.Dev != of.dev) {
		// Rotated while no shipper ran: finish the file the state is about
		// if it is still beside the new one (server.log.1); the loop moves
		// on to the new file at its end, as for a rotation seen live.
		if old := findRotated(f.cfg.Path, st.Dev, st.Ino); old != nil {
			file.Close()
			file = old
			if fi, err = file.Stat(); err != nil {
				file.Close()
				return nil, err
			}
			of = &openFile{f: file}
			of.dev, of.ino = fileID(fi)
			f.cfg.Log.Info("resuming the rotated file first", slog.String("path", file.Name()))
		}
	}
	if resume && st.Ino == of.ino && st.Dev == of.dev && fi.Size() >= st.Offset {
		if _, err := file.Seek(st.Offset, io.SeekStart); err != nil {
			file.Close()
			return nil, err
		}
		of.offset = st.Offset
		return of, nil
	}
	of.restart = resume && (st.Offset > 0 || st.Ino != 0)
	return of, nil
}

// lastStored is the last seq the server stored for the launch (0 if it
// does not exist), asked a few times.
func (f *follower) lastStored(ctx context.Context) (int64, error) {
	var err error
	for attempt := range 5 {
		var l *client.Launch
		l, err = f.c.Launch(ctx, f.cfg.Sender.Launch)
		switch {
		case err == nil:
			return l.LastSeq, nil
		case errors.Is(err, client.ErrNotFound):
			return 0, nil
		case !client.Retryable(err):
			return 0, err
		}
		if !sleep(ctx, time.Duration(attempt+1)*time.Second) {
			break
		}
	}
	return 0, err
}

// findRotated opens the rotated copy of path (server.log.1,
// server.log-20260412, ...: a name beside it that starts with its name)
// with the given device and inode, or returns nil. Only such names are
// looked at: the inode of a deleted file may belong to an unrelated one.
func findRotated(path string, dev, ino uint64) *os.File {
	dir, base := filepath.Split(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == base || !strings.HasPrefix(e.Name(), base) {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if d, i := fileID(fi); d != dev || i != ino {
			continue
		}
		file, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil
		}
		if fi, err := file.Stat(); err == nil {
			if d, i := fileID(fi); d == dev && i == ino {
				return file
			}
		}
		file.Close()
		return nil
	}
	return nil
}

// read is the tail -F loop.
func (f *follower) read(ctx context.Context) error {
	var of *openFile
	seq := f.state.Seq
	buf := make([]byte, 256<<10)
	for {
		if of == nil {
			var err error
			of, err = f.open(true)
			if os.IsNotExist(err) && !f.cfg.Once {
				if !sleep(ctx, f.cfg.Poll) {
					return nil
				}
				continue // wait for the file to appear
			}
			if err != nil {
				return err
			}
			defer func(of *openFile) { of.f.Close() }(of)
			if of.restart {
				// The file the state is about is gone (rotated away,
				// truncated): its lines the server stored after the
				// last recorded acknowledgement (a kill before the state
				// was saved) must not make the new lines duplicates.
				if last, err := f.lastStored(ctx); err != nil {
					f.cfg.Log.Warn("cannot ask the server where the launch's lines end; numbering after the state file",
						slog.String("error", err.Error()))
				} else if last > seq {
					f.cfg.Log.Info("the server has lines after the state file's; numbering after them",
						slog.Int64("state_seq", seq), slog.Int64("last_seq", last))
					seq = last
				}
			}
		}
		for f.q.Len() >= f.cfg.MaxQueued { // the server is behind; the file keeps the lines
			if !sleep(ctx, f.cfg.Poll) {
				return nil
			}
		}
		n, err := of.f.Read(buf)
		if n > 0 {
			seq = f.emit(of, buf[:n], seq)
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		// At the end of the file: done, rotated, truncated, or just quiet.
		fi, statErr := os.Stat(f.cfg.Path)
		if f.cfg.Once && (statErr != nil || sameFile(fi, of)) {
			f.flushPartial(of, &seq)
			return nil
		}
		switch {
		case statErr == nil && !sameFile(fi, of):
			// Rotated: read what is left of the old file, then the new one.
			f.drain(of, buf, &seq)
			f.flushPartial(of, &seq)
			of.f.Close()
			f.cfg.Log.Info("file rotated; following the new one", slog.String("path", f.cfg.Path))
			next, err := f.open(false)
			if err != nil {
				return err
			}
			of = next
			continue
		case statErr == nil && fi.Size() < of.offset:
			// Truncated in place: start again from its beginning.
			f.flushPartial(of, &seq)
			if _, err := of.f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			of.offset = 0
			f.cfg.Log.Info("file truncated; reading it from the start", slog.String("path", f.cfg.Path))
			continue
		}
		if !sleep(ctx, f.cfg.Poll) {
			return nil
		}
	}
}

func sameFile(fi os.FileInfo, of *openFile) bool {
	dev, ino := fileID(fi)
	return dev == of.dev && ino == of.ino
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

// emit queues the complete lines in data (plus what was left of the last
// read) and keeps the unfinished end for later.
func (f *follower) emit(of *openFile, data []byte, seq int64) int64 {
	now := time.Now().UTC()
	var lines []client.Line
	var places []linePlace
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			of.partial = append(of.partial, data...)
			of.offset += int64(len(data))
			if len(of.partial) >= maxLineBytes { // a runaway line: ship it in pieces
				seq++
				lines = append(lines, client.Line{Seq: seq, Text: string(of.partial), TS: now})
				places = append(places, linePlace{seq: seq, dev: of.dev, ino: of.ino, end: of.offset})
				of.partial = nil
			}
			break
		}
		line := data[:i]
		if len(of.partial) > 0 {
			line = append(of.partial, line...)
			of.partial = nil
		}
		of.offset += int64(i + 1)
		data = data[i+1:]
		seq++
		lines = append(lines, client.Line{Seq: seq, Text: string(bytes.TrimSuffix(line, []byte("\r"))), TS: now})
		places = append(places, linePlace{seq: seq, dev: of.dev, ino: of.ino, end: of.offset})
	}
	if len(lines) > 0 {
		f.mu.Lock()
		f.inflight = append(f.inflight, places...)
		f.mu.Unlock()
		f.q.Push(lines...)
	}
	return seq
}

// flushPartial sends an unfinished last line: the writer is done with this
// file (end of --once, rotation, truncation).
func (f *follower) flushPartial(of *openFile, seq *int64) {
	if len(of.partial) == 0 {
		return
	}
	*seq++
	f.mu.Lock()
	f.inflight = append(f.inflight, linePlace{seq: *seq, dev: of.dev, ino: of.ino, end: of.offset})
	f.mu.Unlock()
	f.q.Push(client.Line{Seq: *seq, Text: string(bytes.TrimSuffix(of.partial, []byte("\r"))), TS: time.Now().UTC()})
	of.partial = nil
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
