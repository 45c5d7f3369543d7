package web

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// AuthConfig is who may sign in and how.
type AuthConfig struct {
	// SessionTTL is how long a browser session lasts; 0 means 7 days.
	SessionTTL time.Duration
	// PasswordCost is bcrypt's cost; 0 means bcrypt.DefaultCost.
	PasswordCost int
	// ProxyHeader names the header a trusted reverse proxy (oauth2-proxy,
	// Pomerium, Cloudflare Access) sets to the signed-in user's e-mail;
	// "" turns proxy sign-in off.
	ProxyHeader string
	// ProxyTrusted are the addresses the proxy connects from; the header
	// from anywhere else is ignored.
	ProxyTrusted []netip.Prefix
	// ProxyDefaultRole is the role of a user the proxy names for the first
	// time; "" means viewer.
	ProxyDefaultRole string
}

// sessionCookie holds a browser session's secret.
const sessionCookie = "lw_session"

// principal is who a request acts as.
type principal struct {
	level auth.Level
	// name is what the request's actions are attributed to: the user's
	// name, or "token:NAME" for an API token.
	name   string
	userID int64
	// tokenID is the API token's id (0 for a person): what the limit on
	// new launches counts by (launch_limit.go).
	tokenID int64
	// ambient is true when the credential is one a browser attaches by
	// itself (a session cookie, a proxy's header): then a state-changing
	// request must also carry the CSRF token.
	ambient bool
	// csrfKey identifies the principal for its CSRF token.
	csrfKey string
	session []byte // the session secret's hash, for sign-out
}

// principalKey is where the authenticated principal is kept on the echo
// context.
const principalKey = "launchwatch.principal"

func principalOf(c echo.Context) principal {
	p, _ := c.Get(principalKey).(principal)
	return p
}

// actorName is the name decisions, notes, rules and audit events made by
// this request are attributed to: the signed-in user or the token.
func actorName(c echo.Context) string { return principalOf(c).name }

// routePolicy is what a route needs.
type routePolicy struct {
	need auth.Level
	// form marks browser form routes, whose CSRF token may come in the
	// form body (checked once the form is read, by checkCSRFForm).
	form bool
	// nobody marks public routes that never care who asks (static files,
	// health probes): no credential is looked up for them.
	nobody bool
}

// errUnauthenticated and errForbidden are answered by handleError as 401
// (with WWW-Authenticate, or a redirect to sign in for a page) and 403.
var (
	errUnauthenticated = echo.NewHTTPError(http.StatusUnauthorized, "sign in or send an API token (Authorization: Bearer …)")
	errBadToken        = echo.NewHTTPError(http.StatusUnauthorized, "the API token is unknown, revoked or expired")
)

func errForbidden(need auth.Level) error {
	return echo.NewHTTPError(http.StatusForbidden, "this needs "+need.String()+" access")
}

// authenticate finds who the request acts as and refuses it when they may
// not use its route. Routes it has no policy for are not ours (404, 405):
// echo answers them after it.
func (h *handler) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		pol, ok := h.policies[c.Request().Method+" "+c.Path()]
		if !ok {
			return next(c)
		}
		r := c.Request()
		unsafe := r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions
		if unsafe {
			if err := h.checkCrossOrigin(r); err != nil {
				return err
			}
		}
		if pol.nobody {
			return next(c)
		}
		if pol.need == auth.Public {
			// Public pages still know who is signed in (the sign-in page
			// says so), but never refuse a bad credential.
			if p, err := h.boundedPrincipal(c); err == nil {
				h.setPrincipal(c, p)
			}
			return next(c)
		}
		p, err := h.boundedPrincipal(c)
		if err != nil {
			return err
		}
		if !p.level.Allows(pol.need) {
			if p.level == auth.Public {
				return errUnauthenticated
			}
			return errForbidden(pol.need)
		}
		if unsafe && p.ambient && !pol.form && !h.validCSRF(c, p, r.Header.Get("X-CSRF-Token")) {
			return errCSRF
		}
		h.setPrincipal(c, p)
		return next(c)
	}
}

// setPrincipal keeps p on the context and tells the pages who is looking.
func (h *handler) setPrincipal(c echo.Context, p principal) {
	c.Set(principalKey, p)
	v := views.Viewer{Name: p.name, Role: auth.RoleName(p.level), Session: p.session != nil}
	if p.ambient {
		v.CSRF = h.csrfToken(c, p)
	}
	r := c.Request()
	c.SetRequest(r.WithContext(views.WithViewer(r.Context(), v)))
}

