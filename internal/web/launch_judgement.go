package web

import (
	"net/url"
	"strconv"

	"launchwatch/internal/store"
	"launchwatch/internal/timeline"
	"launchwatch/internal/views"
)

// judgementProps says which classifier and which taught signatures judged
// launch l (the signatures in its scope then, and those that matched its
// lines), with the signatures its probes and exit suggest (j).
func judgementProps(l *store.Launch, j timeline.Judgement) views.JudgementProps {
	p := views.JudgementProps{Classifier: l.JudgedBy, ReclassifiedAt: l.ReclassifiedAt}
	if p.Classifier == "" {
		p.Classifier = "an earlier classifier"
	}
	for _, s := range j.Signatures {
		p.Signatures = append(p.Signatures, views.JudgeSignature{ID: s.SignatureID, Meaning: s.Meaning, Lines: s.Lines})
	}
	for _, s := range j.Suggestions {
		ln := s.Line
		q := url.Values{"launch": {l.Key}, "seq": {strconv.FormatInt(ln.Seq, 10)}, "meaning": {s.Meaning}, "reason": {s.Why},
			"preview": {"1"}}
		p.Suggestions = append(p.Suggestions, views.Suggestion{Why: s.Why, Meaning: s.Meaning, Seq: ln.Seq, Line: ln.Text,
			Href: "/signatures/new?" + q.Encode()})
	}
	return p
}
