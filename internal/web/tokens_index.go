package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/views"
)

// tokensIndex answers GET /admin/tokens.
func (h *handler) tokensIndex(c echo.Context) error {
	return h.renderTokens(c, http.StatusOK, views.TokensProps{Scope: "ingest", ExpiresIn: "90d"})
}
