package web

import (
	"github.com/labstack/echo/v4"

	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// judgementProps says which classifier and which taught signatures judged
// the launch (the signatures in its scope then, and those that matched its
// lines), with the signatures its probes and exit suggest.
func (h *handler) judgementProps(c echo.Context, l *store.Launch) (views.JudgementProps, error) {
	p := views.JudgementProps{Classifier: l.JudgedBy, ReclassifiedAt: l.ReclassifiedAt}
	if p.Classifier == "" {
		p.Classifier = "an earlier classifier"
	}
	sigs, err := h.store.SignaturesJudging(c.Request().Context(), l.ID, l.SignatureIDs)
	if err != nil {
		return p, err
	}
	for _, s := range sigs {
		p.Signatures = append(p.Signatures, views.JudgeSignature{ID: s.SignatureID, Meaning: s.Meaning, Lines: s.Lines})
	}
	return p, nil
}
