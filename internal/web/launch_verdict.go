package web

import (
	"strconv"
	"time"

	"launchwatch/internal/status"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// verdict is the top of the launch page for a launch seen with status
// (the observed one: silence is judged at read time): what decided it —
// its deciding alarm, else its exit — the phase that moment fell in, and
// when on the launch clock.
func (d *launchPageData) verdict(st string) views.VerdictProps {
	l := d.Launch
	v := views.VerdictProps{Status: st, Exit: exitText(l)}
	var seq int64
	var at *time.Time
	if a := decidingAlarm(d.Alarms); a != nil && (st == status.Alarm || st == status.Crashed) {
		v.Headline, v.AlarmNo, v.Kind = views.Plain(a.Headline), a.No, a.Kind
		seq, at = a.FirstSeq, a.FirstTS
	} else if v.Exit != "" && !d.Last.IsZero() {
		// The exit is reported after the last line (see timeline.LoadLaunchJSON).
		seq, at = l.LastSeq, &d.Last
	}
	if !v.Decided() {
		v.Exit = ""
		v.Summary = d.summary(st)
		return v
	}
	if at != nil && !at.IsZero() {
		v.At = at
		if !d.First.IsZero() {
			into := at.Sub(d.First)
			v.Into = &into
		}
	}
	v.Phase, v.PhaseEnded = phaseAt(d.Phases, seq)
	return v
}

// decidingAlarm is the alarm that decides a launch's fate, as the list's
// "why" has it: its first fatal root-cause alarm still open or confirmed,
// a settled one before one still settling.
func decidingAlarm(alarms []store.Alarm) *store.Alarm {
	var unsettled *store.Alarm
	for i := range alarms {
		a := &alarms[i]
		if !a.Fatal || a.Cause != nil || (a.State != "open" && a.State != "confirmed") {
			continue
		}
		if a.Settled {
			return a
		}
		if unsettled == nil {
			unsettled = a
		}
	}
	return unsettled
}

// exitText says how the process ended, "" when no end was reported.
func exitText(l *store.Launch) string {
	switch {
	case l.ExitSignal != nil && *l.ExitSignal != "":
		return "killed by " + *l.ExitSignal
	case l.ExitCode != nil:
		return "exit code " + strconv.Itoa(*l.ExitCode)
	}
	return ""
}

// phaseAt is the phase line seq fell in: of the phases running at it, the
// one begun last; when none ran, the last one that had ended before it
// (ended true); "" when no phase began before it.
func phaseAt(phases []store.Phase, seq int64) (name string, ended bool) {
	var in, before *store.Phase
	for i := range phases {
		ph := &phases[i]
		if ph.BeginSeq > seq {
			continue
		}
		if ph.EndSeq == nil || *ph.EndSeq >= seq {
			if in == nil || ph.BeginSeq >= in.BeginSeq {
				in = ph
			}
		} else if before == nil || *ph.EndSeq >= *before.EndSeq {
			before = ph
		}
	}
	switch {
	case in != nil:
		return in.Name, false
	case before != nil:
		return before.Name, true
	}
	return "", false
}

// summary says where a launch nothing decided stands.
func (d *launchPageData) summary(st string) string {
	l := d.Launch
	switch st {
	case status.Ready:
		if d.Ready != nil && !d.First.IsZero() {
			return "ready " + views.Duration(d.Ready.Sub(d.First)) + " after its first line (launch clock)"
		}
		return "ready"
	case status.Loading:
		s := "loading"
		if l.Phase != "" {
			s += ": " + l.Phase
			if l.PhaseTotal > 0 {
				s += " " + strconv.Itoa(l.PhaseDone) + "/" + strconv.Itoa(l.PhaseTotal)
			}
		}
		return s
	case status.Starting:
		return "starting: lines arrive, no phase recognised yet"
	case status.Silent:
		return "silent: no line and no heartbeat since " + views.Time(new(l.LastHeard())) + " UTC (server clock) — we cannot see it"
	case status.Exited:
		return "exited"
	}
	return ""
}
