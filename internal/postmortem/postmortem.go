// Package postmortem writes an incident's post-mortem: a document generated
// from its launches (impact, timeline, root causes with their lines,
// configuration against each launch's previous good launch, decisions and
// rules) around what people wrote (summary, root cause, resolution, notes,
// action items). The web renders the document as a page and as Markdown.
package postmortem

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"time"

	"launchwatch/internal/incident"
	"launchwatch/internal/store"
	"launchwatch/internal/views"
)

// Source is what a post-mortem reads beyond the incident's view;
// *store.Store is one.
type Source interface {
	LinesBetween(ctx context.Context, launchID, from, to int64, limit int) ([]store.Line, error)
	PreviousGoodLaunch(ctx context.Context, l *store.Launch) (*store.Launch, error)
	Rules(ctx context.Context) ([]store.Rule, error)
}

// Build writes the post-mortem of v. base prefixes its links ("" keeps them
// relative, for the page; the server's URL for the Markdown export). now
// is when a still open incident is read.
func Build(ctx context.Context, src Source, v *incident.View, base string, now time.Time) (views.PostmortemDoc, error) {
	w := writer{ctx: ctx, src: src, v: v, base: base, now: now}
	inc := v.Incident
	d := views.PostmortemDoc{Title: "Post-mortem: " + inc.Title, EditURL: incident.Path(inc.ID),
		MdURL: incident.Path(inc.ID) + "/postmortem.md"}
	d.Meta = []views.DocText{views.DocPlain("Incident #" + strconv.FormatInt(inc.ID, 10) + " · " + inc.Severity +
		" · " + inc.Status)}
	if inc.Owner != "" {
		d.Meta = append(d.Meta, views.DocPlain(" · owner "+inc.Owner))
	}
	d.Meta = append(d.Meta, views.DocPlain(" · generated "+utc(now)+" UTC"))
	d.Sections = append(d.Sections, w.summary(), w.impact())
	rc, err := w.rootCauses()
	if err != nil {
		return d, err
	}
	d.Sections = append(d.Sections, rc, w.timeline())
	cfg, err := w.configuration()
	if err != nil {
		return d, err
	}
	d.Sections = append(d.Sections, cfg)
	dec, err := w.decisions()
	if err != nil {
		return d, err
	}
	d.Sections = append(d.Sections, dec, w.notes(), w.resolution(), w.actions())
	return d, nil
}

type writer struct {
	ctx  context.Context
	src  Source
	v    *incident.View
	base string
	now  time.Time
}

func (w *writer) launchLink(key string) views.DocText {
	return views.DocCodeLink(key, w.base+"/launches/"+url.PathEscape(key))
}

func (w *writer) lineLink(key string, seq int64) string {
	return w.base + "/launches/" + url.PathEscape(key) + "?after=" + strconv.FormatInt(max(0, seq-21), 10) +
		"#L" + strconv.FormatInt(seq, 10)
}

func utc(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") }

func para(s string) views.DocBlock { return views.DocBlock{Para: []views.DocText{views.DocPlain(s)}} }

func (w *writer) summary() views.DocSection {
	s := views.DocSection{ID: "summary", Title: "Summary"}
	if w.v.Incident.Summary != "" {
		s.Blocks = append(s.Blocks, para(w.v.Incident.Summary))
	} else {
		s.Blocks = append(s.Blocks, para("No summary written yet."))
	}
	var facts [][]views.DocText
	for i, c := range w.v.Statuses {
		what := "Status " + c.Status
		if i == 0 {
			what = "Opened (" + c.Status + ")"
		}
		facts = append(facts, []views.DocText{views.DocPlain(what + " " + utc(c.At) + " UTC by " + c.Actor)})
	}
	if len(w.v.Statuses) > 0 {
		open := w.v.Statuses[0].At
		end, what := w.now, "open for "
		if at := w.v.StatusAt("resolved"); at != nil && w.v.Incident.Status == "resolved" {
			end, what = *at, "resolved after "
		}
		facts = append(facts, []views.DocText{views.DocPlain(what + views.Duration(end.Sub(open)) + " (server clock)")})
	}
	if len(facts) > 0 {
		s.Blocks = append(s.Blocks, views.DocBlock{List: facts})
	}
	return s
}

func (w *writer) impact() views.DocSection {
	s := views.DocSection{ID: "impact", Title: "Impact"}
	var hosts, servers []string
	for _, l := range w.v.Launches {
		if l.Host != "" && !slices.Contains(hosts, l.Host) {
			hosts = append(hosts, l.Host)
		}
		if l.Server != "" && !slices.Contains(servers, l.Server) {
			servers = append(servers, l.Server)
		}
	}
	head := []views.DocText{views.DocPlain(plural(len(w.v.Launches), "launch", "launches") + " on " +
		plural(len(hosts), "host", "hosts"))}
	for i, h := range hosts {
		sep := ": "
		if i > 0 {
			sep = ", "
		}
		head = append(head, views.DocPlain(sep), views.DocCode(h))
	}
	if len(servers) > 0 {
		head = append(head, views.DocPlain("; servers"))
		for i, sv := range servers {
			sep := " "
			if i > 0 {
				sep = ", "
			}
			head = append(head, views.DocPlain(sep), views.DocCode(sv))
		}
	}
	s.Blocks = append(s.Blocks, views.DocBlock{Para: append(head, views.DocPlain("."))})
	var items [][]views.DocText
	for i := range w.v.Launches {
		l := &w.v.Launches[i]
		d, what := l.Duration()
		it := []views.DocText{w.launchLink(l.Key), views.DocPlain(" (" + l.Server + " on " + l.Host + "): "),
			views.DocStrong(l.Status)}
		if !l.First.IsZero() {
			it = append(it, views.DocPlain(", started "+utc(l.First)+" UTC, "+views.Duration(d)+" from start "+what+" (launch clock)"))
		}
		if l.ExitCode != nil || l.ExitSignal != nil {
			it = append(it, views.DocPlain(", "+incident.ExitText(l.ExitCode, l.ExitSignal)))
		}
		items = append(items, it)
	}
	if len(items) > 0 {
		s.Blocks = append(s.Blocks, views.DocBlock{List: items})
	}
	return s
}

func (w *writer) timeline() views.DocSection {
	s := views.DocSection{ID: "timeline", Title: "Timeline (UTC)"}
	var items [][]views.DocText
	for _, e := range w.v.Entries() {
		it := []views.DocText{views.DocPlain(utc(e.At) + " ")}
		if e.LaunchKey != "" {
			it = append(it, w.launchLink(e.LaunchKey), views.DocPlain(" "))
		} else {
			it = append(it, views.DocPlain("incident "))
		}
		it = append(it, views.DocPlain(e.Text))
		if e.Code != "" {
			it = append(it, views.DocPlain(": "), views.DocCode(e.Code))
		}
		if e.Actor != "" {
			it = append(it, views.DocPlain(" — "+e.Actor))
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		s.Blocks = append(s.Blocks, para("Nothing happened yet: the incident has no launch with lines."))
	} else {
		s.Blocks = append(s.Blocks, views.DocBlock{List: items})
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// notFound reports whether err is the store's ErrNotFound.
func notFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
