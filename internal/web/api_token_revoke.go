package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
)

// apiTokenRevoke answers DELETE /api/v1/tokens/{id}: the token stops
// working at once (204).
func (h *handler) apiTokenRevoke(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return decode.BadRequest("no such token")
	}
	if _, err := h.store.RevokeToken(c.Request().Context(), id, h.now(), actorName(c)); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}
