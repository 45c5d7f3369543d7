package postmortem

import (
	"net/url"
	"strconv"
	"strings"

	"launchwatch/internal/compare"
	"launchwatch/internal/incident"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// Excerpt bounds: an alarm's first lines (where it began) and the lines
// up to its headline (what it says), at most this many of each.
const (
	excerptHead = 3
	excerptTail = 6
)

func (w *writer) rootCauses() (views.DocSection, error) {
	s := views.DocSection{ID: "root-cause", Title: "Root cause"}
	if rc := w.v.Incident.RootCause; rc != "" {
		s.Blocks = append(s.Blocks, para(rc))
	}
	for i := range w.v.Launches {
		l := &w.v.Launches[i]
		causes := l.RootCauses()
		if len(causes) == 0 {
			what := "no root-cause alarm"
			if l.ExitCode != nil || l.ExitSignal != nil {
				what += "; " + incident.ExitText(l.ExitCode, l.ExitSignal)
			}
			s.Blocks = append(s.Blocks, views.DocBlock{Para: []views.DocText{w.launchLink(l.Key),
				views.DocPlain(": " + what + ".")}})
			continue
		}
		for _, a := range causes {
			s.Blocks = append(s.Blocks, views.DocBlock{Heading: []views.DocText{w.launchLink(l.Key),
				views.DocPlain(" alarm " + strconv.Itoa(a.No) + " (" + a.Kind + ", " + a.State + ")")}})
			s.Blocks = append(s.Blocks, views.DocBlock{Para: []views.DocText{
				{Text: a.Headline, Code: true, Strong: true, Href: w.lineLink(l.Key, a.HeadlineSeq)}}})
			excerpt, err := w.excerpt(l.ID, a)
			if err != nil {
				return s, err
			}
			s.Blocks = append(s.Blocks, views.DocBlock{Code: excerpt})
		}
	}
	return s, nil
}

// excerpt is a short quote of an alarm's lines: its first lines and the
// lines up to its headline, "…" where lines are left out.
func (w *writer) excerpt(launchID int64, a store.Alarm) (string, error) {
	head, err := w.src.LinesBetween(w.ctx, launchID, a.FirstSeq, min(a.LastSeq, a.FirstSeq+excerptHead-1), excerptHead)
	if err != nil {
		return "", err
	}
	end := max(a.HeadlineSeq, a.FirstSeq)
	from := max(a.FirstSeq+excerptHead, end-excerptTail+1)
	var tail []store.Line
	if from <= end {
		if tail, err = w.src.LinesBetween(w.ctx, launchID, from, end, excerptTail); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	last := int64(0)
	for _, ln := range append(head, tail...) {
		if last > 0 && ln.Seq > last+1 {
			b.WriteString("…\n")
		}
		b.WriteString(ln.Text + "\n")
		last = ln.Seq
	}
	return b.String(), nil
}

func (w *writer) configuration() (views.DocSection, error) {
	s := views.DocSection{ID: "configuration", Title: "Configuration against the previous good launch"}
	for i := range w.v.Launches {
		l := &w.v.Launches[i]
		prev, err := w.src.PreviousGoodLaunch(w.ctx, l.Launch)
		if notFound(err) {
			s.Blocks = append(s.Blocks, views.DocBlock{Para: []views.DocText{w.launchLink(l.Key),
				views.DocPlain(": no earlier launch of the same name or host became ready.")}})
			continue
		}
		if err != nil {
			return s, err
		}
		changed, _ := compare.Config(prev.Config, l.Config)
		heading := []views.DocText{w.launchLink(l.Key), views.DocPlain(" against "), w.launchLink(prev.Key),
			views.DocPlain(" ("), views.DocLink("compare", w.base+"/compare?"+url.Values{"a": {prev.Key}, "b": {l.Key}}.Encode()), views.DocPlain(")")}
		s.Blocks = append(s.Blocks, views.DocBlock{Heading: heading})
		if len(changed) == 0 {
			s.Blocks = append(s.Blocks, para("The same configuration."))
			continue
		}
		var items [][]views.DocText
		for _, c := range changed {
			it := []views.DocText{views.DocCode(c.Key), views.DocPlain(": ")}
			switch {
			case !c.InA:
				it = append(it, views.DocPlain("(not set) → "), views.DocCode(c.B))
			case !c.InB:
				it = append(it, views.DocCode(c.A), views.DocPlain(" → (not set)"))
			default:
				it = append(it, views.DocCode(c.A), views.DocPlain(" → "), views.DocCode(c.B))
			}
			items = append(items, it)
		}
		s.Blocks = append(s.Blocks, views.DocBlock{List: items})
	}
	if len(s.Blocks) == 0 {
		s.Blocks = append(s.Blocks, para("The incident has no launch."))
	}
	return s, nil
}

// decisions lists the verdicts on the incident's launches' alarms and the
// rules made while the incident was open or from its launches' alarms.
func (w *writer) decisions() (views.DocSection, error) {
	s := views.DocSection{ID: "decisions", Title: "Decisions and rules"}
	var items [][]views.DocText
	ids := map[int64]string{}
	for i := range w.v.Launches {
		l := &w.v.Launches[i]
		ids[l.ID] = l.Key
		for _, d := range l.Decisions {
			it := []views.DocText{views.DocPlain(utc(d.At) + " UTC " + d.Actor + " " + verb(d.Verdict) + " alarm " +
				strconv.Itoa(d.AlarmNo) + " of "), w.launchLink(d.LaunchKey)}
			if d.Reason != "" {
				it = append(it, views.DocPlain(": "+d.Reason))
			}
			items = append(items, it)
		}
	}
	rules, err := w.src.Rules(w.ctx)
	if err != nil {
		return s, err
	}
	open := w.v.Incident.CreatedAt
	end := w.now
	if at := w.v.StatusAt("resolved"); at != nil && w.v.Incident.Status == "resolved" {
		end = *at
	}
	for _, r := range rules {
		from := ""
		if r.FromLaunchID != nil {
			from = ids[*r.FromLaunchID]
		}
		if from == "" && (r.CreatedAt.Before(open) || r.CreatedAt.After(end)) {
			continue
		}
		it := []views.DocText{views.DocLink("rule #"+strconv.FormatInt(r.ID, 10), w.base+"/rules/"+strconv.FormatInt(r.ID, 10)+"/edit"),
			views.DocPlain(" (" + r.Matcher + " "), views.DocCode(r.Pattern),
			views.DocPlain(", " + utc(r.CreatedAt) + " UTC by " + r.Author + "): " + r.Reason)}
		if from != "" {
			it = append(it, views.DocPlain(" — from an alarm of "), w.launchLink(from))
		}
		if !r.Enabled {
			it = append(it, views.DocPlain(" (disabled)"))
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		s.Blocks = append(s.Blocks, para("No decision or rule yet."))
	} else {
		s.Blocks = append(s.Blocks, views.DocBlock{List: items})
	}
	return s, nil
}

func verb(verdict string) string {
	switch verdict {
	case "confirm":
		return "confirmed"
	case "dismiss":
		return "dismissed"
	}
	return verdict
}

func (w *writer) notes() views.DocSection {
	s := views.DocSection{ID: "notes", Title: "Notes"}
	var items [][]views.DocText
	for _, n := range w.v.Notes {
		meta := n.Author + ", " + utc(n.CreatedAt) + " UTC"
		if k := len(n.Revisions); k > 0 {
			by, at := n.EditedBy()
			meta += ", edited " + plural(k, "time", "times") + ", last by " + by + " " + utc(at) + " UTC"
		}
		items = append(items, []views.DocText{views.DocStrong(meta), views.DocPlain(": " + n.Body)})
	}
	for i := range w.v.Launches {
		l := &w.v.Launches[i]
		for _, n := range l.Notes {
			it := []views.DocText{views.DocStrong(n.Author + ", " + utc(n.CreatedAt) + " UTC"), views.DocPlain(" on "),
				w.launchLink(l.Key)}
			if n.Seq != nil {
				it = append(it, views.DocPlain(" "), views.DocLink("line "+strconv.FormatInt(*n.Seq, 10), w.lineLink(l.Key, *n.Seq)))
			}
			items = append(items, append(it, views.DocPlain(": "+n.Body)))
		}
	}
	if len(items) == 0 {
		s.Blocks = append(s.Blocks, para("No note."))
	} else {
		s.Blocks = append(s.Blocks, views.DocBlock{List: items})
	}
	return s
}

func (w *writer) resolution() views.DocSection {
	s := views.DocSection{ID: "resolution", Title: "Resolution"}
	if r := w.v.Incident.Resolution; r != "" {
		s.Blocks = append(s.Blocks, para(r))
	} else {
		s.Blocks = append(s.Blocks, para("Not written yet."))
	}
	return s
}

func (w *writer) actions() views.DocSection {
	s := views.DocSection{ID: "actions", Title: "Action items"}
	var checks []views.DocCheck
	for _, a := range w.v.Actions {
		text := []views.DocText{views.DocPlain(a.Body)}
		if a.Done && a.DoneBy != nil && a.DoneAt != nil {
			text = append(text, views.DocPlain(" (done by "+*a.DoneBy+" "+utc(*a.DoneAt)+" UTC)"))
		}
		checks = append(checks, views.DocCheck{Done: a.Done, Text: text})
	}
	if len(checks) == 0 {
		s.Blocks = append(s.Blocks, para("No action item yet."))
	} else {
		s.Blocks = append(s.Blocks, views.DocBlock{Checks: checks})
	}
	return s
}
