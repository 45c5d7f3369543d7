package web

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// userCreate answers POST /admin/users with name, role and password.
func (h *handler) userCreate(c echo.Context) error {
	p := views.UsersProps{Name: strings.TrimSpace(c.FormValue("name")), Role: c.FormValue("role"), Errors: map[string]string{}}
	if msg := checkUserName(p.Name); msg != "" {
		p.Errors["name"] = msg
	}
	if _, err := auth.ParseRole(p.Role); err != nil {
		p.Errors["role"] = err.Error()
	}
	pw := c.FormValue("password")
	if msg := auth.CheckPasswordRules(pw); msg != "" {
		p.Errors["password"] = msg
	}
	if len(p.Errors) > 0 {
		return h.renderUsers(c, http.StatusUnprocessableEntity, p)
	}
	hash, err := h.hasher.Hash(pw)
	if err != nil {
		return err
	}
	_, err = h.store.CreateUser(c.Request().Context(), store.User{Name: p.Name, Role: p.Role, PasswordHash: hash}, actorName(c))
	if errors.Is(err, store.ErrExists) {
		p.Errors["name"] = "a user with this name exists"
		return h.renderUsers(c, http.StatusUnprocessableEntity, p)
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/admin/users?done="+url.QueryEscape("created "+p.Name))
}
