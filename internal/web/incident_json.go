package web

import (
	"time"

	"launchwatch/internal/incident"
	"launchwatch/internal/store"
)

// incidentJSON is an incident as the API shows it.
type incidentJSON struct {
	ID            int64                `json:"id"`
	Title         string               `json:"title"`
	Severity      string               `json:"severity"`
	Status        string               `json:"status"`
	Owner         string               `json:"owner"`
	Summary       string               `json:"summary"`
	RootCause     string               `json:"root_cause"`
	Resolution    string               `json:"resolution"`
	CreatedBy     string               `json:"created_by"`
	CreatedAt     time.Time            `json:"created_at"`
	UpdatedAt     time.Time            `json:"updated_at"`
	URL           string               `json:"url"`
	PostmortemURL string               `json:"postmortem_url"`
	Launches      []incidentLaunchJSON `json:"launches"`
	StatusChanges []statusChangeJSON   `json:"status_changes"`
	Notes         []incidentNoteJSON   `json:"notes"`
	ActionItems   []actionItemJSON     `json:"action_items"`
}

type incidentLaunchJSON struct {
	Key     string    `json:"key"`
	Status  string    `json:"status"`
	Server  string    `json:"server"`
	Host    string    `json:"host"`
	AddedBy string    `json:"added_by"`
	AddedAt time.Time `json:"added_at"`
}

type statusChangeJSON struct {
	Status string    `json:"status"`
	By     string    `json:"by"`
	At     time.Time `json:"at"`
}

type incidentNoteJSON struct {
	ID        int64              `json:"id"`
	Text      string             `json:"text"`
	Author    string             `json:"author"`
	CreatedAt time.Time          `json:"created_at"`
	Revisions []noteRevisionJSON `json:"revisions"`
}

type noteRevisionJSON struct {
	Text      string    `json:"text"`
	Author    string    `json:"author"`
	WrittenAt time.Time `json:"written_at"`
	EditedBy  string    `json:"edited_by"`
	EditedAt  time.Time `json:"edited_at"`
}

type actionItemJSON struct {
	ID        int64      `json:"id"`
	Text      string     `json:"text"`
	Done      bool       `json:"done"`
	CreatedBy string     `json:"created_by"`
	CreatedAt time.Time  `json:"created_at"`
	DoneBy    *string    `json:"done_by,omitempty"`
	DoneAt    *time.Time `json:"done_at,omitempty"`
}

func newIncidentJSON(v *incident.View) incidentJSON {
	i := v.Incident
	j := incidentJSON{ID: i.ID, Title: i.Title, Severity: i.Severity, Status: i.Status, Owner: i.Owner,
		Summary: i.Summary, RootCause: i.RootCause, Resolution: i.Resolution, CreatedBy: i.CreatedBy,
		CreatedAt: i.CreatedAt, UpdatedAt: i.UpdatedAt, URL: incident.Path(i.ID),
		PostmortemURL: incident.Path(i.ID) + "/postmortem.md",
		Launches:      []incidentLaunchJSON{}, StatusChanges: []statusChangeJSON{}, Notes: []incidentNoteJSON{},
		ActionItems: []actionItemJSON{}}
	for _, l := range v.Launches {
		j.Launches = append(j.Launches, incidentLaunchJSON{Key: l.Key, Status: l.Status, Server: l.Server, Host: l.Host,
			AddedBy: l.AddedBy, AddedAt: l.AddedAt})
	}
	for _, c := range v.Statuses {
		j.StatusChanges = append(j.StatusChanges, statusChangeJSON{Status: c.Status, By: c.Actor, At: c.At})
	}
	for _, n := range v.Notes {
		j.Notes = append(j.Notes, newNoteJSON(n))
	}
	for _, a := range v.Actions {
		j.ActionItems = append(j.ActionItems, actionItemJSON{ID: a.ID, Text: a.Body, Done: a.Done, CreatedBy: a.CreatedBy,
			CreatedAt: a.CreatedAt, DoneBy: a.DoneBy, DoneAt: a.DoneAt})
	}
	return j
}

func newNoteJSON(n store.IncidentNote) incidentNoteJSON {
	nj := incidentNoteJSON{ID: n.ID, Text: n.Body, Author: n.Author, CreatedAt: n.CreatedAt, Revisions: []noteRevisionJSON{}}
	for _, r := range n.Revisions {
		nj.Revisions = append(nj.Revisions, noteRevisionJSON{Text: r.Body, Author: r.Author, WrittenAt: r.WrittenAt,
			EditedBy: r.EditedBy, EditedAt: r.EditedAt})
	}
	return nj
}

// incidentListJSON is an incident in the API's list.
type incidentListJSON struct {
	ID        int64     `json:"id"`
	Title     string    `json:"title"`
	Severity  string    `json:"severity"`
	Status    string    `json:"status"`
	Owner     string    `json:"owner"`
	CreatedBy string    `json:"created_by"`
	CreatedAt time.Time `json:"created_at"`
	Launches  []string  `json:"launches"`
	URL       string    `json:"url"`
}
