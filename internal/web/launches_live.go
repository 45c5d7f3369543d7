package web

import (
	"context"
	"time"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"launchwatch/internal/live"
)

// listTickEvery is how often a list client is nudged even without news, so
// launches that fall silent change badge without any event.
const listTickEvery = 30 * time.Second

// launchesChanged is one message to a launch-list client.
type launchesChanged struct {
	Type     string   `json:"type"` // hello, changed or tick
	Launches []string `json:"launches,omitempty"`
	Resync   bool     `json:"resync,omitempty"` // too many changed to list: re-read everything
}

// launchesLive tells a launch-list client which launches changed:
// GET /api/v1/live (websocket). The client re-reads what it shows.
func (h *handler) launchesLive(c echo.Context) error {
	sub := h.hub.Subscribe(live.AllLaunches)
	defer h.hub.Unsubscribe(sub)
	ws, err := upgrader.Upgrade(c.Response(), c.Request(), nil)
	if err != nil {
		return nil // the upgrader has answered the client already
	}
	defer ws.Close()
	ctx, cancel := context.WithCancel(context.WithoutCancel(c.Request().Context()))
	defer cancel()
	go readUntilClosed(ws, cancel)

	send := func(m launchesChanged) error {
		ws.SetWriteDeadline(time.Now().Add(liveWriteWait)) //nolint:errcheck // a failed write reports it
		return ws.WriteJSON(m)
	}
	if send(launchesChanged{Type: "hello"}) != nil {
		return nil
	}
	ping := time.NewTicker(livePingEvery)
	defer ping.Stop()
	tick := time.NewTicker(listTickEvery)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-ctx.Done():
			return nil
		case <-sub.Done():
			ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, errShuttingDown.Error()), time.Now().Add(time.Second)) //nolint:errcheck
			return nil
		case <-ping.C:
			err = ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(liveWriteWait))
		case <-tick.C:
			err = send(launchesChanged{Type: "tick"})
		case <-sub.Wake():
			keys, resync := sub.Changed()
			err = send(launchesChanged{Type: "changed", Launches: keys, Resync: resync})
		}
		if err != nil {
			return nil // a client that cannot keep up reconnects and re-reads
		}
	}
}
