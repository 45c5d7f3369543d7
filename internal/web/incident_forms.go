package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// The incident page's forms. Each changes the incident and goes back to
// its page (303); an invalid form is a 422 page that says what is wrong,
// and a missing incident, note or item a 404.

// incidentUpdate answers POST /incidents/{id}: the fields the form holds
// (status, title, severity, owner, summary, root_cause, resolution) are
// set; fields it does not hold stay.
func (h *handler) incidentUpdate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	field := func(name string) *string {
		if vs, ok := form[name]; ok && len(vs) > 0 {
			return &vs[0]
		}
		return nil
	}
	ch := incident.Change{Title: field("title"), Severity: field("severity"), Status: field("status"),
		Owner: field("owner"), Summary: field("summary"), RootCause: field("root_cause"), Resolution: field("resolution")}
	if err := incident.Apply(c.Request().Context(), h.store, id, ch, incidentActor(c)); err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id))
}
