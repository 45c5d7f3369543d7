package web

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/review"
)

// decisionRequest is the body of POST /api/v1/launches/{key}/alarms/{no}/decision.
type decisionRequest struct {
	Verdict string `json:"verdict"` // confirm or dismiss
	Reason  string `json:"reason"`  // required to dismiss
}

// apiDecision answers POST /api/v1/launches/{key}/alarms/{no}/decision:
// the decision attributed to the token or user, and the launch's new
// status; 422 with the reasons, 403 when only an admin may make it.
func (h *handler) apiDecision(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	no, err := alarmNo(c)
	if err != nil {
		return err
	}
	var req decisionRequest
	if err := decodeTextJSON(c, &req); err != nil {
		return err
	}
	d := review.Decision{LaunchKey: key, AlarmNo: no, Verdict: req.Verdict, Actor: actorName(c), Reason: req.Reason,
		MayHideConfirmed: principalOf(c).level == auth.Admin}
	st, err := review.Decide(c.Request().Context(), h.store, d)
	if err != nil {
		return reviewError(c, err)
	}
	state := "confirmed"
	if d.Verdict == review.Dismiss {
		state = "dismissed"
	}
	return c.JSON(http.StatusOK, map[string]any{"launch": key, "alarm": no, "state": state,
		"decided_by": d.Actor, "status": st})
}

// reviewError answers the review package's refusals in the API: 422 with
// the reasons per field, 403 for what needs another role.
func reviewError(c echo.Context, err error) error {
	var invalid *review.InvalidError
	var forbidden *review.ForbiddenError
	switch {
	case errors.As(err, &invalid):
		return c.JSON(http.StatusUnprocessableEntity, fieldErrorsBody(invalid.Fields))
	case errors.As(err, &forbidden):
		return echo.NewHTTPError(http.StatusForbidden, forbidden.Reason)
	}
	return err
}
