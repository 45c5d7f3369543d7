package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// incidentAPIList answers GET /api/v1/incidents with the list page's
// filters (status, severity, q, launch), newest first.
func (h *handler) incidentAPIList(c echo.Context) error {
	f, err := incidentFilter(c)
	if err != nil {
		return err
	}
	items, err := h.store.Incidents(c.Request().Context(), f)
	if err != nil {
		return err
	}
	out := struct {
		Incidents []incidentListJSON `json:"incidents"`
	}{Incidents: []incidentListJSON{}}
	for _, it := range items {
		out.Incidents = append(out.Incidents, incidentListJSON{ID: it.ID, Title: it.Title, Severity: it.Severity,
			Status: it.Status, Owner: it.Owner, CreatedBy: it.CreatedBy, CreatedAt: it.CreatedAt,
			Launches: it.LaunchKeys, URL: incident.Path(it.ID)})
	}
	return c.JSON(http.StatusOK, out)
}
