package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/store"
)

// tokenRevokeForm answers POST /admin/tokens/{id}/revoke.
func (h *handler) tokenRevokeForm(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return decode.BadRequest("no such token")
	}
	if _, err := h.store.RevokeToken(c.Request().Context(), id, h.now(), actorName(c)); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return err
		}
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/admin/tokens#token-"+strconv.FormatInt(id, 10))
}
