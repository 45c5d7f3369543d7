package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

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
