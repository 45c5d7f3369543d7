package web

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/review"
	"launchwatch/internal/store"
	"launchwatch/internal/timeline"
	"launchwatch/internal/views"
)

// alarmCards makes the cards of alarms with their lines (context, by alarm
// number) and the history of decisions on each (audit).
func alarmCards(key string, alarms []store.Alarm, context map[int][]store.Line, audit []store.AuditEvent) []views.AlarmProps {
	history := map[string][]string{}
	for _, e := range audit {
		line := views.Time(&e.At) + " " + strings.TrimPrefix(e.Action, "alarm.") + " by " + e.Actor
		if r, _ := e.Detail["reason"].(string); r != "" {
			line += ": " + r
		}
		history[e.Subject] = append(history[e.Subject], line)
	}
	out := make([]views.AlarmProps, 0, len(alarms))
	for _, a := range alarms {
		ap := alarmProps(key, a, context[a.No])
		ap.History = history[review.Subject(key, a.No)]
		out = append(out, ap)
	}
	return out
}

// alarmsURL is the page of a launch's alarm cards from the from-th
// visible one on.
func alarmsURL(key string, from int, suppressed bool) string {
	q := url.Values{}
	if from > 0 {
		q.Set("from", strconv.Itoa(from))
	}
	if suppressed {
		q.Set("suppressed", "1")
	}
	u := "/launches/" + url.PathEscape(key) + "/alarms"
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// moreAlarms says how many of the launch's visible alarms cards shows
// cards for, and where the rest are.
func moreAlarms(key string, alarms []store.Alarm, cards timeline.Cards) views.MoreAlarmsProps {
	m := views.MoreAlarmsProps{Key: key, From: cards.From, Visible: cards.VisibleCount(alarms), Total: len(alarms),
		AllURL: alarmsURL(key, 0, cards.ShowSuppressed), ByNoURL: "/launches/" + url.PathEscape(key) + "/alarms"}
	m.Shown = max(0, min(cards.Limit, m.Visible-cards.From))
	if next := cards.From + cards.Limit; next < m.Visible {
		m.NextURL, m.Next = alarmsURL(key, next, cards.ShowSuppressed), min(timeline.CardsPerPage, m.Visible-next)
	}
	if cards.From > 0 {
		m.PrevURL = alarmsURL(key, max(0, cards.From-timeline.CardsPerPage), cards.ShowSuppressed)
	}
	if cards.ShowSuppressed {
		m.ByNoURL += "?suppressed=1"
	}
	return m
}

// launchAlarms answers GET /launches/{key}/alarms: the launch's alarm
// cards, a page of CardsPerPage from the from-th visible one (?from=), or
// the page that holds alarm no (?no=), the suppressed ones with
// ?suppressed=1. From htmx (the launch page's "more" link, which it
// replaces) it answers the cards and the link to the next ones alone.
func (h *handler) launchAlarms(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	from, err := decode.IntParam(q, "from", 0, 0, 1<<30)
	if err != nil {
		return err
	}
	no, err := decode.IntParam(q, "no", 0, 1, 1<<30)
	if err != nil {
		return err
	}
	cards := timeline.Cards{From: int(from), Limit: timeline.CardsPerPage, ShowSuppressed: q.Get("suppressed") == "1"}
	ctx := c.Request().Context()
	if no > 0 {
		// The page that holds alarm no: a link to #alarm-N that the
		// launch page does not show leads here (static/alarm-anchor.js).
		v, err := h.store.LaunchByKey(ctx, key)
		if err != nil {
			return err
		}
		alarms, err := h.store.AlarmMarks(ctx, v.ID)
		if err != nil {
			return err
		}
		if i := cards.IndexOf(alarms, int(no)); i >= 0 {
			cards.From = i / timeline.CardsPerPage * timeline.CardsPerPage
		} else if a := (timeline.Cards{ShowSuppressed: true}); a.IndexOf(alarms, int(no)) >= 0 {
			// A suppressed alarm: shown among the suppressed ones.
			cards.ShowSuppressed = true
			cards.From = a.IndexOf(alarms, int(no)) / timeline.CardsPerPage * timeline.CardsPerPage
		}
	}
	v, err := timeline.LoadAlarms(ctx, h.store, key, cards)
	if err != nil {
		return err
	}
	p := views.LaunchAlarmsProps{Key: key, Status: v.Launch.Status, Cards: alarmCards(key, v.Cards, v.Context, v.Audit),
		More: moreAlarms(key, v.Alarms, cards), ShowSuppressed: cards.ShowSuppressed}
	if c.Request().Header.Get("HX-Request") == "true" {
		return render(c, http.StatusOK, views.AlarmCardsMore(p))
	}
	return render(c, http.StatusOK, views.LaunchAlarms(p))
}
