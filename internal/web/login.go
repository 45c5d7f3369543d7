package web

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// Sign-in attempts: 5 failures per client address or user name, then one
// a minute.
const (
	loginBurst = 5
	loginEvery = time.Minute
)

// defaultSessionTTL is how long a session lasts unless configured.
const defaultSessionTTL = 7 * 24 * time.Hour

// loginShow answers GET /login: the sign-in form, or straight on when the
// browser is signed in already.
func (h *handler) loginShow(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	if principalOf(c).name != "" {
		return c.Redirect(http.StatusSeeOther, next)
	}
	return render(c, http.StatusOK, views.Login(views.LoginProps{Next: next, Proxy: h.cfg.Auth.ProxyHeader != ""}))
}

// loginCreate answers POST /login with name and password: a session
// cookie and a redirect to next, or the form again (401, 429 when guessing
// too fast).
func (h *handler) loginCreate(c echo.Context) error {
	name := strings.TrimSpace(c.FormValue("name"))
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

// startSession stores a new session of u and sets its cookie: HttpOnly,
// SameSite=Lax, and Secure when people reach the server over TLS.
func (h *handler) startSession(c echo.Context, u store.User, now time.Time) error {
	ttl := h.cfg.Auth.SessionTTL
	if ttl <= 0 {
		ttl = defaultSessionTTL
	}
	secret := auth.NewSecret()
	if err := h.store.CreateSession(c.Request().Context(), auth.HashSecret(secret), u.ID, now, now.Add(ttl)); err != nil {
		return err
	}
	c.SetCookie(&http.Cookie{Name: sessionCookie, Value: secret, Path: "/", Expires: now.Add(ttl),
		MaxAge: int(ttl.Seconds()), HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: h.overTLS(c)})
	return nil
}

// overTLS reports whether browsers reach the server over https: the
// request itself, or the public URL a TLS-terminating proxy serves.
func (h *handler) overTLS(c echo.Context) bool {
	return c.Request().TLS != nil || (h.cfg.PublicURL != nil && h.cfg.PublicURL.Scheme == "https")
}

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
