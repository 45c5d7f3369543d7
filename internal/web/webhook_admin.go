package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/notify"
	"launchwatch/internal/views"
)

// deliveriesOnPage is how many of each target's deliveries the page shows.
const deliveriesOnPage = 10

// webhooksIndex answers GET /admin/webhooks.
func (h *handler) webhooksIndex(c echo.Context) error {
	p := views.WebhooksProps{Format: "json", Events: []string{"alarm", "crashed"}, Done: c.QueryParam("done")}
	switch p.Done {
	case "created":
		p.Notice = "Webhook added."
	case "test":
		p.Notice = "Test delivery queued: its result shows in the target's log below."
	case "deleted":
		p.Notice = "Webhook deleted."
	}
	return h.renderWebhooks(c, http.StatusOK, p)
}

func (h *handler) renderWebhooks(c echo.Context, status int, p views.WebhooksProps) error {
	ctx := c.Request().Context()
	ws, err := h.store.Webhooks(ctx)
	if err != nil {
		return err
	}
	stats, err := h.store.WebhookStats(ctx)
	if err != nil {
		return err
	}
	for _, w := range ws {
		ds, err := h.store.WebhookDeliveries(ctx, w.ID, deliveriesOnPage)
		if err != nil {
			return err
		}
		st := stats[w.ID]
		row := views.WebhookRow{ID: w.ID, URL: w.URL, Format: w.Format, Events: w.Events, Server: w.Server, Label: w.Label,
			CreatedBy: w.CreatedBy, CreatedAt: w.CreatedAt, Pending: st.Pending, Delivered: st.Delivered, Failed: st.Failed}
		for _, d := range ds {
			row.Deliveries = append(row.Deliveries, views.WebhookDeliveryRow{ID: d.ID, Kind: d.Kind, Launch: d.LaunchKey,
				State: d.State, Attempts: d.Attempts, LastStatus: d.LastStatus, LastError: d.LastError,
				CreatedAt: d.CreatedAt, LastAt: d.LastAt, NextAt: d.NextAt})
		}
		p.Hooks = append(p.Hooks, row)
	}
	p.Formats, p.All = notify.Formats, notify.Events
	return render(c, status, views.Webhooks(p))
}

// webhookCreateForm answers POST /admin/webhooks.
func (h *handler) webhookCreateForm(c echo.Context) error {
	form, _ := c.FormParams() // read and checked by the form middleware
	t := notify.Target{URL: c.FormValue("url"), Format: c.FormValue("format"), Events: form["events"],
		Server: c.FormValue("server"), Label: c.FormValue("label")}
	w, errs, err := h.createWebhook(c, t)
	if err != nil {
		return err
	}
	if errs != nil {
		return h.renderWebhooks(c, http.StatusUnprocessableEntity, views.WebhooksProps{Errors: errs, URL: t.URL,
			Format: t.Format, Events: t.Events, Server: t.Server, Label: t.Label})
	}
	return c.Redirect(http.StatusSeeOther, "/admin/webhooks?done=created#webhook-"+strconv.FormatInt(w.ID, 10))
}

// webhookTestForm answers POST /admin/webhooks/{id}/test: the "send test"
// button.
func (h *handler) webhookTestForm(c echo.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	if err := h.queueWebhookTest(c.Request().Context(), id, actorName(c)); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/admin/webhooks?done=test#webhook-"+strconv.FormatInt(id, 10))
}

// webhookDeleteForm answers POST /admin/webhooks/{id}/delete.
func (h *handler) webhookDeleteForm(c echo.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteWebhook(c.Request().Context(), id, actorName(c)); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/admin/webhooks?done=deleted")
}
