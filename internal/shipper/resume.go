package shipper

import (
	"context"
	"io"
	"log/slog"
	"os"
	"time"

	"launchwatch/internal/client"
)

// start opens the file where the state says and decides what to send. The
// server is asked what it holds for the launch first: a server that holds
// less than the state says (another server, a reset one) gets what the file
// still has, and lines it holds already are not sent again. It returns a
// nil file when ctx ended while waiting for the file to appear.
func (f *follower) start(ctx context.Context) (*openFile, int64, error) {
	st := f.state
	last, known := f.serverLast(ctx)
	of, err := f.openPath(ctx)
	if err != nil || of == nil {
		return nil, 0, err
	}
	if known {
		f.skipThrough = last
	}
	if st.Ino == 0 { // first run: from the start; lines the server holds are skipped
		f.begin(of, 0)
		return of, 0, nil
	}
	cur, head, ok := of, []byte(nil), false
	if head, ok = st.holds(of); !ok {
		// Rotated while no shipper ran: finish the content the state is
		// about if it is still beside the new one (server.log.1); the
		// loop moves on to the new file at its end, as for a rotation
		// seen live.
		if old := findRotated(f.cfg.Path, st.Dev, st.Ino); old != nil {
			rof, err := newOpenFile(old)
			if err == nil {
				head, ok = st.holds(rof)
			}
			if ok {
				of.f.Close()
				cur = rof
				f.cfg.Log.Info("resuming the rotated file first", slog.String("path", old.Name()))
			} else {
				old.Close()
			}
		}
	}
	if !ok {
		// The content the state is about is gone (truncated, rotated
		// away): the file holds new content, numbered after every line
		// stored, which belong to the old one (the state moves to a new
		// content only once the old one is acknowledged).
		seq := st.Seq
		if known && last < st.Seq {
			f.cfg.Log.Warn("the server lacks lines that are no longer in the file; sending what the file holds now",
				slog.Int64("from_seq", last+1), slog.Int64("to_seq", st.Seq))
		}
		if known && last > seq {
			seq = last
		}
		f.begin(cur, seq)
		return cur, seq, nil
	}
	cur.head = head
	f.mu.Lock()
	f.head = head
	f.mu.Unlock()
	if known && last < st.Seq {
		// The server lacks acknowledged lines: the content is read again
		// from its start, skipping what the server holds.
		if last < st.Base {
			f.cfg.Log.Warn("the server lacks lines of an earlier file that is no longer followed",
				slog.Int64("from_seq", last+1), slog.Int64("to_seq", st.Base))
		}
		f.cfg.Log.Info("the server holds fewer lines than the state file says; sending what it lacks",
			slog.Int64("server_last_seq", last), slog.Int64("state_seq", st.Seq))
		return cur, st.Base, nil
	}
	if _, err := cur.f.Seek(st.Offset, io.SeekStart); err != nil {
		cur.f.Close()
		return nil, 0, err
	}
	cur.offset = st.Offset
	return cur, st.Seq, nil
}

// openPath opens the file, waiting for it to appear unless Once; nil if
// ctx ended first.
func (f *follower) openPath(ctx context.Context) (*openFile, error) {
	for {
		file, err := os.Open(f.cfg.Path)
		if os.IsNotExist(err) && !f.cfg.Once {
			if !sleep(ctx, f.cfg.Poll) {
				return nil, nil
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		of, err := newOpenFile(file)
		if err != nil {
			file.Close()
		}
		return of, err
	}
}

// serverLast is the last seq the server holds for the launch (0 if it does
// not know it), asked a few times; false if it could not be asked.
func (f *follower) serverLast(ctx context.Context) (int64, bool) {
	var err error
	for attempt := range 5 {
		var last int64
		if last, err = f.c.LastSeq(ctx, f.cfg.Sender.Launch); err == nil {
			f.outage.ok()
			return last, true
		}
		if !client.Retryable(err) || f.outage.fail() || !sleep(ctx, f.outage.cap(time.Duration(attempt+1)*time.Second)) {
			break
		}
	}
	if ctx.Err() == nil {
		f.cfg.Log.Warn("cannot ask the server which lines it holds; going by the state file",
			slog.String("error", err.Error()))
	}
	return 0, false
}
