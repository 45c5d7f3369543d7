package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// incidentLaunches answers POST /incidents/{id}/launches with add=KEY
// and/or remove=KEY (each may repeat).
func (h *handler) incidentLaunches(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	ch := incident.Change{AddLaunches: form["add"], RemoveLaunches: form["remove"]}
	if err := incident.Apply(c.Request().Context(), h.store, id, ch, incidentActor(c)); err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id))
}
