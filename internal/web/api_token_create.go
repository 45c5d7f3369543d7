package web

import (
	"fmt"
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

// tokenRequest is a new API token, from the admin page or POST /api/v1/tokens.
type tokenRequest struct {
	Name      string `json:"name"`
	Scope     string `json:"scope"`
	ExpiresIn string `json:"expires_in"` // "90d", "12h"; "" or "never": no expiry
}

// tokenJSON is a token in the API; Token is set only in the answer that
// creates it.
type tokenJSON struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Scope      string     `json:"scope"`
	Token      string     `json:"token,omitempty"`
	CreatedBy  string     `json:"created_by"`
	CreatedAt  time.Time  `json:"created_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

func toTokenJSON(t store.Token) tokenJSON {
	return tokenJSON{ID: t.ID, Name: t.Name, Scope: t.Scope, CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt,
		ExpiresAt: t.ExpiresAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt}
}

// maxTokenLife bounds expires_in, so a typo does not make a token for ever.
const maxTokenLife = 10 * 365 * 24 * time.Hour

// parseExpiresIn reads "90d", "36h", "45m"; "" and "never" mean no expiry.
func parseExpiresIn(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "never" {
		return 0, nil
	}
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return 0, fmt.Errorf("expires_in: %q is not a number of days", s)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("expires_in: %q is not a duration like 90d or 12h", s)
		}
	}
	if d <= 0 || d > maxTokenLife {
		return 0, fmt.Errorf("expires_in: %q must be positive and at most 3650d", s)
	}
	return d, nil
}

// createToken validates and stores a new token; the field errors say what
// is wrong with the request.
func (h *handler) createToken(c echo.Context, req tokenRequest) (store.Token, string, map[string]string, error) {
	errs := map[string]string{}
	req.Name = strings.TrimSpace(req.Name)
	if req.Name == "" || utf8.RuneCountInString(req.Name) > 72 || strings.ContainsFunc(req.Name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		errs["name"] = "a name of 1–72 printable characters is needed"
	}
	if _, err := auth.ParseScope(req.Scope); err != nil {
		errs["scope"] = err.Error()
	}
	life, err := parseExpiresIn(req.ExpiresIn)
	if err != nil {
		errs["expires_in"] = err.Error()
	}
	if len(errs) > 0 {
		return store.Token{}, "", errs, nil
	}
	now := h.now()
	t := store.Token{Name: req.Name, Scope: req.Scope, CreatedBy: actorName(c), CreatedAt: now}
	if life > 0 {
		exp := now.Add(life)
		t.ExpiresAt = &exp
	}
	secret := auth.NewSecret()
	t, err = h.store.CreateToken(c.Request().Context(), t, auth.HashSecret(secret))
	return t, secret, nil, err
}

// apiTokenCreate answers POST /api/v1/tokens: 201 with the secret in
// "token", shown this once; 422 with the reasons.
func (h *handler) apiTokenCreate(c echo.Context) error {
	var req tokenRequest
	if err := decodeTextJSON(c, &req); err != nil {
		return err
	}
	t, secret, errs, err := h.createToken(c, req)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return c.JSON(http.StatusUnprocessableEntity, fieldErrorsBody(errs))
	}
	out := toTokenJSON(t)
	out.Token = secret
	return c.JSON(http.StatusCreated, out)
}

func (h *handler) renderTokens(c echo.Context, status int, p views.TokensProps) error {
	ts, err := h.store.Tokens(c.Request().Context())
	if err != nil {
		return err
	}
	for _, t := range ts {
		p.Tokens = append(p.Tokens, views.TokenRow{ID: t.ID, Name: t.Name, Scope: t.Scope, CreatedBy: t.CreatedBy,
			CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, LastUsedAt: t.LastUsedAt, RevokedAt: t.RevokedAt, Bootstrap: t.Bootstrap})
	}
	p.ServerURL = h.serverURL(c)
	return render(c, status, views.Tokens(p))
}
