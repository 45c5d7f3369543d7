package web

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/auth"
	"launchwatch/internal/pipeline"
	"launchwatch/internal/views"
)

// reclassifyShow answers GET /launches/{key}/reclassify: what judging the
// launch again would change (a preview), with the button that applies it.
func (h *handler) reclassifyShow(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	d, err := h.pipe.Reclassify(c.Request().Context(), key, pipeline.ReclassifyOptions{Preview: true, Actor: actorName(c)})
	if err != nil {
		return err
	}
	return render(c, 200, views.Reclassify(reclassifyProps(d)))
}

// reclassifyApply answers POST /launches/{key}/reclassify: it applies the
// reclassification and shows the launch; one that would drop a person's
// confirmation is the preview again with why (403) unless an admin asks.
func (h *handler) reclassifyApply(c echo.Context) error {
	key, err := launchKey(c)
	if err != nil {
		return err
	}
	if _, err := formText(c); err != nil {
		return err
	}
	ctx := c.Request().Context()
	_, err = h.pipe.Reclassify(ctx, key, pipeline.ReclassifyOptions{Actor: actorName(c),
		MayDropConfirmed: principalOf(c).level == auth.Admin})
	var confirmed *pipeline.ConfirmedError
	if errors.As(err, &confirmed) {
		d, err := h.pipe.Reclassify(ctx, key, pipeline.ReclassifyOptions{Preview: true, Actor: actorName(c)})
		if err != nil {
			return err
		}
		p := reclassifyProps(d)
		p.Error = confirmed.Error()
		return render(c, http.StatusForbidden, views.Reclassify(p))
	}
	if err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/launches/"+url.PathEscape(key))
}

func reclassifyProps(d *pipeline.Difference) views.ReclassifyProps {
	conv := func(as []pipeline.AlarmDiff) []views.AlarmChange {
		out := make([]views.AlarmChange, 0, len(as))
		for _, a := range as {
			out = append(out, views.AlarmChange{No: a.No, WasNo: a.WasNo, Kind: a.Kind, Fatal: a.Fatal, Headline: a.Headline,
				WasHeadline: a.WasHeadline, State: a.State, DecidedBy: a.DecidedBy})
		}
		return out
	}
	return views.ReclassifyProps{Key: d.Launch, From: d.From, To: d.To, Added: conv(d.Added), Removed: conv(d.Removed),
		Changed: conv(d.Changed), Kept: d.Kept, DecisionsKept: d.DecisionsKept, DecisionsDropped: d.DecisionsDropped,
		LinesChanged: d.LinesChanged, Classifier: d.Classifier, Signatures: d.Signatures}
}
