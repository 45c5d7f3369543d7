package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/store"
)

// logout answers POST /logout: the session ends and its cookie goes.
func (h *handler) logout(c echo.Context) error {
	p := principalOf(c)
	if p.session != nil {
		if err := h.store.DeleteSession(c.Request().Context(), p.session); err != nil {
			return err
		}
		if err := h.store.Audit(c.Request().Context(), store.AuditEvent{Actor: p.name, Action: "auth.sign_out", Subject: "user:" + p.name}); err != nil {
			return err
		}
	}
	c.SetCookie(&http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: h.overTLS(c)})
	return c.Redirect(http.StatusSeeOther, "/login")
}
