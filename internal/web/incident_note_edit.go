package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// incidentNoteEdit answers POST /incidents/{id}/notes/{note} with text:
// the note gets the new text and keeps the old one in its history.
func (h *handler) incidentNoteEdit(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	noteID, err := pathID(c, "note")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	if err := incident.EditNote(c.Request().Context(), h.store, id, noteID, form.Get("text"), incidentActor(c)); err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id)+"#inote-"+strconv.FormatInt(noteID, 10))
}
