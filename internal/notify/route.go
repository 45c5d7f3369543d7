package notify

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"launchwatch/internal/store"
)

// Events are the events a target may ask for.
var Events = []string{"alarm", "crashed", "ready", "silent", "incident"}

// Formats are the payload formats a target may take.
var Formats = []string{"json", "alertmanager", "slack"}

// route chooses the targets of ev among hooks and renders each one's
// payload. A test event goes to its own target alone, whatever it asks for.
func (w *Worker) route(hooks []store.Webhook, ev store.WebhookEvent) ([]store.NewDelivery, error) {
	var out []store.NewDelivery
	m := w.message(ev)
	for _, h := range hooks {
		if !Matches(h, ev) {
			continue
		}
		body, err := Render(h.Format, m)
		if err != nil {
			return nil, err
		}
		out = append(out, store.NewDelivery{WebhookID: h.ID, LaunchKey: m.Launch, Body: body})
	}
	return out, nil
}

// Matches reports whether target h wants event ev: the event is one it
// asks for, and its launch (for an incident, any of its launches) is of
// its server kind and has its label.
func Matches(h store.Webhook, ev store.WebhookEvent) bool {
	if ev.Kind == "test" {
		return ev.WebhookID != nil && *ev.WebhookID == h.ID
	}
	if !slices.Contains(h.Events, ev.Kind) {
		return false
	}
	switch {
	case ev.Launch != nil:
		return launchMatches(h, *ev.Launch)
	case ev.Incident != nil:
		if h.Server == "" && h.Label == "" {
			return true
		}
		return slices.ContainsFunc(ev.Incident.Launches, func(l store.EventLaunch) bool { return launchMatches(h, l) })
	}
	return false
}

func launchMatches(h store.Webhook, l store.EventLaunch) bool {
	if h.Server != "" && !strings.EqualFold(h.Server, l.Server) {
		return false
	}
	if h.Label == "" {
		return true
	}
	name, value, withValue := strings.Cut(h.Label, "=")
	got, ok := l.Labels[name]
	return ok && (!withValue || got == value)
}

// Message is an event told in words and links, before a format shapes it.
type Message struct {
	Event     string // alarm, crashed, ready, silent, incident, test
	Action    string // an incident's: opened or resolved
	Summary   string // one line that says it all
	Launch    string // the launch key (an incident's first launch)
	Launches  []string
	LaunchURL string
	Name      string
	Server    string
	Host      string
	Labels    map[string]string
	Status    string // the launch's status the event announces
	Headline  string
	ExitCode  *int
	Signal    *string
	Incident  *IncidentRef
	At        time.Time
	BaseURL   string
}

// IncidentRef is the incident of an incident event.
type IncidentRef struct {
	ID       int64  `json:"id"`
	Title    string `json:"title"`
	Severity string `json:"severity"`
	Status   string `json:"status"`
	URL      string `json:"url"`
}

// message tells ev.
func (w *Worker) message(ev store.WebhookEvent) Message {
	m := Message{Event: ev.Kind, At: ev.At.UTC(), BaseURL: w.cfg.PublicURL}
	if l := ev.Launch; l != nil {
		m.Launch, m.Launches, m.LaunchURL = l.Key, []string{l.Key}, w.launchURL(l.Key)
		m.Name, m.Server, m.Host, m.Labels, m.Headline = l.Name, l.Server, l.Host, l.Labels, l.Headline
		m.ExitCode, m.Signal = l.ExitCode, l.ExitSignal
		m.Status, _ = ev.Detail["status"].(string)
	}
	if in := ev.Incident; in != nil {
		m.Action, _ = ev.Detail["action"].(string)
		m.Incident = &IncidentRef{ID: in.ID, Title: in.Title, Severity: in.Severity, Status: in.Status,
			URL: w.cfg.PublicURL + "/incidents/" + strconv.FormatInt(in.ID, 10)}
		m.Launches = []string{}
		for _, l := range in.Launches {
			m.Launches = append(m.Launches, l.Key)
		}
		if len(in.Launches) > 0 {
			m.Launch, m.LaunchURL = in.Launches[0].Key, w.launchURL(in.Launches[0].Key)
		}
	}
	m.Summary = summary(m, ev)
	return m
}

func (w *Worker) launchURL(key string) string {
	return w.cfg.PublicURL + "/launches/" + url.PathEscape(key)
}

// summary is the one line a person reads first.
func summary(m Message, ev store.WebhookEvent) string {
	launch := "launch " + m.Launch
	switch m.Event {
	case "alarm":
		return fmt.Sprintf("%s raised a fatal alarm: %s", launch, or(m.Headline, "(no headline)"))
	case "crashed":
		why := m.Headline
		switch {
		case m.Signal != nil && *m.Signal != "":
			why = strings.TrimSpace("killed by " + *m.Signal + "; " + m.Headline)
		case m.ExitCode != nil && *m.ExitCode != 0 && why == "":
			why = "exit code " + strconv.Itoa(*m.ExitCode)
		}
		return strings.TrimSuffix(fmt.Sprintf("%s crashed: %s", launch, why), ": ")
	case "ready":
		return launch + " is ready"
	case "silent":
		heard, _ := ev.Detail["last_heard"].(string)
		if t, err := time.Parse(time.RFC3339Nano, heard); err == nil {
			return fmt.Sprintf("%s went silent: nothing heard since %s", launch, t.UTC().Format(time.RFC3339))
		}
		return launch + " went silent"
	case "incident":
		in := m.Incident
		return fmt.Sprintf("incident #%d %s (%s): %s; launches %s", in.ID, m.Action, in.Severity, in.Title,
			or(strings.Join(m.Launches, ", "), "none"))
	case "test":
		if m.Launch == "" {
			return "test notification from Launchwatch"
		}
		return "test notification from Launchwatch (latest launch " + m.Launch + ")"
	}
	return m.Event + " " + launch
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
