package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/review"
)

// annotationCreate answers POST /launches/{key}/annotations with name, body
// and an optional line number: the note is stored and shown on the launch
// page and its timeline.
func (h *handler) annotationCreate(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	if _, err := formText(c); err != nil {
		return err
	}
	n := review.Note{LaunchKey: key, Author: actorName(c), Body: c.FormValue("body")}
	if s := strings.TrimSpace(c.FormValue("seq")); s != "" {
		if n.Seq, err = strconv.ParseInt(s, 10, 64); err != nil || n.Seq < 1 {
			return &echo.HTTPError{Code: http.StatusUnprocessableEntity, Message: "the line must be a line number"}
		}
	}
	id, err := review.Annotate(c.Request().Context(), h.store, n)
	var invalid *review.InvalidError
	if errors.As(err, &invalid) {
		var msgs []string
		for _, m := range invalid.Fields {
			msgs = append(msgs, m)
		}
		return &echo.HTTPError{Code: http.StatusUnprocessableEntity, Message: strings.Join(msgs, "; ")}
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/launches/"+key+"#"+review.NoteAnchor(id))
}
