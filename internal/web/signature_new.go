package web

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/classify"
	"launchwatch/internal/decode"
	"launchwatch/internal/review"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// signatureNew answers GET /signatures/new: the teach form, prefilled from
// the line it comes from (?launch=KEY&seq=N, and ?meaning= when a
// suggestion says which), or as submitted with ?preview=1 (the Preview
// button without JavaScript), with the backtest.
func (h *handler) signatureNew(c echo.Context) error {
	q := c.QueryParams()
	p, d, err := h.signatureForm(c, q)
	if err != nil {
		return err
	}
	if q.Get("preview") == "1" {
		if p.Preview, p.Errors, err = h.signaturePreviewProps(c, d); err != nil {
			return err
		}
	}
	return render(c, 200, views.SignatureForm(p))
}

// signatureForm reads the teach form's fields. When they name a line and
// no pattern was given yet, the form is prefilled from it: its template
// (numbers, hex, paths masked, as rules do), a meaning from how it was
// classified (or ?meaning=), and its launch's server as the scope.
func (h *handler) signatureForm(c echo.Context, v url.Values) (views.SignatureFormProps, review.SignatureDraft, error) {
	if err := checkText(v); err != nil {
		return views.SignatureFormProps{}, review.SignatureDraft{}, err
	}
	p := views.SignatureFormProps{Meaning: v.Get("meaning"), Phase: v.Get("phase"), Kind: v.Get("kind"),
		Matcher: v.Get("matcher"), Pattern: v.Get("pattern"), Scope: v.Get("scope"), ServerValue: v.Get("server_value"),
		LabelValue: v.Get("label_value"), Reason: v.Get("reason"), Author: actorName(c), FromLaunch: v.Get("launch"),
		Apply: v.Get("apply_to_stored") == "1"}
	if p.FromLaunch != "" {
		seq, err := strconv.ParseInt(v.Get("seq"), 10, 64)
		if err != nil || seq < 1 {
			return p, review.SignatureDraft{}, decode.BadRequest("seq %q is not a line number", v.Get("seq"))
		}
		p.FromSeq = seq
		ctx := c.Request().Context()
		l, err := h.store.LaunchByKey(ctx, p.FromLaunch)
		if err != nil {
			return p, review.SignatureDraft{}, err
		}
		lines, err := h.store.LinesBetween(ctx, l.ID, seq, seq, 1)
		if err != nil {
			return p, review.SignatureDraft{}, err
		}
		if len(lines) == 0 {
			return p, review.SignatureDraft{}, store.ErrNotFound
		}
		p.Line, p.Labels = lines[0].Text, sortedKV(l.Labels)
		if p.Pattern == "" && p.Matcher == "" {
			body := strings.TrimSpace(classify.ParsePrefix(lines[0].Text, 0).Body)
			p.Matcher, p.Pattern = classify.MatchTemplate, classify.Template(body)
			p.Scope, p.ServerValue = "server", l.Server
			if l.Server == "" {
				p.Scope = "all"
			}
			if p.Meaning == "" {
				p.Meaning = meaningOf(lines[0])
			}
		}
	}
	if p.Matcher == "" {
		p.Matcher = classify.MatchTemplate
	}
	if p.Scope == "" {
		p.Scope = "server"
	}
	if p.Meaning == "" {
		p.Meaning = classify.MeaningReady
	}
	d := review.SignatureDraft{Meaning: p.Meaning, Phase: p.Phase, Kind: p.Kind, Matcher: p.Matcher, Pattern: p.Pattern,
		Scope: p.Scope, Reason: p.Reason, Author: p.Author, FromLaunchKey: p.FromLaunch, FromSeq: p.FromSeq,
		ApplyToStored: p.Apply, Admin: principalOf(c).level == auth.Admin}
	switch p.Scope {
	case "server":
		d.ScopeValue = p.ServerValue
	case "label":
		d.ScopeValue = p.LabelValue
	}
	return p, d, nil
}

// meaningOf guesses what a line is taught as from how it was classified:
// an error line is fatal, a progress line starts a phase, anything else
// is taken for readiness (the line nobody recognised).
func meaningOf(l store.Line) string {
	switch l.Kind {
	case "error":
		return classify.MeaningFatal
	case "progress":
		return classify.MeaningPhase
	}
	return classify.MeaningReady
}

// signaturePreviewProps backtests the draft; an invalid draft gives its
// errors instead of a preview.
func (h *handler) signaturePreviewProps(c echo.Context, d review.SignatureDraft) (*views.SignaturePreviewProps, map[string]string, error) {
	if d.Reason == "" {
		d.Reason = "a preview" // asked for before saving; the save asks for the reason
	}
	if err := d.Validate(); err != nil {
		var invalid *review.InvalidError
		if errors.As(err, &invalid) {
			return nil, invalid.Fields, nil
		}
		return nil, nil, err
	}
	pv, err := review.PreviewSignature(c.Request().Context(), h.pipe, d, h.backtestOptions())
	if err != nil {
		return nil, nil, err
	}
	return signaturePreviewView(pv), nil, nil
}

func signaturePreviewView(pv *review.SignaturePreview) *views.SignaturePreviewProps {
	out := &views.SignaturePreviewProps{LinesMatched: pv.LinesMatched, Launches: len(pv.Launches), LaunchesRead: pv.Scanned,
		LinesRead: pv.LinesScanned, Truncated: pv.Truncated, Budget: pv.Budget.String(), Limit: pv.Limit, Confirmed: pv.Confirmed,
		Refused: pv.Refused}
	for _, l := range pv.Changed {
		out.Changed = append(out.Changed, views.LaunchChange{Launch: l.Key, From: l.From, To: l.To, Lines: l.Lines,
			Href: "/launches/" + url.PathEscape(l.Key)})
	}
	for _, cf := range pv.Conflicts {
		out.Conflicts = append(out.Conflicts, views.SignatureConflict{Launch: cf.Launch, Message: cf.Message,
			Href: "/launches/" + url.PathEscape(cf.Launch) + windowHref(cf.Seq)})
	}
	for _, l := range pv.Launches {
		for _, m := range l.Matched {
			if len(out.Matched) < 20 {
				out.Matched = append(out.Matched, views.MatchedLine{Launch: l.Key, Seq: m.Seq, Text: m.Text,
					Href: "/launches/" + url.PathEscape(l.Key) + windowHref(m.Seq)})
			}
		}
	}
	return out
}
