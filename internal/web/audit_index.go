package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// auditPage is how many events /audit shows at once.
const auditPage = 100

// auditIndex answers GET /audit?user=&subject=&before=: the audit log,
// newest first, filtered by who acted and what it was done to.
func (h *handler) auditIndex(c echo.Context) error {
	q := store.AuditQuery{Actor: c.QueryParam("user"), Subject: c.QueryParam("subject"), Limit: auditPage + 1}
	if err := checkText(c.QueryParams()); err != nil {
		return err
	}
	if b := c.QueryParam("before"); b != "" {
		n, err := strconv.ParseInt(b, 10, 64)
		if err != nil || n < 1 {
			return decode.BadRequest("before must be an event id")
		}
		q.Before = n
	}
	events, err := h.store.AuditLog(c.Request().Context(), q)
	if err != nil {
		return err
	}
	p := views.AuditProps{User: q.Actor, Subject: q.Subject}
	if len(events) > auditPage {
		events = events[:auditPage]
		v := url.Values{"before": {strconv.FormatInt(events[len(events)-1].ID, 10)}}
		if q.Actor != "" {
			v.Set("user", q.Actor)
		}
		if q.Subject != "" {
			v.Set("subject", q.Subject)
		}
		p.Older = "/audit?" + v.Encode()
	}
	for _, e := range events {
		detail, _ := json.Marshal(e.Detail) //nolint:errchkjson // a map read from jsonb
		p.Rows = append(p.Rows, views.AuditRow{ID: e.ID, At: e.At, Actor: e.Actor, Action: e.Action, Subject: e.Subject, Detail: string(detail)})
	}
	return render(c, http.StatusOK, views.Audit(p))
}
