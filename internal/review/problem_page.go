package review

import (
	"context"
	"time"

	"launchwatch/internal/store"
)

// ProblemPageAlarms and ProblemPageHeadlines bound the alarms and the
// distinct headlines a problem's page lists.
const (
	ProblemPageAlarms    = 200
	ProblemPageHeadlines = 50
)

// ProblemView is the read model of a problem's page: its facts, its most
// common headlines and its alarms (the most recently seen first), in
// three queries whatever the number of alarms.
type ProblemView struct {
	Problem   store.Problem
	Headlines []store.HeadlineCount
	Alarms    []store.ProblemAlarm
	Truncated bool // more than ProblemPageAlarms alarms: Alarms holds the first
}

// LoadProblem reads the page of the problem with fingerprint fp at now.
// ErrNotFound when there is no such problem.
func LoadProblem(ctx context.Context, st *store.Store, fp string, now time.Time) (*ProblemView, error) {
	pr, err := st.Problem(ctx, now, fp)
	if err != nil {
		return nil, err
	}
	v := &ProblemView{Problem: pr}
	if v.Headlines, err = st.ProblemHeadlines(ctx, fp, ProblemPageHeadlines); err != nil {
		return nil, err
	}
	// One more than the page lists, to know it is truncated.
	if v.Alarms, err = st.ProblemAlarms(ctx, fp, false, ProblemPageAlarms+1); err != nil {
		return nil, err
	}
	if len(v.Alarms) > ProblemPageAlarms {
		v.Alarms, v.Truncated = v.Alarms[:ProblemPageAlarms], true
	}
	return v, nil
}

// ProblemPreview is what a decision on a problem would decide: its open
// alarms, at most MaxProblemDecision, with their AlarmRefs for the form.
type ProblemPreview struct {
	Open      []store.ProblemAlarm
	Refs      []string
	Truncated bool // more open alarms than one decision decides
}

// LoadProblemPreview reads the preview of a decision on the problem with
// fingerprint fp, in one query.
func LoadProblemPreview(ctx context.Context, st *store.Store, fp string) (*ProblemPreview, error) {
	open, err := st.ProblemAlarms(ctx, fp, true, MaxProblemDecision+1)
	if err != nil {
		return nil, err
	}
	pv := &ProblemPreview{}
	if len(open) > MaxProblemDecision {
		open, pv.Truncated = open[:MaxProblemDecision], true
	}
	pv.Open = open
	for _, a := range open {
		pv.Refs = append(pv.Refs, AlarmRef(a.LaunchKey, a.No))
	}
	return pv, nil
}
