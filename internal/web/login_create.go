package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// loginCreate answers POST /login with name and password: a session
// cookie and a redirect to next, or the form again (401, 429 when guessing
// too fast).
func (h *handler) loginCreate(c echo.Context) error {
	name := strings.TrimSpace(c.FormValue("name"))
	if utf8.RuneCountInString(name) > 80 {
		// No user has a longer name; the audit log keeps what fits.
		name = string([]rune(name)[:80])
	}
	pw := c.FormValue("password")
	next := safeNext(c.FormValue("next"))
	now := h.now()
	ctx := c.Request().Context()
	keys := []string{"ip:" + c.RealIP(), "user:" + strings.ToLower(name)}
	for _, k := range keys {
		if wait := h.logins.Wait(k, now); wait > 0 {
			c.Response().Header().Set(echo.HeaderRetryAfter, strconv.Itoa(int(wait.Seconds())+1))
			return render(c, http.StatusTooManyRequests, views.Login(views.LoginProps{Name: name, Next: next,
				Error: "Too many failed sign-ins: try again in " + wait.Round(time.Second).String() + "."}))
		}
	}
	u, err := h.store.UserByName(ctx, name)
	switch {
	case errors.Is(err, store.ErrNotFound) || (err == nil && u.PasswordHash == ""):
		err = h.hasher.CheckNobody(pw)
	case err != nil:
		return err
	default:
		err = h.hasher.Check(u.PasswordHash, pw)
	}
	if err == nil && u.Disabled {
		err = auth.ErrWrongPassword
	}
	if err != nil {
		for _, k := range keys {
			h.logins.Fail(k, now)
		}
		if aerr := h.store.Audit(ctx, store.AuditEvent{Actor: name, Action: "auth.sign_in_failed", Subject: "user:" + name,
			Detail: map[string]any{"from": c.RealIP()}}); aerr != nil {
			return aerr
		}
		return render(c, http.StatusUnauthorized, views.Login(views.LoginProps{Name: name, Next: next,
			Error: "Wrong name or password."}))
	}
	for _, k := range keys {
		h.logins.Succeed(k)
	}
	if err := h.startSession(c, u, now); err != nil {
		return err
	}
	if err := h.store.Audit(ctx, store.AuditEvent{Actor: u.Name, Action: "auth.sign_in", Subject: "user:" + u.Name,
		Detail: map[string]any{"from": c.RealIP()}}); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, next)
}
