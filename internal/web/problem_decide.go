package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/review"
	"launchwatch/internal/views"
)

// problemDecide answers POST /problems/{fp}/decide (verdict, reason, and
// alarm=KEY/NO for each previewed alarm): the verdict for those of them
// still open, attributed to the request's user, then back to the problem.
func (h *handler) problemDecide(c echo.Context) error {
	fp, err := problemFingerprint(c)
	if err != nil {
		return err
	}
	form, err := formText(c)
	if err != nil {
		return err
	}
	refs := form["alarm"]
	if len(refs) > review.MaxProblemDecision {
		return decode.BadRequest("at most %d alarms per decision", review.MaxProblemDecision)
	}
	previewed := make(map[string]bool, len(refs))
	for _, r := range refs {
		previewed[r] = true
	}
	d := review.Decision{Verdict: form.Get("verdict"), Reason: form.Get("reason"), Actor: actorName(c)}
	n, err := review.DecideProblem(c.Request().Context(), h.store, fp, previewed, d)
	var invalid *review.InvalidError
	if errors.As(err, &invalid) {
		p, err := h.problemPage(c, fp)
		if err != nil {
			return err
		}
		p.Verdict, p.Reason, p.Errors = d.Verdict, d.Reason, invalid.Fields
		if err := h.addPreview(c, &p, fp); err != nil {
			return err
		}
		return render(c, http.StatusUnprocessableEntity, views.Problem(p))
	}
	if err != nil {
		return err
	}
	q := url.Values{"decided": {strconv.Itoa(n)}, "verdict": {d.Verdict}}
	return c.Redirect(http.StatusSeeOther, problemHref(fp)+"?"+q.Encode())
}
