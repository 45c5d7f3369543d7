package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// incidentActionCreate answers POST /incidents/{id}/actions with text.
func (h *handler) incidentActionCreate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	if _, err := incident.AddAction(c.Request().Context(), h.store, id, form.Get("text"), incidentActor(c)); err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id)+"#action-items")
}
