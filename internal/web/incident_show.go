package web

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
	"launchwatch/internal/views"
)

// incidentShow answers GET /incidents/{id}: status and its history, the
// merged timeline, launches, notes with their edit history, the
// post-mortem fields and the action items.
func (h *handler) incidentShow(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	v, err := incident.Load(c.Request().Context(), h.store, id)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.Incident(incidentProps(v)))
}

func incidentProps(v *incident.View) views.IncidentProps {
	i := v.Incident
	p := views.IncidentProps{ID: i.ID, Title: i.Title, Severity: i.Severity, Status: i.Status, Owner: i.Owner,
		Summary: i.Summary, RootCause: i.RootCause, Resolution: i.Resolution, CreatedBy: i.CreatedBy,
		CreatedAt: i.CreatedAt, Severities: incident.Severities, Statuses: incident.Statuses,
		Timeline: incidentTimeline(v)}
	for _, s := range v.Statuses {
		p.StatusChanges = append(p.StatusChanges, views.IncidentStatusRow{Status: s.Status, Actor: s.Actor, At: s.At})
	}
	for _, l := range v.Launches {
		d, what := l.Duration()
		row := views.IncidentLaunchRow{Key: l.Key, Status: l.Status, Server: l.Server, Host: l.Host,
			Duration: views.Duration(d) + " " + what, AddedBy: l.AddedBy, AddedAt: l.AddedAt}
		if rc := l.RootCauses(); len(rc) > 0 {
			row.Why = rc[0].Headline
		} else if l.ExitCode != nil || l.ExitSignal != nil {
			row.Why = incident.ExitText(l.ExitCode, l.ExitSignal)
		}
		if l.First.IsZero() {
			row.Duration = "no line"
		}
		p.Launches = append(p.Launches, row)
	}
	for _, n := range v.Notes {
		row := views.IncidentNoteRow{ID: n.ID, Author: n.Author, Body: n.Body, Created: n.CreatedAt}
		if len(n.Revisions) > 0 {
			row.EditedBy, row.EditedAt = n.EditedBy()
		}
		for _, r := range n.Revisions {
			row.Revisions = append(row.Revisions, views.NoteRevisionRow{Body: r.Body, Author: r.Author,
				WrittenAt: r.WrittenAt, EditedBy: r.EditedBy, EditedAt: r.EditedAt})
		}
		p.Notes = append(p.Notes, row)
	}
	for _, a := range v.Actions {
		row := views.ActionItemRow{ID: a.ID, Body: a.Body, Done: a.Done, DoneAt: a.DoneAt}
		if a.DoneBy != nil {
			row.DoneBy = *a.DoneBy
		}
		p.Actions = append(p.Actions, row)
	}
	for _, e := range v.History {
		p.History = append(p.History, historyLine(e.At, e.Actor, e.Action, e.Detail))
	}
	return p
}

// historyLine is one audit event of the incident in words.
func historyLine(at time.Time, actor, action string, detail map[string]any) string {
	what := strings.ReplaceAll(strings.TrimPrefix(action, "incident."), "_", " ")
	switch action {
	case "incident.status":
		what = "status " + str(detail["from"]) + " → " + str(detail["to"])
	case "incident.launch_add", "incident.launch_remove":
		what += " " + str(detail["launch"])
	case "incident.update":
		var fields []string
		for k := range detail {
			fields = append(fields, strings.ReplaceAll(k, "_", " "))
		}
		slices.Sort(fields)
		what = "edited " + strings.Join(fields, ", ")
	case "incident.note", "incident.note_edit":
		what += " #" + str(detail["note"])
	}
	return at.UTC().Format("2006-01-02 15:04:05") + " UTC " + actor + ": " + what
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case nil:
		return ""
	}
	return ""
}
