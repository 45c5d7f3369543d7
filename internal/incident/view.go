package incident

import (
	"context"
	"strconv"
	"strings"
	"time"

	"launchwatch/internal/review"
	"launchwatch/internal/store"
)

// View is everything known about one incident: what people wrote and did,
// and each of its launches with what happened on it.
type View struct {
	Incident store.Incident
	Statuses []store.IncidentStatusChange // oldest first; the first is the opening
	Launches []Launch                     // in the order they were added
	Notes    []store.IncidentNote
	Actions  []store.ActionItem
	History  []store.AuditEvent // every change of the incident, oldest first
}

// Launch is one launch of an incident, its times on its own launch clock.
type Launch struct {
	*store.Launch
	AddedBy     string
	AddedAt     time.Time
	First, Last time.Time  // its first and last line (zero without lines)
	Ready       *time.Time // its readiness line, nil if never ready
	Ended       bool       // its process ended (exit reported) or it crashed
	Phases      []store.Phase
	Alarms      []store.Alarm
	Decisions   []Decision
	Notes       []store.Annotation
}

// Decision is a person's verdict on an alarm of a launch (from the audit
// log, so every decision is there, not only the last).
type Decision struct {
	LaunchKey string
	AlarmNo   int
	Verdict   string // confirm, dismiss, ...
	Actor     string
	Reason    string
	At        time.Time
}

// Load reads incident id and its launches. ErrNotFound when there is none.
func Load(ctx context.Context, st *store.Store, id int64) (*View, error) {
	inc, err := st.Incident(ctx, id)
	if err != nil {
		return nil, err
	}
	v := &View{Incident: *inc}
	if v.Statuses, err = st.IncidentStatusChanges(ctx, id); err != nil {
		return nil, err
	}
	if v.Notes, err = st.IncidentNotes(ctx, id); err != nil {
		return nil, err
	}
	if v.Actions, err = st.ActionItems(ctx, id); err != nil {
		return nil, err
	}
	if v.History, err = st.AuditFor(ctx, Subject(id)); err != nil {
		return nil, err
	}
	members, err := st.IncidentMembers(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		l, err := loadLaunch(ctx, st, m)
		if err != nil {
			return nil, err
		}
		v.Launches = append(v.Launches, l)
	}
	return v, nil
}

func loadLaunch(ctx context.Context, st *store.Store, m store.IncidentMember) (Launch, error) {
	sl, err := st.LaunchByID(ctx, m.LaunchID)
	if err != nil {
		return Launch{}, err
	}
	l := Launch{Launch: sl, AddedBy: m.AddedBy, AddedAt: m.AddedAt}
	if l.First, l.Last, err = st.LineSpan(ctx, sl.ID); err != nil {
		return l, err
	}
	if sl.ReadySeq != nil {
		lines, err := st.LinesBetween(ctx, sl.ID, *sl.ReadySeq, *sl.ReadySeq, 1)
		if err != nil {
			return l, err
		}
		if len(lines) > 0 {
			l.Ready = &lines[0].TS
		}
	}
	l.Ended = sl.ExitCode != nil || sl.ExitSignal != nil || sl.Status == "crashed" || sl.Status == "exited"
	if l.Phases, err = st.Phases(ctx, sl.ID); err != nil {
		return l, err
	}
	if l.Alarms, err = st.Alarms(ctx, sl.ID); err != nil {
		return l, err
	}
	if l.Notes, err = st.Annotations(ctx, sl.ID); err != nil {
		return l, err
	}
	audit, err := st.AuditWithPrefix(ctx, review.SubjectPrefix(sl.Key))
	if err != nil {
		return l, err
	}
	for _, e := range audit {
		no, err := strconv.Atoi(strings.TrimPrefix(e.Subject, review.SubjectPrefix(sl.Key)))
		if err != nil {
			continue // not an alarm of this launch (a key that extends this one)
		}
		reason, _ := e.Detail["reason"].(string)
		l.Decisions = append(l.Decisions, Decision{LaunchKey: sl.Key, AlarmNo: no,
			Verdict: strings.TrimPrefix(e.Action, "alarm."), Actor: e.Actor, Reason: reason, At: e.At})
	}
	return l, nil
}

// Duration is the launch's time from its first line to readiness, or to
// its end, or so far; what says which.
func (l *Launch) Duration() (d time.Duration, what string) {
	switch {
	case l.First.IsZero():
		return 0, "no line"
	case l.Ready != nil:
		return l.Ready.Sub(l.First), "to ready"
	case l.Ended:
		return l.Last.Sub(l.First), "to the end"
	}
	return l.Last.Sub(l.First), "so far"
}

// RootCauses are the alarms that brought the launch down: fatal, open or
// confirmed, and no consequence of another alarm.
func (l *Launch) RootCauses() []store.Alarm {
	var out []store.Alarm
	for _, a := range l.Alarms {
		if a.Fatal && a.Cause == nil && (a.State == "open" || a.State == "confirmed") {
			out = append(out, a)
		}
	}
	return out
}

// StatusAt returns when the incident last took status, nil if never.
func (v *View) StatusAt(status string) *time.Time {
	var at *time.Time
	for i := range v.Statuses {
		if v.Statuses[i].Status == status {
			at = &v.Statuses[i].At
		}
	}
	return at
}
