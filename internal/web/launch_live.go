package web

import (
	"context"
	"encoding/json"
	"errors"
	"launchwatch/internal/api"
	"launchwatch/internal/decode"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"launchwatch/internal/live"
	"launchwatch/internal/store"
	"launchwatch/internal/timeline"
)

const (
	liveWriteWait = 10 * time.Second // a client that cannot take a message this fast is dropped
	livePongWait  = 45 * time.Second
	livePingEvery = 15 * time.Second
	livePageLines = 1000
)

// launchLive streams a launch over a websocket:
// GET /api/v1/launches/{key}/live?after=SEQ. The client gets the launch's
// state ("launch") whenever it changes, every line after SEQ ("lines") as
// it is stored, and "absent" while the launch does not exist yet. A client
// that reconnects passes the last seq it saw and resumes from there.
//
// Every client of a launch in this process follows the launch's one feed
// (live.Feeds): a change is read once and the same bytes are written to
// each; a client reads from the database only the lines it lacks when it
// joins or when it fell behind what the feed keeps.
func (h *handler) launchLive(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	after, err := decode.IntParam(c.QueryParams(), "after", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	sock, ok := h.upgradeLive(c)
	if !ok {
		return nil
	}
	defer sock.close()
	fl := h.feeds.Follow(key, after)
	defer fl.Close()
	ping := time.NewTicker(livePingEvery)
	defer ping.Stop()
	for {
		if err := fl.Send(sock.ctx, sock.sendMessage); err != nil {
			sock.drop(key, err)
			return nil
		}
		if fl.Ended() {
			sock.goodbye(websocket.CloseGoingAway, errShuttingDown.Error())
			return nil
		}
		select {
		case <-sock.ctx.Done():
			return nil
		case <-ping.C:
			if err := sock.ping(); err != nil {
				return nil
			}
		case <-fl.Changed():
		}
	}
}

var errShuttingDown = errors.New("server shutting down")

// drop says goodbye to a client whose messages could not be read or
// written: it reconnects with ?after= and resumes.
func (s *liveSocket) drop(key string, err error) {
	if !errors.Is(err, context.Canceled) {
		s.log.Debug("live client dropped", slog.String("launch", key), slog.String("error", err.Error()))
	}
	s.goodbye(websocket.CloseInternalServerErr, "internal error")
}

// launchSource reads a launch for its feed: its new lines and its state,
// each encoded once for every follower in the process.
type launchSource struct {
	h   *handler
	key string
	id  atomic.Int64 // the launch's id once it exists, for Lines

	// The feed's goroutine's alone (Read):
	started  bool
	seq      int64  // the last line published
	lastSent []byte // the last state published, to publish only changes
	absent   bool
}

func (h *handler) newLaunchSource(key string) live.Source { return &launchSource{h: h, key: key} }

// Read publishes what changed since the last call: the new lines, a page
// at a time, then the launch's state when it changed. The first call
// starts at the launch's last line (a launch that does not exist yet
// starts at 0: its lines are all news).
func (s *launchSource) Read(ctx context.Context) ([]live.Message, int64, error) {
	l, err := s.h.store.LaunchByKey(ctx, s.key)
	if errors.Is(err, store.ErrNotFound) {
		s.started = true
		if s.absent {
			return nil, s.seq, nil
		}
		s.absent, s.lastSent = true, nil
		m, err := encodeLive(api.LiveMessage{Type: "absent"}, 0, 0)
		return []live.Message{m}, s.seq, err
	}
	if err != nil {
		return nil, s.seq, err
	}
	s.absent = false
	s.id.Store(l.ID)
	var msgs []live.Message
	if !s.started {
		s.started, s.seq = true, l.LastSeq
	}
	for s.seq < l.LastSeq {
		lines, err := s.h.store.Lines(ctx, l.ID, s.seq, livePageLines)
		if err != nil {
			return nil, s.seq, err
		}
		if len(lines) == 0 {
			break
		}
		last := lines[len(lines)-1].Seq
		m, err := encodeLive(api.LiveMessage{Type: "lines", Lines: toLineJSON(lines)}, s.seq, last)
		if err != nil {
			return nil, s.seq, err
		}
		msgs, s.seq = append(msgs, m), last
	}
	j, err := timeline.LoadLaunchJSON(ctx, s.h.store, l, s.h.pipe.Clock().Now(), s.h.cfg.SilentAfter)
	if err != nil {
		return nil, s.seq, err
	}
	state, err := json.Marshal(api.LiveMessage{Type: "launch", Launch: &j})
	if err != nil {
		return nil, s.seq, err
	}
	if string(state) != string(s.lastSent) {
		s.lastSent = state
		m, err := live.NewMessage(append(state, '\n'), 0, 0)
		if err != nil {
			return nil, s.seq, err
		}
		msgs = append(msgs, m)
	}
	return msgs, s.seq, nil
}

// Lines reads lines after after through through for one follower.
func (s *launchSource) Lines(ctx context.Context, after, through int64, emit func(live.Message) error) error {
	id := s.id.Load()
	if id == 0 {
		return nil // no launch (yet): no lines
	}
	for after < through {
		lines, err := s.h.store.LinesBetween(ctx, id, after+1, through, livePageLines)
		if err != nil {
			return err
		}
		if len(lines) == 0 {
			return nil
		}
		last := lines[len(lines)-1].Seq
		m, err := encodeLive(api.LiveMessage{Type: "lines", Lines: toLineJSON(lines)}, after, last)
		if err != nil {
			return err
		}
		if err := emit(m); err != nil {
			return err
		}
		after = last
	}
	return nil
}

// encodeLive encodes v as WriteJSON would (with a final newline).
func encodeLive(v api.LiveMessage, from, through int64) (live.Message, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return live.Message{}, err
	}
	return live.NewMessage(append(b, '\n'), from, through)
}
