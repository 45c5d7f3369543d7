package web

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"launchwatch/internal/live"
)

// liveSocket is one websocket client: the connection, and a context that
// ends when the client goes away. Both live endpoints (one launch, the
// launch list) are built on it.
type liveSocket struct {
	ws     *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc
	log    *slog.Logger
}

// liveWriteBuffers are the write buffers of every websocket of the
// process, taken only while a message is written: a client that waits for
// news holds none (10,000 followers would hold 320 MB of their own), and
// the messages of a feed, framed once, are written without any.
var liveWriteBuffers sync.Pool

// upgradeLive upgrades the request. ok is false when the upgrade failed;
// the upgrader has answered the client then.
func (h *handler) upgradeLive(c echo.Context) (s *liveSocket, ok bool) {
	ws, err := h.upgrader.Upgrade(c.Response(), c.Request(), nil)
	if err != nil {
		return nil, false
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(c.Request().Context()))
	go readUntilClosed(ws, cancel)
	return &liveSocket{ws: ws, ctx: ctx, cancel: cancel, log: h.log}, true
}

// openLive subscribes to key (before anything is read, so no change is
// missed) and upgrades the request.
func (h *handler) openLive(c echo.Context, key string) (*live.Sub, *liveSocket, bool) {
	sub := h.hub.Subscribe(key)
	s, ok := h.upgradeLive(c)
	if !ok {
		h.hub.Unsubscribe(sub)
		return nil, nil, false
	}
	return sub, s, true
}

// close ends the connection.
func (s *liveSocket) close() {
	s.cancel()
	s.ws.Close()
}

// send writes one JSON message; a client that cannot take it within
// liveWriteWait gets an error and is dropped (it reconnects and resumes).
func (s *liveSocket) send(v any) error {
	s.ws.SetWriteDeadline(time.Now().Add(liveWriteWait)) //nolint:errcheck // a failed write reports it
	return s.ws.WriteJSON(v)
}

// sendMessage writes a message framed once for all followers, within
// liveWriteWait like send.
func (s *liveSocket) sendMessage(m live.Message) error {
	s.ws.SetWriteDeadline(time.Now().Add(liveWriteWait)) //nolint:errcheck // a failed write reports it
	return m.Write(s.ws)
}

// ping proves the connection alive to the client.
func (s *liveSocket) ping() error {
	return s.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(liveWriteWait))
}

// goodbye sends a close frame with code and reason, best effort.
func (s *liveSocket) goodbye(code int, reason string) {
	s.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second)) //nolint:errcheck
}

// readUntilClosed reads (and discards) what the client sends, so pongs and
// the close handshake are processed, and cancels when the client goes away.
func readUntilClosed(ws *websocket.Conn, cancel context.CancelFunc) {
	defer cancel()
	ws.SetReadLimit(512)
	ws.SetReadDeadline(time.Now().Add(livePongWait)) //nolint:errcheck
	ws.SetPongHandler(func(string) error { return ws.SetReadDeadline(time.Now().Add(livePongWait)) })
	for {
		if _, _, err := ws.NextReader(); err != nil {
			return
		}
	}
}
