package web

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/review"
	"launchwatch/internal/store"
	"launchwatch/internal/timeline"
	"launchwatch/internal/views"
)

// alarmDecide answers POST /launches/{key}/alarms/{no}/decide with the form
// fields verdict (confirm or dismiss) and reason, attributed to the
// signed-in user. From htmx it answers
// the alarm's card, and out of band the launch's status, facts and
// timeline, to swap in place;
// a plain form post is redirected back to the alarm. An invalid decision
// re-renders the card or the page with the messages and 422.
func (h *handler) alarmDecide(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	no, err := alarmNo(c)
	if err != nil {
		return err
	}
	if _, err := formText(c); err != nil {
		return err
	}
	d := review.Decision{LaunchKey: key, AlarmNo: no, Verdict: c.FormValue("verdict"),
		Actor: actorName(c), Reason: c.FormValue("reason"), MayHideConfirmed: principalOf(c).level == auth.Admin}
	htmx := c.Request().Header.Get("HX-Request") == "true"
	_, err = review.Decide(c.Request().Context(), h.store, d)
	var invalid *review.InvalidError
	switch {
	case errors.As(err, &invalid):
		return h.renderInvalidDecision(c, d, invalid, htmx)
	case err != nil:
		return err
	}
	if !htmx {
		return c.Redirect(http.StatusSeeOther, "/launches/"+key+"#alarm-"+strconv.Itoa(no))
	}
	// The timeline swapped in keeps the page's zoom.
	p, err := h.launchPage(c, key, logQuery{filter: store.LineFilter{Limit: 1}, zoom: pageZoom(c)}, timeline.Cards{Also: no})
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.DecisionAnswer(p, no))
}

// alarmCard reads one alarm's card.
func (h *handler) alarmCard(c echo.Context, key string, no int) (views.AlarmProps, error) {
	card, err := timeline.LoadAlarmCard(c.Request().Context(), h.store, key, no)
	if err != nil {
		return views.AlarmProps{}, err
	}
	return alarmProps(key, card.Alarm, card.Lines), nil
}

// renderInvalidDecision shows the decision form again, as typed, with what
// is wrong: the card for htmx, the whole page for a plain form post.
func (h *handler) renderInvalidDecision(c echo.Context, d review.Decision, invalid *review.InvalidError, htmx bool) error {
	fill := func(a *views.AlarmProps) {
		a.ReasonDraft, a.Errors = d.Reason, invalid.Fields
	}
	if htmx {
		card, err := h.alarmCard(c, d.LaunchKey, d.AlarmNo)
		if err != nil {
			return err
		}
		fill(&card)
		return render(c, http.StatusUnprocessableEntity, views.AlarmCard(card))
	}
	p, err := h.launchPage(c, d.LaunchKey, logQuery{filter: store.LineFilter{Limit: logWindow}},
		timeline.Cards{Limit: timeline.CardsInline, Also: d.AlarmNo})
	if err != nil {
		return err
	}
	for i := range p.Cards {
		if p.Cards[i].No == d.AlarmNo {
			fill(&p.Cards[i])
		}
	}
	return render(c, http.StatusUnprocessableEntity, views.Launch(p))
}
