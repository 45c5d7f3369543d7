package web

import (
	"github.com/labstack/echo/v4"

	"launchwatch/internal/views"
)

// alarmContext answers GET /launches/{key}/alarms/{no}/context with the
// alarm's context lines, the rows its card loads when its context is
// opened (the launch page does not carry them: a page may hold many
// cards). Their permalinks are absolute.
func (h *handler) alarmContext(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	no, err := alarmNo(c)
	if err != nil {
		return err
	}
	p, err := h.alarmCard(c, key, no)
	if err != nil {
		return err
	}
	return render(c, 200, views.AlarmContext(p))
}
