package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// incidentNoteCreate answers POST /incidents/{id}/notes with text.
func (h *handler) incidentNoteCreate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	noteID, err := incident.AddNote(c.Request().Context(), h.store, id, form.Get("text"), incidentActor(c))
	if err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id)+"#inote-"+strconv.FormatInt(noteID, 10))
}
