package web

import (
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// setupCreate answers POST /setup: it creates the first admin, uses up the
// link and signs the admin in.
func (h *handler) setupCreate(c echo.Context) error {
	token := c.FormValue("token")
	p := views.SetupProps{Token: token, Name: strings.TrimSpace(c.FormValue("name")), Errors: map[string]string{}}
	if msg := checkUserName(p.Name); msg != "" {
		p.Errors["name"] = msg
	}
	pw := c.FormValue("password")
	if msg := auth.CheckPasswordRules(pw); msg != "" {
		p.Errors["password"] = msg
	} else if pw != c.FormValue("password2") {
		p.Errors["password"] = "the two passwords differ"
	}
	if len(p.Errors) > 0 {
		ok, err := h.setupLinkValid(c, token)
		if err != nil {
			return err
		}
		p.Gone = !ok
		return render(c, http.StatusUnprocessableEntity, views.Setup(p))
	}
	hash, err := h.hasher.Hash(pw)
	if err != nil {
		return err
	}
	now := h.now()
	var u store.User
	if auth.LooksLikeSecret(token) {
		u, err = h.store.CreateFirstAdmin(c.Request().Context(), auth.HashSecret(token), now, store.User{Name: p.Name, PasswordHash: hash})
	} else {
		err = store.ErrNotFound
	}
	if errors.Is(err, store.ErrNotFound) {
		return render(c, http.StatusGone, views.Setup(views.SetupProps{Gone: true}))
	}
	if err != nil {
		return err
	}
	if err := h.startSession(c, u, now); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/admin/tokens")
}
