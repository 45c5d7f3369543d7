package web

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/decode"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// qualityIndex answers GET /quality?weeks=N (1–52, default 8): the
// classifier's precision from people's decisions, overall and by kind,
// server and signature, week by week, and every rule's hits.
func (h *handler) qualityIndex(c echo.Context) error {
	weeks, err := decode.IntParam(c.QueryParams(), "weeks", 8, 1, 52)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	now := h.pipe.Clock().Now()
	rep, err := h.store.Quality(ctx, now, int(weeks))
	if err != nil {
		return err
	}
	rules, err := h.store.RulesWithHits(ctx)
	if err != nil {
		return err
	}
	p := views.QualityProps{Weeks: rep.Weeks, Overall: qualityRow(rep.Overall, "")}
	for _, t := range rep.Tables {
		vt := views.QualityTable{Dim: t.Dim, Truncated: t.Truncated}
		for _, r := range t.Rows {
			href := ""
			if t.Dim == "signature" {
				href = "/problems/" + url.PathEscape(r.Key)
			}
			vt.Rows = append(vt.Rows, qualityRow(r, href))
		}
		p.Tables = append(p.Tables, vt)
	}
	for _, r := range rules {
		state := "enabled"
		switch {
		case !r.Enabled:
			state = "disabled"
		case !r.InForce(now):
			state = "expired"
		}
		scope := r.Scope
		if r.Scope != "all" {
			scope += " " + r.ScopeValue
		}
		p.Rules = append(p.Rules, views.QualityRule{ID: r.ID, Matcher: r.Matcher, Pattern: r.Pattern, Scope: scope,
			Author: r.Author, State: state, Hits: r.Hits, LastHit: r.LastHitAt, Suppressed: r.Suppressed,
			SuppressedFatal: r.SuppressedFatal, Stale: r.Stale})
	}
	return render(c, http.StatusOK, views.Quality(p))
}

func qualityRow(r store.QualityRow, href string) views.QualityRow {
	cell := func(c store.QualityCell) views.QualityCell {
		return views.QualityCell{Confirmed: c.Confirmed, Dismissed: c.Dismissed, Suppressed: c.Suppressed}
	}
	out := views.QualityRow{Key: r.Key, Label: r.Label, Href: href, Total: cell(r.Total)}
	for _, w := range r.Weeks {
		out.Weeks = append(out.Weeks, cell(w))
	}
	return out
}
