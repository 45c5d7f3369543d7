package web

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// setupShow answers GET /setup?token=…, the one-time link the server
// prints at its first start: the form that creates the first admin, or
// 410 when the link is used or expired.
func (h *handler) setupShow(c echo.Context) error {
	token := c.QueryParam("token")
	ok, err := h.setupLinkValid(c, token)
	if err != nil {
		return err
	}
	if !ok {
		return render(c, http.StatusGone, views.Setup(views.SetupProps{Gone: true}))
	}
	return render(c, http.StatusOK, views.Setup(views.SetupProps{Token: token}))
}

func (h *handler) setupLinkValid(c echo.Context, token string) (bool, error) {
	if !auth.LooksLikeSecret(token) {
		return false, nil
	}
	return h.store.SetupLinkValid(c.Request().Context(), auth.HashSecret(token), h.now())
}

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

// checkUserName returns why name cannot name a user, "" when it can.
func checkUserName(name string) string {
	switch {
	case name == "":
		return "a name is needed"
	case utf8.RuneCountInString(name) > 80:
		return "a name has at most 80 characters"
	case strings.HasPrefix(name, "token:"):
		return `"token:" starts the names of API tokens in the audit log`
	case strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return "a name cannot hold control characters"
	}
	return ""
}
