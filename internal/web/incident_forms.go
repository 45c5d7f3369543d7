package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/incident"
)

// The incident page's forms. Each changes the incident and goes back to
// its page (303); an invalid form is a 422 page that says what is wrong,
// and a missing incident, note or item a 404.

// incidentUpdate answers POST /incidents/{id}: the fields the form holds
// (status, title, severity, owner, summary, root_cause, resolution) are
// set; fields it does not hold stay.
func (h *handler) incidentUpdate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	field := func(name string) *string {
		if vs, ok := form[name]; ok && len(vs) > 0 {
			return &vs[0]
		}
		return nil
	}
	ch := incident.Change{Title: field("title"), Severity: field("severity"), Status: field("status"),
		Owner: field("owner"), Summary: field("summary"), RootCause: field("root_cause"), Resolution: field("resolution")}
	if err := incident.Apply(c.Request().Context(), h.store, id, ch, incidentActor(c)); err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id))
}

// incidentLaunches answers POST /incidents/{id}/launches with add=KEY
// and/or remove=KEY (each may repeat).
func (h *handler) incidentLaunches(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	ch := incident.Change{AddLaunches: form["add"], RemoveLaunches: form["remove"]}
	if err := incident.Apply(c.Request().Context(), h.store, id, ch, incidentActor(c)); err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id))
}

// incidentNoteCreate answers POST /incidents/{id}/notes with text.
func (h *handler) incidentNoteCreate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	noteID, err := incident.AddNote(c.Request().Context(), h.store, id, form.Get("text"), incidentActor(c))
	if err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id)+"#inote-"+strconv.FormatInt(noteID, 10))
}

// incidentNoteEdit answers POST /incidents/{id}/notes/{note} with text:
// the note gets the new text and keeps the old one in its history.
func (h *handler) incidentNoteEdit(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	noteID, err := pathID(c, "note")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	if err := incident.EditNote(c.Request().Context(), h.store, id, noteID, form.Get("text"), incidentActor(c)); err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id)+"#inote-"+strconv.FormatInt(noteID, 10))
}

// incidentActionCreate answers POST /incidents/{id}/actions with text.
func (h *handler) incidentActionCreate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	if _, err := incident.AddAction(c.Request().Context(), h.store, id, form.Get("text"), incidentActor(c)); err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id)+"#action-items")
}

// incidentActionUpdate answers POST /incidents/{id}/actions/{item} with
// done=true|false (tick or untick), text (new text) or delete=1.
func (h *handler) incidentActionUpdate(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	itemID, err := pathID(c, "item")
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	ch := incident.ActionChange{Delete: form.Get("delete") != ""}
	if vs, ok := form["text"]; ok && len(vs) > 0 {
		ch.Text = &vs[0]
	}
	if s := form.Get("done"); s != "" {
		done, err := strconv.ParseBool(s)
		if err != nil {
			return &echo.HTTPError{Code: http.StatusUnprocessableEntity, Message: "done must be true or false"}
		}
		ch.Done = &done
	}
	if err := incident.UpdateAction(c.Request().Context(), h.store, id, itemID, ch, incidentActor(c)); err != nil {
		return incidentInput(err, http.StatusUnprocessableEntity)
	}
	return c.Redirect(http.StatusSeeOther, incident.Path(id)+"#action-items")
}
