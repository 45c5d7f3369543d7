package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
	"launchwatch/internal/launchid"
	"launchwatch/internal/views"
)

// incidentNew answers GET /incidents/new?launch=KEY&launch=KEY: the form
// that opens an incident for those launches (from a launch's page or the
// launches selected in the list), and the open incidents they could join.
func (h *handler) incidentNew(c echo.Context) error {
	if err := checkText(c.QueryParams()); err != nil {
		return err
	}
	p := views.IncidentNewProps{Severities: incident.Severities, Severity: incident.DefaultSeverity}
	for _, k := range c.QueryParams()["launch"] {
		if k = strings.TrimSpace(k); launchid.KeyPattern.MatchString(k) && !slices.Contains(p.Launches, k) {
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
