package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// incidentActionUpdate answers POST /incidents/{id}/actions/{item} with
// done=true|false (tick or untick), text (new text) or delete=1.
func (h *handler) incidentActionUpdate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	itemID, err := pathID(c, "item")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	ch := incident.ActionChange{Delete: form.Get("delete") != ""}
	if vs, ok := form["text"]; ok && len(vs) > 0 {
		ch.Text = &vs[0]
	}
	if s := form.Get("done"); s != "" {
		done, err := strconv.ParseBool(s)
		if err != nil {
			return &echo.HTTPError{Code: http.StatusUnprocessableEntity, Message: "done must be true or false"}
		}
		ch.Done = &done
	}
	if err := incident.UpdateAction(c.Request().Context(), h.store, id, itemID, ch, incidentActor(c)); err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id)+"#action-items")
}
