package web

import (
	"strconv"
	"time"

	"launchwatch/internal/incident"
	"launchwatch/internal/views"
)

// incidentTimeline lays out the incident's lanes: the incident's own
// (status changes and notes, on the server's clock) and one per launch
// (its phases, readiness, alarms, decisions, notes and exit on its launch
// clock). The axis spans the launches' lines and the incident's events.
func incidentTimeline(v *incident.View) views.IncidentTimelineProps {
	var p views.IncidentTimelineProps
	span := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if p.From.IsZero() || t.Before(p.From) {
			p.From = t
		}
		if t.After(p.To) {
			p.To = t
		}
	}
	own := views.ITLane{Label: "incident #" + strconv.FormatInt(v.Incident.ID, 10), Incident: true, Status: v.Incident.Status}
	for _, s := range v.Statuses {
		own.Marks = append(own.Marks, views.ITMark{At: s.At, Kind: "status", Class: s.Status, Label: s.Status,
			Title: s.Status + " by " + s.Actor + ", " + views.Time(&s.At) + " UTC", Href: "#status-changes"})
		span(s.At)
	}
	for _, n := range v.Notes {
		own.Marks = append(own.Marks, views.ITMark{At: n.CreatedAt, Kind: "note", Title: n.Author + ": " + n.Body,
			Href: "#inote-" + strconv.FormatInt(n.ID, 10)})
		span(n.CreatedAt)
	}
	p.Lanes = append(p.Lanes, own)
	for i := range v.Launches {
		l := &v.Launches[i]
		p.Lanes = append(p.Lanes, launchLane(l, span))
	}
	if !p.To.After(p.From) {
		p.To = p.From.Add(time.Minute)
	}
	// A little room on both sides so marks at the ends are not cut.
	pad := p.To.Sub(p.From) / 50
	p.From, p.To = p.From.Add(-pad), p.To.Add(pad)
	return p
}

func launchLane(l *incident.Launch, span func(time.Time)) views.ITLane {
	key := l.Key
	lane := views.ITLane{Label: key, Key: key, Status: l.Status, Href: "/launches/" + key}
	if l.First.IsZero() {
		return lane
	}
	span(l.First)
	span(l.Last)
	for _, ph := range l.Phases {
		end, running := l.Last, ph.End == nil
		if ph.End != nil {
			end = *ph.End
		}
		title := ph.Name + " " + views.Duration(end.Sub(ph.Begin))
		if running {
			title += " (no end)"
		}
		lane.Bars = append(lane.Bars, views.ITBar{From: ph.Begin, To: end, Label: ph.Name, Title: title,
			Href: lineHref(key, ph.BeginSeq), Running: running})
	}
	if l.Ready != nil {
		lane.Marks = append(lane.Marks, views.ITMark{At: *l.Ready, Kind: "ready", Title: "ready after " +
			views.Duration(l.Ready.Sub(l.First)) + " on the launch clock", Href: lineHref(key, *l.ReadySeq)})
	}
	for _, a := range l.Alarms {
		at := l.First
		if a.FirstTS != nil {
			at = *a.FirstTS
		}
		lane.Marks = append(lane.Marks, views.ITMark{At: at, Kind: "alarm", Class: a.State,
			Title: "alarm " + strconv.Itoa(a.No) + " (" + a.State + "): " + a.Headline, Href: lineHref(key, a.FirstSeq)})
	}
	for _, d := range l.Decisions {
		span(d.At)
		title := d.Actor + " " + d.Verdict + " alarm " + strconv.Itoa(d.AlarmNo)
		if d.Reason != "" {
			title += ": " + d.Reason
		}
		lane.Marks = append(lane.Marks, views.ITMark{At: d.At, Kind: "decision", Class: d.Verdict, Title: title,
			Href: "/launches/" + key + "#alarm-" + strconv.Itoa(d.AlarmNo)})
	}
	for _, n := range l.Notes {
		at, href := n.CreatedAt, "/launches/"+key+"#note-"+strconv.FormatInt(n.ID, 10)
		if n.At != nil {
			at = *n.At
		}
		if n.Seq != nil {
			href = lineHref(key, *n.Seq)
		}
		span(at)
		lane.Marks = append(lane.Marks, views.ITMark{At: at, Kind: "note", Title: n.Author + ": " + n.Body, Href: href})
	}
	if l.ExitCode != nil || l.ExitSignal != nil {
		lane.Marks = append(lane.Marks, views.ITMark{At: l.Last, Kind: "exit",
			Title: incident.ExitText(l.ExitCode, l.ExitSignal), Href: lineHref(key, l.LastSeq)})
	}
	return lane
}
