package timeline

import (
	"context"
	"fmt"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/review"
	"launchwatch/internal/store"
)

// suggestLines is how many lines before the evidence a suggestion reads.
const suggestLines = 50

// Judgement is what judged a launch: the taught signatures in its scope
// then (with the lines each matched), and the signatures its probes and
// exit suggest teaching.
type Judgement struct {
	Signatures  []store.SignatureHit
	Suggestions []Suggestion
}

// Suggestion is a signature the launch's evidence suggests: a line to
// teach with meaning, and why.
type Suggestion struct {
	Why, Meaning string
	Line         store.Line
}

func loadJudgement(ctx context.Context, st *store.Store, l *store.Launch) (Judgement, error) {
	var j Judgement
	var err error
	if j.Signatures, err = st.SignaturesJudging(ctx, l.ID, l.SignatureIDs); err != nil {
		return j, err
	}
	ev, err := st.Evidence(ctx, l.ID)
	if err != nil {
		return j, err
	}
	suggest := func(meaning, why string, before time.Time) error {
		lines, err := st.LinesReceivedBefore(ctx, l.ID, before, suggestLines)
		if err != nil {
			return err
		}
		if ln, ok := review.Candidate(lines, meaning); ok {
			j.Suggestions = append(j.Suggestions, Suggestion{Why: why, Meaning: meaning, Line: ln})
		}
		return nil
	}
	if ev.ProbeOK != nil && l.ReadySeq == nil {
		if err := suggest(classify.MeaningReady, "A health probe passed but no readiness line was recognised", *ev.ProbeOK); err != nil {
			return j, err
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
		// Every line received, whenever the exit was reported.
		if err := suggest(classify.MeaningFatal, why, time.Now().AddDate(100, 0, 0)); err != nil {
			return j, err
		}
	}
	return j, nil
}
