package web

import (
	"net/http"
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
