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
