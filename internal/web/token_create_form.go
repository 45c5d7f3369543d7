package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/views"
)

// tokenCreateForm answers POST /admin/tokens: the page again with the new
// secret shown once (not a redirect, so the secret is in no URL or history).
func (h *handler) tokenCreateForm(c echo.Context) error {
	req := tokenRequest{Name: c.FormValue("name"), Scope: c.FormValue("scope"), ExpiresIn: c.FormValue("expires_in")}
	t, secret, errs, err := h.createToken(c, req)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return h.renderTokens(c, http.StatusUnprocessableEntity, views.TokensProps{Errors: errs, Name: req.Name,
			Scope: req.Scope, ExpiresIn: req.ExpiresIn})
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return h.renderTokens(c, http.StatusCreated, views.TokensProps{NewSecret: secret, NewName: t.Name, Scope: "ingest", ExpiresIn: "90d"})
}
