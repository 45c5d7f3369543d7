package web

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
	"launchwatch/internal/ingest"
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
		return f, badParam("status must be one of %s", strings.Join(incident.Statuses, ", "))
	case f.Severity != "" && !slices.Contains(incident.Severities, f.Severity):
		return f, badParam("severity must be one of %s", strings.Join(incident.Severities, ", "))
	case utf8.RuneCountInString(f.Query) > incident.MaxTitle:
		return f, badParam("q is at most %d characters", incident.MaxTitle)
	case f.LaunchKey != "" && !launchKeyPattern.MatchString(f.LaunchKey):
		return f, badParam("launch must be a launch key")
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
	var inputErr *ingest.InputError
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

// incidentNew answers GET /incidents/new?launch=KEY&launch=KEY: the form
// that opens an incident for those launches (from a launch's page or the
// launches selected in the list), and the open incidents they could join.
func (h *handler) incidentNew(c echo.Context) error {
	if err := checkText(c.QueryParams()); err != nil {
		return err
	}
	p := views.IncidentNewProps{Severities: incident.Severities, Severity: incident.DefaultSeverity}
	for _, k := range c.QueryParams()["launch"] {
		if k = strings.TrimSpace(k); launchKeyPattern.MatchString(k) && !slices.Contains(p.Launches, k) {
			p.Launches = append(p.Launches, k)
		}
	}
	if len(p.Launches) > 0 {
		p.Title = "Launch " + p.Launches[0] + " failed"
		if len(p.Launches) > 1 {
			p.Title = "Launches " + strings.Join(p.Launches, ", ") + " failed"
		}
		if r := []rune(p.Title); len(r) > incident.MaxTitle {
			p.Title = string(r[:incident.MaxTitle-1]) + "…"
		}
	}
	return h.renderIncidentNew(c, http.StatusOK, p)
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

// incidentCreate answers the form of /incidents/new (title, severity,
// owner, launch...): the incident is opened and its page shown; an invalid
// form is shown again with the message and 422.
func (h *handler) incidentCreate(c echo.Context) error {
	form, err := formText(c)
	if err != nil {
		return err
	}
	n := incident.New{Title: form.Get("title"), Severity: form.Get("severity"), Owner: form.Get("owner"),
		Launches: form["launch"]}
	id, err := incident.Open(c.Request().Context(), h.store, n, incidentActor(c))
	var invalid *incident.InvalidError
	if errors.As(err, &invalid) {
		p := views.IncidentNewProps{Title: n.Title, Severity: n.Severity, Owner: n.Owner, Launches: n.Launches,
			Severities: incident.Severities, Error: invalid.Message()}
		return h.renderIncidentNew(c, http.StatusUnprocessableEntity, p)
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id))
}
