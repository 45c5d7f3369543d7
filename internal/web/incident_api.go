package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// incidentCreateRequest is the body of POST /api/v1/incidents.
type incidentCreateRequest struct {
	Title    string   `json:"title"`
	Severity string   `json:"severity"`
	Owner    string   `json:"owner"`
	Launches []string `json:"launches"`
}

// incidentAPICreate answers POST /api/v1/incidents {"title", "severity",
// "launches": ["key", ...]} with 201 and the incident.
func (h *handler) incidentAPICreate(c echo.Context) error {
	var req incidentCreateRequest
	if err := decodeJSON(c, &req); err != nil {
		return err
	}
	ctx := c.Request().Context()
	id, err := incident.Open(ctx, h.store, incident.New{Title: req.Title, Severity: req.Severity, Owner: req.Owner,
		Launches: req.Launches}, incidentActor(c))
	if err != nil {
		return incidentInput(err, http.StatusBadRequest)
	}
	v, err := incident.Load(ctx, h.store, id)
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderLocation, "/api/v1/incidents/"+strconv.FormatInt(id, 10))
	return c.JSON(http.StatusCreated, newIncidentJSON(v))
}

// incidentPatchRequest is the body of PATCH /api/v1/incidents/{id}: the
// fields to change; absent fields stay.
type incidentPatchRequest struct {
	Title          *string  `json:"title"`
	Severity       *string  `json:"severity"`
	Status         *string  `json:"status"`
	Owner          *string  `json:"owner"`
	Summary        *string  `json:"summary"`
	RootCause      *string  `json:"root_cause"`
	Resolution     *string  `json:"resolution"`
	AddLaunches    []string `json:"add_launches"`
	RemoveLaunches []string `json:"remove_launches"`
}
