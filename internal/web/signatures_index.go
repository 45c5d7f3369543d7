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
// hits, the launches it affected, its author and history.
func (h *handler) signaturesIndex(c echo.Context) error {
	ctx := c.Request().Context()
	sigs, err := h.store.Signatures(ctx)
	if err != nil {
		return err
	}
	var p views.SignaturesProps
	for _, s := range sigs {
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
		if s.FromLaunchID != nil && s.FromSeq != nil {
			if l, err := h.store.LaunchByID(ctx, *s.FromLaunchID); err == nil {
				row.FromHref = "/launches/" + url.PathEscape(l.Key) + windowHref(*s.FromSeq)
			}
		}
		keys, err := h.store.SignatureLaunches(ctx, s.ID, 20)
		if err != nil {
			return err
		}
		for _, k := range keys {
			row.Affected = append(row.Affected, views.KV{K: k, V: "/launches/" + url.PathEscape(k)})
		}
		audit, err := h.store.AuditFor(ctx, review.SignatureSubject(s.ID))
		if err != nil {
			return err
		}
		for _, e := range audit {
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