// checkCrossOrigin refuses a state-changing request a browser sends from
// another origin, whatever its credentials: the standard library's check
// (Sec-Fetch-Site, then Origin against Host) and then the Origin, when a
// browser sent one, against the server's own origin. Clients that are not
// browsers send neither header and pass.
func (h *handler) checkCrossOrigin(r *http.Request) error {
	if err := h.crossOrigin.Check(r); err != nil {
		return echo.NewHTTPError(http.StatusForbidden, "cross-origin request refused")
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.hosts.allowsOrigin(origin, r.Host) {
		return echo.NewHTTPError(http.StatusForbidden, "cross-origin request refused")
	}
	return nil
}

// authLookupTimeout bounds the database lookup of a credential: on a hung
// database the request is answered 503 in time instead of waiting with it
// (ingest's own bound starts only after authentication).
const authLookupTimeout = 5 * time.Second

// boundedPrincipal is principal under authLookupTimeout; running out of
// time is the database's fault (503), not the client's.
func (h *handler) boundedPrincipal(c echo.Context) (principal, error) {
	r := c.Request()
	ctx, cancel := context.WithTimeout(r.Context(), authLookupTimeout)
	defer cancel()
	c.SetRequest(r.WithContext(ctx))
	p, err := h.principal(c)
	c.SetRequest(r)
	if err != nil && ctx.Err() == context.DeadlineExceeded && r.Context().Err() == nil {
		return p, fmt.Errorf("%w: looking up the credential: %w", store.ErrUnavailable, err)
	}
	return p, err
}

// principal authenticates a request: an API token (Bearer, or the
// password of HTTP Basic), else a trusted proxy's header, else a session
// cookie. No credential is the anonymous principal; a token that is not
// valid is an error (a shipper with a revoked token must hear so), while a
// stale or malformed cookie is ignored.
func (h *handler) principal(c echo.Context) (principal, error) {
	r := c.Request()
	if secret, ok := bearerOrBasic(r); ok {
		return h.tokenPrincipal(c, secret)
	}
	if p, ok, err := h.proxyPrincipal(c); ok || err != nil {
		return p, err
	}
	return h.sessionPrincipal(c)
}

// bearerOrBasic returns the secret of an Authorization header: a Bearer
// token, or HTTP Basic's password (its user name when the password is
// empty, as some clients send a token).
func bearerOrBasic(r *http.Request) (string, bool) {
	a := r.Header.Get("Authorization")
	if a == "" {
		return "", false
	}
	scheme, rest, _ := strings.Cut(a, " ")
	switch {
	case strings.EqualFold(scheme, "Bearer"):
		return strings.TrimSpace(rest), true
	case strings.EqualFold(scheme, "Basic"):
		user, pass, ok := r.BasicAuth()
		if !ok {
			return "", true // malformed: refused as a bad token
		}
		if pass == "" {
			pass = user
		}
		return pass, true
	}
	return "", true
}

func (h *handler) tokenPrincipal(c echo.Context, secret string) (principal, error) {
	if !auth.LooksLikeSecret(secret) {
		return principal{}, errBadToken
	}
	now := h.now()
	t, err := h.store.TokenBySecret(c.Request().Context(), auth.HashSecret(secret), now)
	if errors.Is(err, store.ErrNotFound) {
		return principal{}, errBadToken
	}
	if err != nil {
		return principal{}, err
	}
	h.touchToken(c, t.ID, now)
	level, _ := auth.ParseScope(t.Scope)
	return principal{level: level, name: "token:" + t.Name, tokenID: t.ID}, nil
}

// touchToken records a token's use at most once a minute: the list shows
// last use to people, and the ingest path should not write a row per batch.
func (h *handler) touchToken(c echo.Context, id int64, now time.Time) {
	h.touchMu.Lock()
	last, ok := h.touched[id]
	due := !ok || now.Sub(last) >= time.Minute
	if due {
		if len(h.touched) > 10_000 {
			clear(h.touched)
		}
		h.touched[id] = now
	}
	h.touchMu.Unlock()
	if due {
		if err := h.store.TouchToken(c.Request().Context(), id, now); err != nil {
			h.log.Warn("recording a token's use", "error", err.Error())
		}
	}
}

// proxyPrincipal signs in the user a trusted reverse proxy names.
func (h *handler) proxyPrincipal(c echo.Context) (principal, bool, error) {
	cfg := h.cfg.Auth
	if cfg.ProxyHeader == "" {
		return principal{}, false, nil
	}
	r := c.Request()
	email := strings.TrimSpace(r.Header.Get(cfg.ProxyHeader))
	if email == "" || !h.fromTrustedProxy(r) {
		return principal{}, false, nil
	}
	// A user's name is at most 80 characters (decisions and rules record
	// it), and one line.
	if utf8.RuneCountInString(email) > 80 || !utf8.ValidString(email) ||
		strings.ContainsFunc(email, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return principal{}, true, echo.NewHTTPError(http.StatusBadRequest, "the proxy's user header is not a name of at most 80 characters")
	}
	role := cfg.ProxyDefaultRole
	if role == "" {
		role = "viewer"
	}
	u, err := h.store.EnsureProxyUser(r.Context(), email, role)
	if err != nil {
		return principal{}, true, err
	}
	if u.Disabled {
		return principal{}, true, errForbidden(auth.Read)
	}
	level, _ := auth.ParseRole(u.Role)
	return principal{level: level, name: u.Name, userID: u.ID, ambient: true, csrfKey: "proxy:" + strings.ToLower(u.Name)}, true, nil
}

// fromTrustedProxy reports whether the connection comes from a configured
// proxy address: the peer address itself, never X-Forwarded-For, which
// anyone can send.
func (h *handler) fromTrustedProxy(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	for _, p := range h.cfg.Auth.ProxyTrusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

func (h *handler) sessionPrincipal(c echo.Context) (principal, error) {
	ck, err := c.Cookie(sessionCookie)
	if err != nil || !auth.LooksLikeSecret(ck.Value) {
		return principal{}, nil
	}
	hash := auth.HashSecret(ck.Value)
	u, err := h.store.SessionUser(c.Request().Context(), hash, h.now())
	if errors.Is(err, store.ErrNotFound) {
		return principal{}, nil
	}
	if err != nil {
		return principal{}, err
	}
	level, _ := auth.ParseRole(u.Role)
	return principal{level: level, name: u.Name, userID: u.ID, ambient: true,
		csrfKey: "session:" + hex.EncodeToString(hash), session: hash}, nil
}

// errCSRF answers a state-changing browser request without its token.
var errCSRF = echo.NewHTTPError(http.StatusForbidden, "the form's security token is missing or stale: reload the page and try again")

// csrfToken is the token of p's forms: an HMAC of who p is under the
// server's key, so it needs no storage and dies with the session.
func (h *handler) csrfToken(c echo.Context, p principal) string {
	key, err := h.csrfKey(c)
	if err != nil {
		h.log.Warn("reading the CSRF key", "error", err.Error())
		return ""
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(p.csrfKey))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (h *handler) validCSRF(c echo.Context, p principal, got string) bool {
	want := h.csrfToken(c, p)
	return want != "" && hmac.Equal([]byte(got), []byte(want))
}

// checkCSRFForm checks the CSRF token of a browser form route once its
// form is read: the csrf_token field, or htmx's X-CSRF-Token header.
func (h *handler) checkCSRFForm(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		p := principalOf(c)
		if p.ambient {
			got := c.Request().Header.Get("X-CSRF-Token")
			if got == "" {
				got = c.FormValue("csrf_token")
			}
			if !h.validCSRF(c, p, got) {
				return errCSRF
			}
		}
		return next(c)
	}
}

// csrfKey returns the server's CSRF key, shared by every web process on
// the database; read once, retried after a failure.
func (h *handler) csrfKey(c echo.Context) ([]byte, error) {
	h.keyMu.Lock()
	defer h.keyMu.Unlock()
	if h.key != nil {
		return h.key, nil
	}
	key, err := h.store.ServerSecret(c.Request().Context(), "csrf", func() []byte { return auth.HashSecret(auth.NewSecret()) })
	if err != nil {
		return nil, err
	}
	h.key = key
	return key, nil
}

// authState is the handler's mutable authentication state.
type authState struct {
	touchMu sync.Mutex
	touched map[int64]time.Time // when each token's use was last recorded

	keyMu sync.Mutex
	key   []byte // the CSRF key, once read
}

// safeNext returns where to go after signing in: a path on this server,
// never another site ("//evil", "/\evil", "https://…").
func safeNext(next string) string {
	u, err := url.Parse(next)
	if next == "" || err != nil || u.IsAbs() || u.Host != "" || !strings.HasPrefix(next, "/") ||
		strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") || strings.ContainsAny(next, "\r\n") {
		return "/"
	}
	return next
}
