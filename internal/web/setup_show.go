package web

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
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
