package web

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/notify"
	"launchwatch/internal/store"
)

// webhookJSON is a target in the API, with its delivery counts.
type webhookJSON struct {
	ID        int64     `json:"id"`
	URL       string    `json:"url"`
	Format    string    `json:"format"`
	Events    []string  `json:"events"`
	Server    string    `json:"server"`
	Label     string    `json:"label"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
	Pending   int       `json:"pending"`
	Delivered int       `json:"delivered"`
	Failed    int       `json:"failed"`
}

func toWebhookJSON(w store.Webhook, st store.WebhookStats) webhookJSON {
	return webhookJSON{ID: w.ID, URL: w.URL, Format: w.Format, Events: w.Events, Server: w.Server, Label: w.Label,
		CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt, Pending: st.Pending, Delivered: st.Delivered, Failed: st.Failed}
}

// createWebhook validates t and stores it; the field errors say what is
// wrong with the request.
func (h *handler) createWebhook(c echo.Context, t notify.Target) (store.Webhook, map[string]string, error) {
	if errs := t.Validate(); errs != nil {
		return store.Webhook{}, errs, nil
	}
	if !h.cfg.WebhookAllowPrivate {
		if msg := notify.CheckDestination(c.Request().Context(), net.DefaultResolver, t.URL); msg != "" {
			return store.Webhook{}, map[string]string{"url": msg}, nil
		}
	}
	w, err := h.store.CreateWebhook(c.Request().Context(), store.Webhook{URL: t.URL, Format: t.Format, Events: t.Events,
		Server: t.Server, Label: t.Label, CreatedBy: actorName(c), CreatedAt: h.now()})
	return w, nil, err
}

// apiWebhookCreate answers POST /api/v1/webhooks: 201 with the target;
// 422 with the reasons (a URL that is not http or https, say).
func (h *handler) apiWebhookCreate(c echo.Context) error {
	var t notify.Target
	if err := decodeTextJSON(c, &t); err != nil {
		return err
	}
	w, errs, err := h.createWebhook(c, t)
	if err != nil {
		return err
	}
	if errs != nil {
		return c.JSON(http.StatusUnprocessableEntity, fieldErrorsBody(errs))
	}
	return c.JSON(http.StatusCreated, toWebhookJSON(w, store.WebhookStats{}))
}

// apiWebhooksList answers GET /api/v1/webhooks.
func (h *handler) apiWebhooksList(c echo.Context) error {
	ctx := c.Request().Context()
	ws, err := h.store.Webhooks(ctx)
	if err != nil {
		return err
	}
	stats, err := h.store.WebhookStats(ctx)
	if err != nil {
		return err
	}
	out := make([]webhookJSON, 0, len(ws))
	for _, w := range ws {
		out = append(out, toWebhookJSON(w, stats[w.ID]))
	}
	return c.JSON(http.StatusOK, map[string]any{"webhooks": out})
}

// apiWebhookDelete answers DELETE /api/v1/webhooks/{id}: 204; nothing more
// is sent to it.
func (h *handler) apiWebhookDelete(c echo.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteWebhook(c.Request().Context(), id, actorName(c)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// apiWebhookTest answers POST /api/v1/webhooks/{id}/test: 202, a test
// delivery queued like any other (its result shows in the log).
func (h *handler) apiWebhookTest(c echo.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	if err := h.queueWebhookTest(c.Request().Context(), id, actorName(c)); err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]any{"queued": true})
}

// deliveryJSON is one delivery in a target's log.
type deliveryJSON struct {
	ID         int64      `json:"id"`
	Event      string     `json:"event"`
	Launch     string     `json:"launch"`
	State      string     `json:"state"`
	Attempts   int        `json:"attempts"`
	LastStatus *int       `json:"last_status"`
	LastError  string     `json:"last_error"`
	CreatedAt  time.Time  `json:"created_at"`
	LastAt     *time.Time `json:"last_at"`
	NextAt     *time.Time `json:"next_at"` // when a pending delivery is tried again
}

// apiWebhookDeliveries answers GET /api/v1/webhooks/{id}/deliveries: the
// target's latest deliveries, newest first.
func (h *handler) apiWebhookDeliveries(c echo.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	if _, err := h.store.Webhook(ctx, id); err != nil {
		return err
	}
	ds, err := h.store.WebhookDeliveries(ctx, id, maxDeliveriesShown)
	if err != nil {
		return err
	}
	out := make([]deliveryJSON, 0, len(ds))
	for _, d := range ds {
		j := deliveryJSON{ID: d.ID, Event: d.Kind, Launch: d.LaunchKey, State: d.State, Attempts: d.Attempts,
			LastStatus: d.LastStatus, LastError: d.LastError, CreatedAt: d.CreatedAt, LastAt: d.LastAt}
		if d.State == "pending" {
			j.NextAt = &d.NextAt
		}
		out = append(out, j)
	}
	return c.JSON(http.StatusOK, map[string]any{"deliveries": out})
}

// maxDeliveriesShown is how much of a target's log the API and page show.
const maxDeliveriesShown = 100

func webhookID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, decode.BadRequest("no such webhook: %q", c.Param("id"))
	}
	return id, nil
}

// queueWebhookTest queues a test delivery to target id, naming the latest
// launch.
func (h *handler) queueWebhookTest(ctx context.Context, id int64, actor string) error {
	if _, err := h.store.Webhook(ctx, id); err != nil {
		return err
	}
	launch, err := h.store.LatestLaunchID(ctx)
	if err != nil {
		return err
	}
	return h.store.AddTestWebhookEvent(ctx, id, launch, actor)
}
