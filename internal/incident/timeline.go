package incident

import (
	"cmp"
	"launchwatch/internal/timefmt"
	"slices"
	"strconv"
	"time"

	"launchwatch/internal/store"
)

// Entry is one event of an incident's merged timeline: a launch's phase,
// readiness, alarm, exit, decision or note (each on its launch clock), or
// the incident's own status changes, notes and launches added or removed.
type Entry struct {
	At        time.Time
	LaunchKey string // "" for the incident's own events
	Kind      string // start, phase, ready, alarm, exit, decision, note, status, launch
	Text      string // what happened, in words
	Code      string // the log text it quotes (an alarm's headline), if any
	Seq       int64  // the line it is about, 0 if none
	Actor     string // who, for people's events
}

// maxAlarmEntries bounds the alarms one launch puts in the timeline; a
// launch with hundreds of request errors would drown everything else.
const maxAlarmEntries = 20

// Entries is the incident's merged timeline, oldest first.
func (v *View) Entries() []Entry {
	var out []Entry
	for i := range v.Launches {
		out = append(out, v.Launches[i].entries()...)
	}
	for i, s := range v.Statuses {
		text := "status " + s.Status
		if i == 0 {
			text = "opened (" + s.Status + ")"
		}
		out = append(out, Entry{At: s.At, Kind: "status", Text: text, Actor: s.Actor})
	}
	for _, n := range v.Notes {
		out = append(out, Entry{At: n.CreatedAt, Kind: "note", Text: n.Body, Actor: n.Author})
	}
	for _, e := range v.History {
		k, _ := e.Detail["launch"].(string)
		switch e.Action {
		case "incident.launch_add":
			out = append(out, Entry{At: e.At, Kind: "launch", LaunchKey: k, Text: "launch added to the incident", Actor: e.Actor})
		case "incident.launch_remove":
			out = append(out, Entry{At: e.At, Kind: "launch", LaunchKey: k, Text: "launch removed from the incident", Actor: e.Actor})
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return a.At.Compare(b.At) })
	return out
}

func (l *Launch) entries() []Entry {
	if l.First.IsZero() {
		return nil
	}
	key := l.Key
	out := []Entry{{At: l.First, LaunchKey: key, Kind: "start", Text: "first line", Seq: 1}}
	for _, p := range l.Phases {
		text := "phase " + p.Name + " began"
		if p.End != nil {
			text = "phase " + p.Name + " (" + timefmt.Duration(p.End.Sub(p.Begin)) + " on the launch clock)"
		}
		out = append(out, Entry{At: p.Begin, LaunchKey: key, Kind: "phase", Text: text, Seq: p.BeginSeq})
	}
	if l.Ready != nil {
		out = append(out, Entry{At: *l.Ready, LaunchKey: key, Kind: "ready", Text: "ready", Seq: *l.ReadySeq})
	}
	alarms := slices.Clone(l.Alarms)
	// The fatal ones first when there are too many: they are the story.
	slices.SortStableFunc(alarms, func(a, b store.Alarm) int { return cmp.Compare(btoi(!a.Fatal), btoi(!b.Fatal)) })
	for i, a := range alarms {
		if i == maxAlarmEntries {
			out = append(out, Entry{At: l.Last, LaunchKey: key, Kind: "alarm",
				Text: strconv.Itoa(len(alarms)-i) + " more alarms, not listed"})
			break
		}
		at := l.First
		if a.FirstTS != nil {
			at = *a.FirstTS
		}
		text := "alarm " + strconv.Itoa(a.No) + " (" + a.Kind
		if a.Fatal {
			text += ", fatal"
		}
		out = append(out, Entry{At: at, LaunchKey: key, Kind: "alarm", Text: text + ", " + a.State + ")",
			Code: a.Headline, Seq: a.HeadlineSeq})
	}
	if l.ExitCode != nil || l.ExitSignal != nil {
		out = append(out, Entry{At: l.Last, LaunchKey: key, Kind: "exit", Text: ExitText(l.ExitCode, l.ExitSignal), Seq: l.LastSeq})
	}
	for _, d := range l.Decisions {
		text := d.Verdict + " alarm " + strconv.Itoa(d.AlarmNo)
		if d.Reason != "" {
			text += ": " + d.Reason
		}
		out = append(out, Entry{At: d.At, LaunchKey: key, Kind: "decision", Text: text, Actor: d.Actor})
	}
	for _, n := range l.Notes {
		e := Entry{At: n.CreatedAt, LaunchKey: key, Kind: "note", Text: n.Body, Actor: n.Author}
		if n.At != nil {
			e.At = *n.At
		}
		if n.Seq != nil {
			e.Seq = *n.Seq
		}
		out = append(out, e)
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ExitText says how a process ended: "exit code 1", "killed by SIGKILL".
func ExitText(code *int, signal *string) string {
	switch {
	case signal != nil && *signal != "":
		return "killed by " + *signal
	case code != nil:
		return "exit code " + strconv.Itoa(*code)
	}
	return "ended"
}
