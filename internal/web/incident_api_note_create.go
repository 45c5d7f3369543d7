package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// incidentAPINoteCreate answers POST /api/v1/incidents/{id}/notes
// {"text": "..."} with 201 and the note.
func (h *handler) incidentAPINoteCreate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Text string `json:"text"`
	}
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	noteID, err := incident.AddNote(ctx, h.store, id, req.Text, incidentActor(c))
	if err != nil {
		return incidentInput(err, http.StatusBadRequest)
	}
	notes, err := h.store.IncidentNotes(ctx, id)
	if err != nil {
		return err
	}
	for _, n := range notes {
		if n.ID == noteID {
			return c.JSON(http.StatusCreated, newNoteJSON(n))
		}
	}
	return c.JSON(http.StatusCreated, map[string]int64{"id": noteID})
}
