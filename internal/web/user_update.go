package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/decode"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// userUpdate answers POST /admin/users/{id} with action role (and role),
// disable, enable or password (and password). Admins cannot lock
// themselves out: they may not disable or demote their own account.
func (h *handler) userUpdate(c echo.Context) error {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return decode.BadRequest("no such user")
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
		return decode.BadRequest("action must be role, disable, enable or password")
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
