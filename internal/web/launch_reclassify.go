package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/pipeline"
)

// reclassifyRequest is the body of POST /api/v1/launches/{key}/reclassify.
type reclassifyRequest struct {
	Preview bool `json:"preview"`
}

// apiLaunchReclassify answers POST /api/v1/launches/{key}/reclassify: the
// difference the current classifier, packs, taught signatures and rules
// make to the stored launch (alarms added, removed, changed; status before
// and after), applied unless "preview": true. Decisions on alarms that
// persist are kept; one that would drop a person's confirmation needs an
// admin (403).
func (h *handler) apiLaunchReclassify(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	var req reclassifyRequest
	if c.Request().ContentLength != 0 { // no body at all: apply, as {} does
		if err := decodeTextJSON(c, &req); err != nil {
			return err
		}
	}
	diff, err := h.pipe.Reclassify(c.Request().Context(), key, pipeline.ReclassifyOptions{Preview: req.Preview,
		Actor: actorName(c), MayDropConfirmed: principalOf(c).level == auth.Admin})
	var confirmed *pipeline.ConfirmedError
	if errors.As(err, &confirmed) {
		return echo.NewHTTPError(http.StatusForbidden, confirmed.Error())
	}
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, diff)
}
