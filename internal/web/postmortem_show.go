package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
	"launchwatch/internal/postmortem"
	"launchwatch/internal/views"
)

// postmortemShow answers GET /incidents/{id}/postmortem: the post-mortem
// as a print-friendly page.
func (h *handler) postmortemShow(c echo.Context) error {
	doc, _, err := h.postmortem(c, "")
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.Postmortem(doc))
}

func (h *handler) postmortem(c echo.Context, base string) (views.PostmortemDoc, int64, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return views.PostmortemDoc{}, 0, err
	}
	ctx := c.Request().Context()
	v, err := incident.Load(ctx, h.store, id)
	if err != nil {
		return views.PostmortemDoc{}, 0, err
	}
	doc, err := postmortem.Build(ctx, h.store, v, base, h.now())
	return doc, id, err
}

// baseURL is where people reach this server: the public URL when one is
// configured, else the scheme and host of the request (already checked
// against the host policy).
func (h *handler) baseURL(c echo.Context) string {
	if u := h.cfg.PublicURL; u != nil {
		return strings.TrimRight(u.Scheme+"://"+u.Host+u.Path, "/")
	}
	return c.Scheme() + "://" + c.Request().Host
}
