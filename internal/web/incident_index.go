package web

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/incident"
	"launchwatch/internal/launchid"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// incidentFilter reads the incidents list's filters: status, severity,
// q (part of the title) and launch (a launch key). A value outside its
// set is a 400 that says so.
func incidentFilter(c echo.Context) (store.IncidentFilter, error) {
	if err := checkText(c.QueryParams()); err != nil {
		return store.IncidentFilter{}, err
	}
	f := store.IncidentFilter{Status: c.QueryParam("status"), Severity: c.QueryParam("severity"),
		Query: strings.TrimSpace(c.QueryParam("q")), LaunchKey: strings.TrimSpace(c.QueryParam("launch"))}
	switch {
	case f.Status != "" && !slices.Contains(incident.Statuses, f.Status):
		return f, decode.BadRequest("status must be one of %s", strings.Join(incident.Statuses, ", "))
	case f.Severity != "" && !slices.Contains(incident.Severities, f.Severity):
		return f, decode.BadRequest("severity must be one of %s", strings.Join(incident.Severities, ", "))
	case utf8.RuneCountInString(f.Query) > incident.MaxTitle:
		return f, decode.BadRequest("q is at most %d characters", incident.MaxTitle)
	case f.LaunchKey != "" && !launchid.KeyPattern.MatchString(f.LaunchKey):
		return f, decode.BadRequest("launch must be a launch key")
	}
	return f, nil
}

// incidentsIndex answers GET /incidents: every incident, newest first,
// with filters; bad filters are shown with the form and a 400.
func (h *handler) incidentsIndex(c echo.Context) error {
	p := views.IncidentsProps{Statuses: incident.Statuses, Severities: incident.Severities,
		Status: c.QueryParam("status"), Severity: c.QueryParam("severity"), Query: c.QueryParam("q"),
		Launch: c.QueryParam("launch")}
	f, err := incidentFilter(c)
	var inputErr *decode.InputError
	if errors.As(err, &inputErr) {
		p.Error = inputErr.Message
		return render(c, inputErr.Status, views.Incidents(p))
	}
	if err != nil {
		return err
	}
	items, err := h.store.Incidents(c.Request().Context(), f)
	if err != nil {
		return err
	}
	p.Rows = incidentRows(items)
	return render(c, http.StatusOK, views.Incidents(p))
}

func incidentRows(items []store.IncidentListItem) []views.IncidentRow {
	rows := make([]views.IncidentRow, 0, len(items))
	for _, it := range items {
		rows = append(rows, views.IncidentRow{ID: it.ID, Title: it.Title, Severity: it.Severity, Status: it.Status,
			Owner: it.Owner, CreatedBy: it.CreatedBy, CreatedAt: it.CreatedAt, Launches: it.LaunchKeys})
	}
	return rows
}

func (h *handler) renderIncidentNew(c echo.Context, status int, p views.IncidentNewProps) error {
	ctx := c.Request().Context()
	for _, s := range []string{"investigating", "mitigated"} {
		items, err := h.store.Incidents(ctx, store.IncidentFilter{Status: s, Limit: 10})
		if err != nil {
			return err
		}
		p.Open = append(p.Open, incidentRows(items)...)
	}
	return render(c, status, views.IncidentNew(p))
}
