package pipeline

import (
	"slices"
	"strconv"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/status"
	"launchwatch/internal/store"
)

// Judging a stored launch again: its lines are replayed through a fresh
// classifier (the current packs, the taught signatures in its scope), the
// state is settled as the launch stands (its process exited, it went
// quiet), and the alarms found are matched with the stored ones so that
// what people decided survives on the events that persist.

// AlarmSubject names an alarm in the audit log (review.Subject).
func AlarmSubject(launchKey string, no int) string {
	return "alarm:" + launchKey + "/" + strconv.Itoa(no)
}

// LaunchSubject names a launch in the audit log.
func LaunchSubject(launchKey string) string { return "launch:" + launchKey }

// settleModeFor is how a replay of launch l's lines is settled at now: as
// the settler and the exit report would have settled them, false when the
// launch is live (a line came within the settle bound).
func (p *Pipeline) settleModeFor(l *store.LaunchForUpdate, now time.Time) (classify.SettleMode, bool) {
	switch {
	case l.ExitCode != nil || l.ExitSignal != nil:
		return classify.SettleExit, true
	case l.LastHeard == nil:
		return 0, false
	case now.Sub(*l.LastHeard) >= p.streamEndAfter:
		return classify.SettleStreamEnd, true
	case now.Sub(*l.LastHeard) >= p.settleAfter:
		return classify.SettleIdle, true
	}
	return 0, false
}

// judgedAlarm is an alarm of a replay with the review state it takes.
type judgedAlarm struct {
	classify.Alarm
	State     string // open, confirmed, dismissed or suppressed
	RuleID    *int64 // the rule that suppresses it
	DecidedBy string // the person whose decision it keeps
	was       *store.Alarm
	change    []string // with was: what changed (headline, fatal, kind)
	persists  bool     // same event, same headline line: the decision is kept
	resuppres bool     // the rule held the alarm it persists already
}

// AlarmDiff is one alarm a reclassification adds, removes or changes.
type AlarmDiff struct {
	No          int      `json:"no,omitempty"`     // its number after (absent when removed)
	WasNo       int      `json:"was_no,omitempty"` // before (absent when added)
	Kind        string   `json:"kind"`
	Fatal       bool     `json:"fatal"`
	Headline    string   `json:"headline"`
	HeadlineSeq int64    `json:"headline_seq"`
	WasHeadline string   `json:"was_headline,omitempty"` // changed: the headline before
	Changes     []string `json:"changes,omitempty"`      // changed: headline, fatal, kind
	State       string   `json:"state"`                  // its review state after (removed: before)
	WasState    string   `json:"was_state,omitempty"`
	DecidedBy   string   `json:"decided_by,omitempty"` // whose decision it keeps, or loses (in the audit log)
}

// reconciled is a replay's alarms matched with the stored ones.
type reconciled struct {
	alarms  []judgedAlarm // every alarm of the replay, withdrawn ones included, in ID order
	removed []store.Alarm // stored alarms no alarm of the replay continues
}

// reconcile matches the replay's alarms (latest copies, in ID order) with
// the stored alarms old (not withdrawn): an alarm with the same headline
// line and headline persists and keeps the person's decision; one that
// overlaps a stored alarm's lines otherwise is that alarm changed (its
// decision stays in the audit log, not on it); the others are new. Rules
// in force then suppress the open ones they match.
func reconcile(old []store.Alarm, alarms []classify.Alarm, rules *classify.RuleSet, server string, labels map[string]string) reconciled {
	out := reconciled{alarms: make([]judgedAlarm, len(alarms))}
	used := make([]bool, len(old))
	for i, a := range alarms {
		out.alarms[i] = judgedAlarm{Alarm: a, State: "open"}
	}
	for i := range out.alarms {
		j := &out.alarms[i]
		if j.Withdrawn {
			continue
		}
		for k := range old {
			if !used[k] && old[k].HeadlineSeq == j.HeadlineSeq && old[k].Headline == j.Headline {
				used[k], j.was, j.persists = true, &old[k], true
				break
			}
		}
	}
	for i := range out.alarms {
		j := &out.alarms[i]
		if j.Withdrawn || j.was != nil {
			continue
		}
		for k := range old {
			if !used[k] && old[k].FirstSeq <= j.LastSeq && j.FirstSeq <= old[k].LastSeq {
				used[k], j.was = true, &old[k]
				break
			}
		}
	}
	for k := range old {
		if !used[k] {
			out.removed = append(out.removed, old[k])
		}
	}
	for i := range out.alarms {
		j := &out.alarms[i]
		if j.Withdrawn {
			continue
		}
		if w := j.was; w != nil {
			if w.Headline != j.Headline || w.HeadlineSeq != j.HeadlineSeq {
				j.change = append(j.change, "headline")
			}
			if w.Fatal != j.Fatal {
				j.change = append(j.change, "fatal")
			}
			if w.Kind != string(j.Kind) {
				j.change = append(j.change, "kind")
			}
			if j.persists && w.DecidedBy != nil && (w.State == "confirmed" || w.State == "dismissed") {
				j.State, j.DecidedBy = w.State, *w.DecidedBy
				continue
			}
		}
		if rules == nil {
			continue
		}
		if id, ok := rules.Match(j.Alarm, server, labels); ok {
			j.State, j.RuleID = "suppressed", &id
			j.resuppres = j.persists && j.was.State == "suppressed" && j.was.RuleID != nil && *j.was.RuleID == id
		}
	}
	return out
}

