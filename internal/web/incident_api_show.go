package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// incidentAPIShow answers GET /api/v1/incidents/{id}.
func (h *handler) incidentAPIShow(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	v, err := incident.Load(c.Request().Context(), h.store, id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, newIncidentJSON(v))
}
