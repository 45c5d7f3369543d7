package web

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"
)

// pinJSON is the answer of the pin and unpin routes.
type pinJSON struct {
	Launch string `json:"launch"`
	Pinned bool   `json:"pinned"`
}

// launchPinAPI answers POST /api/v1/launches/{key}/pin and …/unpin
// (review): a pinned launch is kept by retention whatever its age. Pinning
// a pinned launch is no change (and no audit event); 404 for an unknown
// launch.
func (h *handler) launchPinAPI(pinned bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		key, err := launchKey(c)
		if err != nil {
			return err
		}
		if _, err := h.store.SetLaunchPin(c.Request().Context(), key, pinned, actorName(c)); err != nil {
			return err
		}
		return c.JSON(http.StatusOK, pinJSON{Launch: key, Pinned: pinned})
	}
}

// launchPinForm answers the launch page's pin toggle, POST
// /launches/{key}/pin with pinned=true or false (review).
func (h *handler) launchPinForm(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	var pinned bool
	switch c.FormValue("pinned") {
	case "true":
		pinned = true
	case "false":
	default:
		return &echo.HTTPError{Code: http.StatusUnprocessableEntity, Message: `pinned must be "true" or "false"`}
	}
	if _, err := h.store.SetLaunchPin(c.Request().Context(), key, pinned, actorName(c)); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/launches/"+url.PathEscape(key))
}
