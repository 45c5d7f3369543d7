package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
	"launchwatch/internal/views"
)

// incidentCreate answers the form of /incidents/new (title, severity,
// owner, launch...): the incident is opened and its page shown; an invalid
// form is shown again with the message and 422.
func (h *handler) incidentCreate(c echo.Context) error {
	form, err := formText(c)
	if err != nil {
		return err
	}
	n := incident.New{Title: form.Get("title"), Severity: form.Get("severity"), Owner: form.Get("owner"),
		Launches: form["launch"]}
	id, err := incident.Open(c.Request().Context(), h.store, n, incidentActor(c))
	var invalid *incident.InvalidError
	if errors.As(err, &invalid) {
		p := views.IncidentNewProps{Title: n.Title, Severity: n.Severity, Owner: n.Owner, Launches: n.Launches,
			Severities: incident.Severities, Error: invalid.Message()}
		return h.renderIncidentNew(c, http.StatusUnprocessableEntity, p)
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id))
}
