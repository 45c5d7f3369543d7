package notify

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Render shapes m as format's payload.
func Render(format string, m Message) (string, error) {
	var v any
	switch format {
	case "json":
		v = genericPayload(m)
	case "alertmanager":
		v = alertmanagerPayload(m)
	case "slack":
		v = map[string]string{"text": slackText(m)}
	default:
		return "", fmt.Errorf("notify: unknown format %q", format)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("notify: render %s: %w", format, err)
	}
	return string(b), nil
}

// genericJSON is the "json" format: every fact, flat.
type genericJSON struct {
	Event      string            `json:"event"`
	Action     string            `json:"action,omitempty"`
	Summary    string            `json:"summary"`
	Launch     string            `json:"launch"`
	Launches   []string          `json:"launches"`
	URL        string            `json:"url"`
	Name       string            `json:"name,omitempty"`
	Server     string            `json:"server,omitempty"`
	Host       string            `json:"host,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	Status     string            `json:"status,omitempty"`
	Headline   string            `json:"headline,omitempty"`
	ExitCode   *int              `json:"exit_code,omitempty"`
	ExitSignal *string           `json:"exit_signal,omitempty"`
	Incident   *IncidentRef      `json:"incident,omitempty"`
	At         time.Time         `json:"at"`
	// Key is the same in a fatal event's page and its updates; Updates
	// says which page a message updates.
	Key     string   `json:"key,omitempty"`
	Updates *PageRef `json:"updates,omitempty"`
}

func genericPayload(m Message) genericJSON {
	url := m.LaunchURL
	if m.Incident != nil {
		url = m.Incident.URL
	}
	if url == "" {
		url = m.BaseURL + "/"
	}
	return genericJSON{Event: m.Event, Action: m.Action, Summary: m.Summary, Launch: m.Launch, Launches: nonNil(m.Launches),
		URL: url, Name: m.Name, Server: m.Server, Host: m.Host, Labels: m.Labels, Status: m.Status, Headline: m.Headline,
		ExitCode: m.ExitCode, ExitSignal: m.Signal, Incident: m.Incident, At: m.At, Key: m.Key, Updates: m.Update}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// slackText is the text of a Slack-compatible incoming webhook: mrkdwn
// with links as <url|text>, where &, < and > must be escaped.
func slackText(m Message) string {
	esc := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace
	var b strings.Builder
	// An incoming webhook cannot edit the message it posted: an update is
	// a short message that says which one it updates.
	switch {
	case m.Update != nil && m.Event == "ready":
		b.WriteString("✅ Resolved: ")
	case m.Update != nil:
		b.WriteString("↳ Update: ")
	}
	b.WriteString(esc(m.Summary))
	if m.LaunchURL != "" {
		fmt.Fprintf(&b, "\n<%s|Launch %s>", m.LaunchURL, esc(m.Launch))
	}
	if m.Incident != nil {
		fmt.Fprintf(&b, "\n<%s|Incident #%d>", m.Incident.URL, m.Incident.ID)
	}
	var where []string
	for _, s := range []string{m.Server, m.Host} {
		if s != "" {
			where = append(where, esc(s))
		}
	}
	if len(where) > 0 {
		b.WriteString(" · " + strings.Join(where, " on "))
	}
	return b.String()
}

// amAlert and amPayload are Alertmanager's webhook payload, version 4
// (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config),
// so receivers written for Alertmanager take Launchwatch's events as they
// are.
type amAlert struct {
	Status       string            `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
	Fingerprint  string            `json:"fingerprint"`
}

type amPayload struct {
	Version           string            `json:"version"`
	GroupKey          string            `json:"groupKey"`
	TruncatedAlerts   int               `json:"truncatedAlerts"`
	Status            string            `json:"status"`
	Receiver          string            `json:"receiver"`
	GroupLabels       map[string]string `json:"groupLabels"`
	CommonLabels      map[string]string `json:"commonLabels"`
	CommonAnnotations map[string]string `json:"commonAnnotations"`
	ExternalURL       string            `json:"externalURL"`
	Alerts            []amAlert         `json:"alerts"`
}

