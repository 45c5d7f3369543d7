package web

import (
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/decode"
	"launchwatch/internal/review"
	"launchwatch/internal/views"
)

// ruleNew answers GET /rules/new: the rule form, prefilled from the alarm
// it comes from (?launch=KEY&alarm=N), or as submitted with ?preview=1 (the
// Preview button without JavaScript), with the preview of what it matches.
func (h *handler) ruleNew(c echo.Context) error {
	q := c.QueryParams()
	p, d, err := h.ruleForm(c, q)
	if err != nil {
		return err
	}
	if q.Get("preview") == "1" {
		if p.Preview, err = h.rulePreviewProps(c, d); err != nil {
			return err
		}
	}
	return render(c, 200, views.RuleForm(p))
}

// ruleForm reads the rule form's fields. When they name a source alarm
// and no pattern was given yet, the form is prefilled from that alarm: its
// template, its launch's server as the scope, its dismissal reason.
func (h *handler) ruleForm(c echo.Context, v url.Values) (views.RuleFormProps, review.RuleDraft, error) {
	if err := checkText(v); err != nil {
		return views.RuleFormProps{}, review.RuleDraft{}, err
	}
	p := views.RuleFormProps{Matcher: v.Get("matcher"), Pattern: v.Get("pattern"), Scope: v.Get("scope"),
		ServerValue: v.Get("server_value"), LabelValue: v.Get("label_value"), Expiry: v.Get("expiry"),
		ExpiryDays: v.Get("expiry_days"), Reason: v.Get("reason"), Author: actorName(c), FromLaunch: v.Get("launch"),
		Override: v.Get("override") == "1", OverrideReason: v.Get("override_reason")}
	if p.FromLaunch != "" {
		no, err := strconv.Atoi(v.Get("alarm"))
		if err != nil || no < 1 || no > math.MaxInt32 {
			return p, review.RuleDraft{}, decode.BadRequest("alarm %q is not valid", v.Get("alarm"))
		}
		p.FromAlarm = no
		ctx := c.Request().Context()
		l, err := h.store.LaunchByKey(ctx, p.FromLaunch)
		if err != nil {
			return p, review.RuleDraft{}, err
		}
		a, err := h.store.Alarm(ctx, l.ID, no)
		if err != nil {
			return p, review.RuleDraft{}, err
		}
		p.Headline, p.Labels = a.Headline, sortedKV(l.Labels)
		if p.Pattern == "" && p.Matcher == "" {
			p.Matcher, p.Pattern, p.Scope, p.ServerValue = "template", a.Template, "server", l.Server
			if l.Server == "" {
				p.Scope = "all"
			}
			if a.Reason != nil {
				p.Reason = *a.Reason
			}
		}
	}
	if p.Matcher == "" {
		p.Matcher = "template"
	}
	if p.Scope == "" {
		p.Scope = "all"
	}
	if p.ExpiryDays == "" {
		p.ExpiryDays = "30"
	}
	d := review.RuleDraft{Matcher: p.Matcher, Pattern: p.Pattern, Scope: p.Scope, Reason: p.Reason, Author: p.Author,
		Expiry: p.Expiry, FromLaunchKey: p.FromLaunch, FromAlarmNo: p.FromAlarm, Override: p.Override,
		OverrideReason: p.OverrideReason, Admin: principalOf(c).level == auth.Admin}
	if n, err := strconv.Atoi(strings.TrimSpace(p.ExpiryDays)); err == nil && n != 0 {
		d.ExpiryDays = n
	} else { // 0 would mean the default to Validate, not what was typed
		d.ExpiryDays = -1 // Validate says what is wrong
	}
	switch p.Scope {
	case "server":
		d.ScopeValue = p.ServerValue
	case "label":
		d.ScopeValue = p.LabelValue
	}
	return p, d, nil
}

func (h *handler) rulePreviewProps(c echo.Context, d review.RuleDraft) (*views.RulePreviewProps, error) {
	pv, err := review.PreviewRule(c.Request().Context(), h.store, d)
	if err != nil {
		return nil, err
	}
	return previewProps(pv), nil
}

func previewProps(pv *review.Preview) *views.RulePreviewProps {
	conv := func(ms []review.Match) []views.RuleMatch {
		out := make([]views.RuleMatch, 0, len(ms))
		for _, m := range ms {
			out = append(out, views.RuleMatch{LaunchKey: m.LaunchKey, No: m.Alarm.No, Headline: m.Alarm.Headline,
				Href: "/launches/" + m.LaunchKey + "#alarm-" + strconv.Itoa(m.Alarm.No)})
		}
		return out
	}
	return &views.RulePreviewProps{Open: conv(pv.Open), Dismissed: conv(pv.Dismissed), Confirmed: conv(pv.Confirmed),
		Suppressed: conv(pv.Suppressed), Truncated: pv.Truncated}
}
