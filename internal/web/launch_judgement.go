package web

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"launchwatch/internal/classify"
	"launchwatch/internal/review"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// suggestLines is how many lines before the evidence a suggestion reads.
const suggestLines = 50

// judgementProps says which classifier and which taught signatures judged
// the launch (the signatures in its scope then, and those that matched its
// lines), with the signatures its probes and exit suggest.
func (h *handler) judgementProps(c echo.Context, l *store.Launch) (views.JudgementProps, error) {
	ctx := c.Request().Context()
	p := views.JudgementProps{Classifier: l.JudgedBy, ReclassifiedAt: l.ReclassifiedAt}
	if p.Classifier == "" {
		p.Classifier = "an earlier classifier"
	}
	sigs, err := h.store.SignaturesJudging(ctx, l.ID, l.SignatureIDs)
	if err != nil {
		return p, err
	}
	for _, s := range sigs {
		p.Signatures = append(p.Signatures, views.JudgeSignature{ID: s.SignatureID, Meaning: s.Meaning, Lines: s.Lines})
	}
	ev, err := h.store.Evidence(ctx, l.ID)
	if err != nil {
		return p, err
	}
	suggest := func(meaning, why string, before time.Time) error {
		lines, err := h.store.LinesReceivedBefore(ctx, l.ID, before, suggestLines)
		if err != nil {
			return err
		}
		ln, ok := review.Candidate(lines, meaning)
		if !ok {
			return nil
		}
		q := url.Values{"launch": {l.Key}, "seq": {strconv.FormatInt(ln.Seq, 10)}, "meaning": {meaning}, "reason": {why},
			"preview": {"1"}}
		p.Suggestions = append(p.Suggestions, views.Suggestion{Why: why, Meaning: meaning, Seq: ln.Seq, Line: ln.Text,
			Href: "/signatures/new?" + q.Encode()})
		return nil
	}
	if ev.ProbeOK != nil && l.ReadySeq == nil {
		if err := suggest(classify.MeaningReady, "A health probe passed but no readiness line was recognised", *ev.ProbeOK); err != nil {
			return p, err
		}
	}
	died := l.ExitCode != nil && *l.ExitCode != 0 || l.ExitSignal != nil && *l.ExitSignal != ""
	if died && !ev.ExitRequested && l.FatalAlarms == 0 {
		why := "The process died with no fatal alarm"
		switch {
		case l.ExitSignal != nil && *l.ExitSignal != "":
			why = fmt.Sprintf("The process was killed by %s with no fatal alarm", *l.ExitSignal)
		case l.ExitCode != nil:
			why = fmt.Sprintf("The process exited with code %d with no fatal alarm", *l.ExitCode)
		}
		if err := suggest(classify.MeaningFatal, why, time.Now().AddDate(100, 0, 0)); err != nil {
			return p, err
		}
	}
	return p, nil
}
