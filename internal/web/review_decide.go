package web

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/review"
	"launchwatch/internal/views"
)

// reviewDecide answers POST /review/decide: one verdict (confirm or dismiss
// with a reason) for every open alarm with the fingerprint, then back to
// the queue, which offers to turn a bulk dismissal into one rule through
// the group's "suppress similar".
func (h *handler) reviewDecide(c echo.Context) error {
	if _, err := formText(c); err != nil {
		return err
	}
	fp := c.FormValue("fingerprint")
	if fp == "" || len(fp) > 200 {
		return decode.BadRequest("fingerprint is missing")
	}
	d := review.Decision{Verdict: c.FormValue("verdict"), Actor: actorName(c), Reason: c.FormValue("reason")}
	// One alarm of the group, read before the decision: a bulk dismissal
	// is offered as one rule made from it.
	first, err := h.store.OpenAlarmsWithFingerprint(c.Request().Context(), fp, 1)
	if err != nil {
		return err
	}
	n, err := review.DecideGroup(c.Request().Context(), h.store, fp, d)
	var invalid *review.InvalidError
	if errors.As(err, &invalid) {
		p, err := h.reviewPage(c)
		if err != nil {
			return err
		}
		var msgs []string
		for _, m := range invalid.Fields {
			msgs = append(msgs, m)
		}
		p.Done = "Nothing decided: " + strings.Join(msgs, "; ")
		return render(c, http.StatusUnprocessableEntity, views.Review(p))
	}
	if err != nil {
		return err
	}
	q := url.Values{"decided": {strconv.Itoa(n)}, "verdict": {d.Verdict}}
	if d.Verdict == review.Dismiss && len(first) == 1 {
		q.Set("rule_launch", first[0].LaunchKey)
		q.Set("rule_alarm", strconv.Itoa(first[0].No))
	}
	return c.Redirect(http.StatusSeeOther, "/review?"+q.Encode())
}
