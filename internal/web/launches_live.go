package web

import (
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
	sub, sock, ok := h.openLive(c, live.AllLaunches)
	if !ok {
		return nil
	}
	defer h.hub.Unsubscribe(sub)
	defer sock.close()
	if sock.send(launchesChanged{Type: "hello"}) != nil {
		return nil
	}
	ping := time.NewTicker(livePingEvery)
	defer ping.Stop()
	tick := time.NewTicker(listTickEvery)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-sock.ctx.Done():
			return nil
		case <-sub.Done():
			sock.goodbye(websocket.CloseGoingAway, errShuttingDown.Error())
			return nil
		case <-ping.C:
			err = sock.ping()
		case <-tick.C:
			err = sock.send(launchesChanged{Type: "tick"})
		case <-sub.Wake():
			keys, resync := sub.Changed()
			err = sock.send(launchesChanged{Type: "changed", Launches: keys, Resync: resync})
		}
		if err != nil {
			return nil // a client that cannot keep up reconnects and re-reads
		}
	}
}
