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
// A receiver is paged at most once per fatal event: a crash or a recovery
// that follows a launch's alarm goes to the targets the alarm paged as an
// update of that page (whatever events they ask for: their page must not
// stay wrong), and to the others, that asked for it, as a page of its own.
func (w *Worker) route(hooks []store.Webhook, ev store.WebhookEvent) ([]store.NewDelivery, error) {
	var out []store.NewDelivery
	page, update := w.message(ev, false), w.message(ev, true)
	for _, h := range hooks {
		m := page
		switch {
		case ev.Updates != nil && slices.Contains(ev.Updates.Webhooks, h.ID):
			m = update
		case !Matches(h, ev):
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
	Event string // alarm, crashed, ready, silent, incident, test
	// Key names the fatal event a page and its updates are about
	// ("launch/KEY/fatal/ID", ID the event that paged), "" for other
	// events: receivers that deduplicate (PagerDuty's dedup_key) use it.
	Key string
	// Update is the page this message updates (nil: it pages): the
	// alarm a crash confirms or a recovery resolves.
	Update    *PageRef
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

// PageRef is the page an update is of.
type PageRef struct {
	Event string    `json:"event"` // its event: alarm
	At    time.Time `json:"at"`    // when it was raised
}

// IncidentRef is the incident of an incident event.
type IncidentRef struct {
	ID       int64  `json:"id"`
	Title    string `json:"title"`
	Severity string `json:"severity"`
	Status   string `json:"status"`
	URL      string `json:"url"`
}

// message tells ev, as the update of the page it follows when update.
func (w *Worker) message(ev store.WebhookEvent, update bool) Message {
	m := Message{Event: ev.Kind, At: ev.At.UTC(), BaseURL: w.cfg.PublicURL}
	if l := ev.Launch; l != nil {
		switch {
		case update && ev.Updates != nil:
			m.Update = &PageRef{Event: ev.Updates.Kind, At: ev.Updates.At.UTC()}
			m.Key = "launch/" + l.Key + "/fatal/" + strconv.FormatInt(ev.Updates.EventID, 10)
		case ev.Kind == "alarm" || ev.Kind == "crashed":
			m.Key = "launch/" + l.Key + "/fatal/" + strconv.FormatInt(ev.ID, 10)
		}
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
	if u := m.Update; u != nil {
		if m.Event == "ready" {
			m.Summary += ": its fatal alarm of " + u.At.Format("15:04:05") + " UTC is resolved"
		} else {
			m.Summary += " (an update of its fatal alarm of " + u.At.Format("15:04:05") + " UTC)"
		}
	}
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