// diff lists what the reconciliation changes.
func (r reconciled) diff(d *Difference) {
	d.Added, d.Removed, d.Changed = []AlarmDiff{}, []AlarmDiff{}, []AlarmDiff{}
	for _, j := range r.alarms {
		if j.Withdrawn {
			continue
		}
		ad := AlarmDiff{No: j.ID, Kind: string(j.Kind), Fatal: j.Fatal, Headline: j.Headline, HeadlineSeq: j.HeadlineSeq,
			State: j.State, DecidedBy: j.DecidedBy}
		switch {
		case j.was == nil:
			d.Added = append(d.Added, ad)
		case j.persists && len(j.change) == 0:
			d.Kept++
			if j.DecidedBy != "" {
				d.DecisionsKept++
			}
		default:
			ad.WasNo, ad.WasState, ad.Changes = j.was.No, j.was.State, j.change
			if slices.Contains(j.change, "headline") {
				ad.WasHeadline = j.was.Headline
			}
			if j.persists {
				d.Kept++
				if j.DecidedBy != "" {
					d.DecisionsKept++
				}
			} else if j.was.DecidedBy != nil {
				ad.DecidedBy = *j.was.DecidedBy
				d.DecisionsDropped++
			}
			d.Changed = append(d.Changed, ad)
		}
	}
	for _, a := range r.removed {
		ad := AlarmDiff{WasNo: a.No, Kind: a.Kind, Fatal: a.Fatal, Headline: a.Headline, HeadlineSeq: a.HeadlineSeq,
			State: a.State}
		if a.DecidedBy != nil {
			ad.DecidedBy = *a.DecidedBy
			d.DecisionsDropped++
		}
		d.Removed = append(d.Removed, ad)
	}
}

// judgedStatus is the status a launch would have with the reconciled
// alarms, its readiness (readySeq: the log's; ready: the log's or a
// probe's) and phase: status.Of over the facts store.AlarmFacts counts.
func judgedStatus(l *store.LaunchForUpdate, r reconciled, readySeq *int64, ready bool, phase string) string {
	f := status.Facts{Ready: ready, Phase: phase, WasReady: l.Status == status.Ready,
		ExitCode: l.ExitCode, ExitSignal: l.ExitSignal, ExitRequested: l.ExitRequested}
	for _, j := range r.alarms {
		if j.Withdrawn || !j.Fatal {
			continue
		}
		switch {
		case j.State == "confirmed":
			f.ConfirmedFatal++
		case j.State == "open" && j.Settled:
			f.OpenFatal++
			if readySeq != nil && j.FirstSeq > *readySeq {
				f.OpenFatalAfterReady++
			}
		case j.State == "open" && (readySeq == nil || j.FirstSeq < *readySeq):
			f.PendingFatal++
		}
	}
	return status.Of(f)
}

// Verdicts a backtest reports: a status, or for a launch that is alarm or
// crashed, whether it was ready before.
const (
	VerdictCrashed          = "crashed"
	VerdictReadyThenCrashed = "ready_then_crashed"
)

// verdictOf is a status in the words of a labeled corpus: alarm and
// crashed are crashed, or ready_then_crashed when the launch was ready
// before its first fatal alarm (or its death); the others are themselves.
func verdictOf(st string, readySeq *int64, ready bool, r reconciled) string {
	if st != status.Alarm && st != status.Crashed {
		return st
	}
	var first int64
	for _, j := range r.alarms {
		if !j.Withdrawn && j.Fatal && (j.State == "open" || j.State == "confirmed") && (first == 0 || j.FirstSeq < first) {
			first = j.FirstSeq
		}
	}
	switch {
	case first > 0 && readySeq != nil && first > *readySeq:
		return VerdictReadyThenCrashed
	case first == 0 && ready:
		return VerdictReadyThenCrashed // died by its exit after it was ready
	}
	return VerdictCrashed
}