var alertNames = map[string]string{"alarm": "LaunchFatalAlarm", "crashed": "LaunchCrashed", "ready": "LaunchReady",
	"silent": "LaunchSilent", "incident": "LaunchwatchIncident", "test": "LaunchwatchTest"}

var alertSeverities = map[string]string{"alarm": "critical", "crashed": "critical", "ready": "info",
	"silent": "warning", "test": "info"}

// alertmanagerPayload is m as Alertmanager sends it. A fatal event is one
// alert whatever happens to it: its page and its updates have the same
// labels (the page's alertname and severity, and episode, the event that
// paged), so the same fingerprint and group key; an update fires the
// alert again with the news in its annotations (status: crashed), a
// recovery resolves it.
func alertmanagerPayload(m Message) amPayload {
	labels := map[string]string{}
	for k, v := range m.Labels { // the launch's labels, as Prometheus label names
		labels[promName(k)] = v
	}
	event := m.Event
	if m.Update != nil {
		event = m.Update.Event
	}
	labels["alertname"] = alertNames[event]
	labels["launch"] = m.Launch
	labels["severity"] = alertSeverities[event]
	if _, episode, ok := strings.Cut(m.Key, "/fatal/"); ok {
		labels["episode"] = episode
	}
	for k, v := range map[string]string{"server": m.Server, "host": m.Host} {
		if v != "" {
			labels[k] = v
		}
	}
	ann := map[string]string{"summary": m.Summary}
	if m.Headline != "" {
		ann["description"] = m.Headline
	}
	if m.Status != "" {
		ann["status"] = m.Status
	}
	url := m.LaunchURL
	status := "firing"
	endsAt := time.Time{} // Alertmanager's zero time: the alert has not ended
	startsAt := m.At
	if u := m.Update; u != nil {
		startsAt = u.At
		if m.Event == "ready" {
			status, endsAt = "resolved", m.At
		}
	}
	if in := m.Incident; in != nil {
		labels["incident"] = strconv.FormatInt(in.ID, 10)
		labels["severity"] = in.Severity
		ann["launches"] = strings.Join(m.Launches, ", ")
		ann["title"] = in.Title
		url = in.URL
		if m.Action == "resolved" {
			status, endsAt = "resolved", m.At
		}
	}
	if url == "" {
		url = m.BaseURL + "/"
	}
	alert := amAlert{Status: status, Labels: labels, Annotations: ann, StartsAt: startsAt, EndsAt: endsAt,
		GeneratorURL: url, Fingerprint: fingerprint(labels)}
	return amPayload{Version: "4", GroupKey: `{}:{alertname="` + labels["alertname"] + `", launch="` + m.Launch + `"}`,
		Status: status, Receiver: "launchwatch", GroupLabels: map[string]string{"alertname": labels["alertname"], "launch": m.Launch},
		CommonLabels: labels, CommonAnnotations: ann, ExternalURL: m.BaseURL, Alerts: []amAlert{alert}}
}

// promName makes launch label k a valid Prometheus label name
// ([a-zA-Z_][a-zA-Z0-9_]*), prefixed so it cannot take the place of
// alertname, launch or severity.
func promName(k string) string {
	b := []byte(k)
	for i, c := range b {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return "label_" + string(b)
}

// fingerprint identifies an alert by its labels, as Alertmanager's does
// (FNV-1a over the sorted names and values), so the same launch's same
// event has the same fingerprint.
func fingerprint(labels map[string]string) string {
	h := fnv.New64a()
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		h.Write([]byte(k))
		h.Write([]byte{0xff})
		h.Write([]byte(labels[k]))
		h.Write([]byte{0xff})
	}
	return fmt.Sprintf("%016x", h.Sum64())
}
