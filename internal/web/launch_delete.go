package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// launchDeleteAPI answers DELETE /api/v1/launches/{key} (admin): the launch
// and everything of it are removed, the deletion audited; 204, or 404 for a
// launch that does not exist.
func (h *handler) launchDeleteAPI(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	if _, err := h.store.DeleteLaunch(c.Request().Context(), key, actorName(c)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// launchDeleteForm answers the launch page's delete form, POST
// /launches/{key}/delete (admin). The form asks the admin to type the
// launch's key, so a stray click deletes nothing: a mismatch is a 422 and
// the launch stays.
func (h *handler) launchDeleteForm(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	if c.FormValue("confirm") != key {
		return &echo.HTTPError{Code: http.StatusUnprocessableEntity,
			Message: "to delete launch " + key + ", type its key in the confirmation field; nothing was deleted"}
	}
	if _, err := h.store.DeleteLaunch(c.Request().Context(), key, actorName(c)); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/")
}
