package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"launchwatch/internal/api"
	"log/slog"
	"math"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"launchwatch/internal/store"
)

const (
	liveWriteWait   = 10 * time.Second // a client that cannot take a message this fast is dropped
	livePongWait    = 45 * time.Second
	livePingEvery   = 15 * time.Second
	liveStatusEvery = 5 * time.Second // re-check the status so silence shows without any event
	livePageLines   = 1000
)

// launchLive streams a launch over a websocket:
// GET /api/v1/launches/{key}/live?after=SEQ. The client gets the launch's
// state ("launch") whenever it changes, every line after SEQ ("lines") as
// it is stored, and "absent" while the launch does not exist yet. A client
// that reconnects passes the last seq it saw and resumes from there.
func (h *handler) launchLive(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	after, err := intParam(c.QueryParams(), "after", 0, 0, math.MaxInt64)
	if err != nil {
		return err
	}
	sock, ok := h.openLive(c, key)
	if !ok {
		return nil
	}
	defer h.closeLive(sock)
	s := &launchStream{h: h, sock: sock, key: key, seq: after}
	ping := time.NewTicker(livePingEvery)
	defer ping.Stop()
	poll := time.NewTicker(liveStatusEvery)
	defer poll.Stop()
	for {
		if err := s.sync(sock.ctx); err != nil {
			s.close(err)
			return nil
		}
		select {
		case <-sock.ctx.Done():
			return nil
		case <-sock.sub.Done():
			s.close(errShuttingDown)
			return nil
		case <-ping.C:
			if err := sock.ping(); err != nil {
				return nil
			}
		case <-sock.sub.Wake():
		case <-poll.C:
		}
	}
}

var errShuttingDown = errors.New("server shutting down")

// launchStream is the state of one live client.
type launchStream struct {
	h        *handler
	sock     *liveSocket
	key      string
	seq      int64  // the last line sent
	lastSent []byte // the last launch state sent, to send only changes
	absent   bool
}

// sync sends what changed since the last call: the launch state and the
// new lines, a page at a time until the client has caught up.
func (s *launchStream) sync(ctx context.Context) error {
	l, err := s.h.store.LaunchByKey(ctx, s.key)
	if errors.Is(err, store.ErrNotFound) {
		if !s.absent {
			s.absent = true
			return s.sock.send(api.LiveMessage{Type: "absent"})
		}
		return nil
	}
	if err != nil {
		return err
	}
	s.absent = false
	for s.seq < l.LastSeq {
		lines, err := s.h.store.Lines(ctx, l.ID, s.seq, livePageLines)
		if err != nil {
			return err
		}
		if len(lines) == 0 {
			break
		}
		if err := s.sock.send(api.LiveMessage{Type: "lines", Lines: toLineJSON(lines)}); err != nil {
			return err
		}
		s.seq = lines[len(lines)-1].Seq
	}
	j, err := s.h.launchView(ctx, l)
	if err != nil {
		return err
	}
	state, err := json.Marshal(j)
	if err != nil {
		return err
	}
	if bytes.Equal(state, s.lastSent) {
		return nil
	}
	s.lastSent = state
	return s.sock.send(api.LiveMessage{Type: "launch", Launch: &j})
}

// close says goodbye: a client that was dropped (slow, or the server is
// stopping) reconnects with ?after= and resumes.
func (s *launchStream) close(err error) {
	code, text := websocket.CloseInternalServerErr, "internal error"
	if errors.Is(err, errShuttingDown) {
		code, text = websocket.CloseGoingAway, err.Error()
	} else if !errors.Is(err, context.Canceled) {
		s.h.log.Debug("live client dropped", slog.String("launch", s.key), slog.String("error", err.Error()))
	}
	s.sock.goodbye(code, text)
}
