package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// apiTokensList answers GET /api/v1/tokens: every token with its last use,
// never a secret.
func (h *handler) apiTokensList(c echo.Context) error {
	ts, err := h.store.Tokens(c.Request().Context())
	if err != nil {
		return err
	}
	out := make([]tokenJSON, 0, len(ts))
	for _, t := range ts {
		out = append(out, toTokenJSON(t))
	}
	return c.JSON(http.StatusOK, map[string]any{"tokens": out})
}
