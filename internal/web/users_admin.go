package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// usersIndex answers GET /admin/users: every user, and the form for a new one.
func (h *handler) usersIndex(c echo.Context) error {
	return h.renderUsers(c, http.StatusOK, views.UsersProps{Role: "viewer", Message: c.QueryParam("done")})
}

func (h *handler) renderUsers(c echo.Context, status int, p views.UsersProps) error {
	users, err := h.store.Users(c.Request().Context())
	if err != nil {
		return err
	}
	for _, u := range users {
		p.Users = append(p.Users, views.UserRow{ID: u.ID, Name: u.Name, Role: u.Role, Disabled: u.Disabled,
			Proxy: u.PasswordHash == "", CreatedAt: u.CreatedAt, CreatedBy: u.CreatedBy})
	}
	return render(c, status, views.Users(p))
}

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

// userUpdate answers POST /admin/users/{id} with action role (and role),
// disable, enable or password (and password). Admins cannot lock
// themselves out: they may not disable or demote their own account.
func (h *handler) userUpdate(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return badParam("no such user")
	}
	u, err := h.store.UserByID(c.Request().Context(), id)
	if err != nil {
		return err
	}
	self := u.ID == principalOf(c).userID
	var ch store.UserChange
	fail := func(msg string) error {
		return h.renderUsers(c, http.StatusUnprocessableEntity, views.UsersProps{Role: "viewer", Message: msg})
	}
	switch c.FormValue("action") {
	case "role":
		role := c.FormValue("role")
		if _, err := auth.ParseRole(role); err != nil {
			return fail(err.Error())
		}
		if self && role != "admin" {
			return fail("you cannot take admin from yourself: ask another admin")
		}
		ch.Role = &role
	case "disable", "enable":
		if self {
			return fail("you cannot disable yourself")
		}
		d := c.FormValue("action") == "disable"
		ch.Disabled = &d
	case "password":
		pw := c.FormValue("password")
		if msg := auth.CheckPasswordRules(pw); msg != "" {
			return fail(msg)
		}
		hash, err := h.hasher.Hash(pw)
		if err != nil {
			return err
		}
		ch.PasswordHash = &hash
	default:
		return badParam("action must be role, disable, enable or password")
	}
	if _, err := h.store.UpdateUser(c.Request().Context(), id, ch, actorName(c)); err != nil {
		return err
	}
	if self && ch.PasswordHash != nil {
		// Changing one's own password ended every session, this one too.
		return c.Redirect(http.StatusSeeOther, "/login?next=/admin/users")
	}
	return c.Redirect(http.StatusSeeOther, "/admin/users?done="+url.QueryEscape("updated "+u.Name))
}
