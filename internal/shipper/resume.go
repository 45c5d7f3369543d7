package shipper

import (
	"context"
	"errors"
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
	runs, last, known := f.serverHolds(ctx, st.Base)
	of, err := f.openPath(ctx)
	if err != nil || of == nil {
		return nil, 0, err
	}
	if known {
		f.held, f.serverLast = runs, last
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
	f.track(cur.f) // the content the state is about, resumed
	f.mu.Unlock()
	if lacks := client.Missing(runs, st.Base+1, st.Seq); known && len(lacks) > 0 {
		// The server lacks acknowledged lines (a reset server, a database
		// restored from an older copy): the content is read again from its
		// start, skipping what the server holds.
		if last < st.Base {
			f.cfg.Log.Warn("the server lacks lines of an earlier file that is no longer followed",
				slog.Int64("from_seq", last+1), slog.Int64("to_seq", st.Base))
		}
		f.cfg.Log.Info("the server lacks lines the state file says it acknowledged; sending them",
			slog.String("seqs", describe(lacks)), slog.Int64("server_last_seq", last), slog.Int64("state_seq", st.Seq))
		return cur, st.Base, nil
	}
	if _, err := cur.f.Seek(st.Offset, io.SeekStart); err != nil {
		return nil, 0, err // the file is closed with the follower's (track)
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

// serverHolds is which seqs after after the server holds for the launch,
// and its last seq (none and 0 if it does not know the launch), asked a
// few times; false if it could not be asked.
func (f *follower) serverHolds(ctx context.Context, after int64) ([]client.SeqRun, int64, bool) {
	var err error
	for attempt := range 5 {
		var runs []client.SeqRun
		var last int64
		runs, last, err = f.c.SeqRuns(ctx, f.cfg.Sender.Launch, after)
		if errors.Is(err, client.ErrNoSeqRuns) {
			// An older server: it holds every line up to its last, as far
			// as can be known.
			if last, err = f.c.LastSeq(ctx, f.cfg.Sender.Launch); err == nil && last > 0 {
				runs = []client.SeqRun{{From: 1, To: last}}
			}
		}
		if err == nil {
			f.outage.ok()
			return runs, last, true
		}
		if !client.Retryable(err) || f.outage.fail() || !sleep(ctx, f.outage.cap(time.Duration(attempt+1)*time.Second)) {
			break
		}
	}
	if ctx.Err() == nil {
		f.cfg.Log.Warn("cannot ask the server which lines it holds; going by the state file",
			slog.String("error", err.Error()))
	}
	return nil, 0, false
}
