package web

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/review"
	"launchwatch/internal/views"
)

// signaturesIndex answers GET /signatures: every taught signature with its
// hits, the launches it affected, its author and history
// (review.LoadSignatures).
func (h *handler) signaturesIndex(c echo.Context) error {
	v, err := review.LoadSignatures(c.Request().Context(), h.store)
	if err != nil {
		return err
	}
	var p views.SignaturesProps
	for _, s := range v.Signatures {
		row := views.SignatureRow{ID: s.ID, Meaning: s.Meaning, Matcher: s.Matcher, Pattern: s.Pattern, Scope: s.Scope,
			Author: s.Author, Reason: s.Reason, Created: s.CreatedAt, State: "enabled", Hits: s.Hits, Launches: s.Launches,
			LastHit: s.LastHitAt}
		switch {
		case s.Phase != "":
			row.Meaning += " " + s.Phase
		case s.Kind != "":
			row.Meaning += " (" + s.Kind + ")"
		}
		if s.Scope != "all" {
			row.Scope = s.Scope + " " + s.ScopeValue
		}
		if !s.Enabled {
			row.State = "disabled"
		}
		if s.FromKey != "" {
			row.FromHref = "/launches/" + url.PathEscape(s.FromKey) + windowHref(*s.FromSeq)
		}
		for _, k := range s.Affected {
			row.Affected = append(row.Affected, views.KV{K: k, V: "/launches/" + url.PathEscape(k)})
		}
		for _, e := range s.History {
			line := views.Time(&e.At) + " " + strings.TrimPrefix(e.Action, "signature.") + " by " + e.Actor
			switch {
			case e.Action == "signature.apply":
				if ls, _ := e.Detail["launches"].([]any); ls != nil {
					line += ": " + strconv.Itoa(len(ls)) + " stored launch(es) reclassified"
				}
			case e.Detail["reason"] != nil && e.Action != "signature.create":
				line += ": " + e.Detail["reason"].(string)
			}
			if after, _ := e.Detail["after"].(map[string]any); after != nil {
				if r, _ := after["reason"].(string); r != "" {
					line += ": " + r
				}
			}
			row.History = append(row.History, line)
		}
		p.Rows = append(p.Rows, row)
	}
	return render(c, 200, views.Signatures(p))
}
