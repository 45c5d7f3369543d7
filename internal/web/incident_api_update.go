package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// incidentAPIUpdate answers PATCH /api/v1/incidents/{id} with the changed
// incident; a status change is recorded with who made it and when.
func (h *handler) incidentAPIUpdate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	var req incidentPatchRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	ch := incident.Change{Title: req.Title, Severity: req.Severity, Status: req.Status, Owner: req.Owner,
		Summary: req.Summary, RootCause: req.RootCause, Resolution: req.Resolution,
		AddLaunches: req.AddLaunches, RemoveLaunches: req.RemoveLaunches}
	if err := incident.Apply(ctx, h.store, id, ch, incidentActor(c)); err != nil {
		return incidentInput(err, http.StatusBadRequest)
	}
	v, err := incident.Load(ctx, h.store, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, newIncidentJSON(v))
}
