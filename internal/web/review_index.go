package web

import (
	"net/url"
	"strconv"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/launchid"
	"launchwatch/internal/views"
)

const (
	reviewGroups   = 100 // groups on the page
	reviewExamples = 5   // alarms listed per group
)

// reviewIndex answers GET /review: the open alarms across launches grouped
// by fingerprint, each group with a few of its alarms and a bulk decision.
func (h *handler) reviewIndex(c echo.Context) error {
	p, err := h.reviewPage(c)
	if err != nil {
		return err
	}
	if n, err := strconv.Atoi(c.QueryParam("decided")); err == nil && n > 0 {
		switch v := c.QueryParam("verdict"); v {
		case "confirm", "dismiss":
			p.Done = strconv.Itoa(n) + " alarms " + v + "ed."
		}
		key, no := c.QueryParam("rule_launch"), c.QueryParam("rule_alarm")
		if n, err := strconv.Atoi(no); err == nil && n > 0 && launchid.KeyPattern.MatchString(key) {
			p.RuleHref = "/rules/new?launch=" + url.QueryEscape(key) + "&alarm=" + no
		}
	}
	return render(c, 200, views.Review(p))
}

func (h *handler) reviewPage(c echo.Context) (views.ReviewProps, error) {
	ctx := c.Request().Context()
	groups, err := h.store.OpenAlarmGroups(ctx, reviewGroups)
	if err != nil {
		return views.ReviewProps{}, err
	}
	p := views.ReviewProps{}
	for _, g := range groups {
		refs, err := h.store.OpenAlarmsWithFingerprint(ctx, g.Fingerprint, reviewExamples)
		if err != nil {
			return p, err
		}
		rg := views.ReviewGroup{Fingerprint: g.Fingerprint, Kind: g.Kind, Headline: g.Headline, Template: g.Template,
			Fatal: g.Fatal, Alarms: g.Alarms, Launches: g.Launches}
		for _, r := range refs {
			rg.Examples = append(rg.Examples, views.RuleMatch{LaunchKey: r.LaunchKey, No: r.No,
				Href: "/launches/" + r.LaunchKey + "#alarm-" + strconv.Itoa(r.No)})
		}
		if len(refs) > 0 {
			rg.RuleHref = "/rules/new?launch=" + url.QueryEscape(refs[0].LaunchKey) + "&alarm=" + strconv.Itoa(refs[0].No)
		}
		p.Groups = append(p.Groups, rg)
	}
	return p, nil
}
