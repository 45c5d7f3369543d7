package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/review"
	"launchwatch/internal/views"
)

// problemShow answers GET /problems/{fp}: the problem's launches and
// headlines, and its decision form; with verdict= and reason= (the
// form's Preview) it lists the open alarms the decision would decide.
func (h *handler) problemShow(c echo.Context) error {
	fp, err := problemFingerprint(c)
	if err != nil {
		return err
	}
	p, err := h.problemPage(c, fp)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	if k, err := strconv.Atoi(q.Get("decided")); err == nil && k >= 0 {
		if v := q.Get("verdict"); v == review.Confirm || v == review.Dismiss {
			p.Done = strconv.Itoa(k) + " alarm(s) " + v + "ed."
		}
	}
	if q.Get("preview") == "" {
		return render(c, http.StatusOK, views.Problem(p))
	}
	// Validate what the preview can know; the name is the request's own.
	d := review.Decision{Verdict: q.Get("verdict"), Reason: q.Get("reason"), Actor: "preview"}
	p.Verdict, p.Reason = d.Verdict, d.Reason
	var invalid *review.InvalidError
	if err := d.Validate(); errors.As(err, &invalid) {
		p.Errors = invalid.Fields
		return render(c, http.StatusUnprocessableEntity, views.Problem(p))
	}
	if err := h.addPreview(c, &p, fp); err != nil {
		return err
	}
	return render(c, http.StatusOK, views.Problem(p))
}
