package client

import (
	"context"
	"fmt"
	"launchwatch/internal/api"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"
)

// LiveMessage is one message of a launch's live stream.
type LiveMessage = api.LiveMessage

// liveIdle is how long a stream may carry nothing, not even the server's
// pings (every 15 s), before it is taken for dead.
const liveIdle = 45 * time.Second

// Live is an open live stream of one launch.
type Live struct {
	ws   *websocket.Conn
	stop func() bool
}

// Follow opens the live stream of launch key, sending lines after seq
// after (use -1 for none: only the launch's state).
func (c *Client) Follow(ctx context.Context, key string, after int64) (*Live, error) {
	u := *c.base
	u.Scheme = strings.Replace(u.Scheme, "http", "ws", 1)
	u.Path += "/api/v1/launches/" + url.PathEscape(key) + "/live"
	if after < 0 {
		after = 1<<63 - 1
	}
	u.RawQuery = "after=" + strconv.FormatInt(after, 10)
	header := http.Header{}
	if c.token != "" {
		header.Set("Authorization", "Bearer "+c.token)
	}
	dialer := websocket.Dialer{HandshakeTimeout: 10 * time.Second}
	ws, res, err := dialer.DialContext(ctx, u.String(), header)
	if err != nil {
		if res != nil {
			return nil, &APIError{Status: res.StatusCode, Message: fmt.Sprintf("websocket refused: %v", err)}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &UnreachableError{URL: c.base.String(), Err: err}
	}
	// Each ping from the server proves the connection alive.
	ws.SetReadDeadline(time.Now().Add(liveIdle)) //nolint:errcheck
	ws.SetPingHandler(func(data string) error {
		ws.SetReadDeadline(time.Now().Add(liveIdle))                                               //nolint:errcheck
		return ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(5*time.Second)) //nolint:errcheck
	})
	// Closing the connection is how a blocked read learns that ctx ended.
	stop := context.AfterFunc(ctx, func() { ws.Close() })
	return &Live{ws: ws, stop: stop}, nil
}

// Next returns the next message. It fails when the connection drops, when
// nothing (not even a ping) arrived for a while, or when the context given
// to Follow ends.
func (l *Live) Next() (LiveMessage, error) {
	var m LiveMessage
	if err := l.ws.ReadJSON(&m); err != nil {
		return m, err
	}
	l.ws.SetReadDeadline(time.Now().Add(liveIdle)) //nolint:errcheck
	return m, nil
}

// Close closes the stream.
func (l *Live) Close() error {
	l.stop()
	return l.ws.Close()
}
