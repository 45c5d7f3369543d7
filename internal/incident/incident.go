// Package incident is the team's side of failed launches: incidents that
// group launches, their status, notes and action items (the writes, each
// with its audit event), the read model of one incident with its launches'
// phases, alarms, decisions and notes (Load), and the post-mortem generated
// from it (Postmortem, Markdown). The same rules serve the JSON API and the
// HTML forms.
package incident

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"launchwatch/internal/launchid"
)

// Severities are the severities an incident may have, the worst first.
var Severities = []string{"sev1", "sev2", "sev3", "sev4"}

// Statuses are an incident's statuses in the order it goes through them.
var Statuses = []string{"investigating", "mitigated", "resolved"}

// DefaultSeverity is an incident's severity when none is given.
const DefaultSeverity = "sev3"

// Limits of what people write.
const (
	MaxTitle    = 200
	MaxOwner    = 80
	MaxText     = 20000 // summary, root cause, resolution
	MaxNote     = 4000
	MaxAction   = 500
	MaxLaunches = 50 // launches in one incident
)

// InvalidError lists what is wrong with a request, by field.
type InvalidError struct {
	Fields map[string]string
}

func (e *InvalidError) Error() string { return "incident: " + e.Message() }

// Message is the fields' messages in a stable order, for a 4xx answer.
func (e *InvalidError) Message() string {
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + e.Fields[k]
	}
	return strings.Join(parts, "; ")
}

// invalid collects field messages; err returns nil when there are none.
type invalid map[string]string

func (v invalid) err() error {
	if len(v) == 0 {
		return nil
	}
	return &InvalidError{Fields: v}
}

// line checks a one-line text: trimmed, at most max characters, no
// control characters; required refuses an empty one.
func (v invalid) line(field string, s *string, max int, required bool) {
	*s = strings.TrimSpace(*s)
	switch {
	case required && *s == "":
		v[field] = "is required"
	case utf8.RuneCountInString(*s) > max:
		v[field] = "is at most " + strconv.Itoa(max) + " characters"
	case strings.ContainsFunc(*s, unicode.IsControl):
		v[field] = "must be one line of text"
	}
}

// text checks a multi-line text: trimmed, at most max characters, no NUL.
func (v invalid) text(field string, s *string, max int, required bool) {
	*s = strings.TrimSpace(*s)
	switch {
	case required && *s == "":
		v[field] = "is required"
	case utf8.RuneCountInString(*s) > max:
		v[field] = "is at most " + strconv.Itoa(max) + " characters"
	case !utf8.ValidString(*s) || strings.ContainsRune(*s, 0):
		v[field] = "must be text"
	}
}

func (v invalid) oneOf(field, s string, allowed []string) {
	if !slices.Contains(allowed, s) {
		v[field] = "must be one of " + strings.Join(allowed, ", ")
	}
}

// New is an incident as it is opened.
type New struct {
	Title    string
	Severity string // "" means DefaultSeverity
	Owner    string
	Launches []string // launch keys
}

// Validate trims the fields and checks them.
func (n *New) Validate() error {
	v := invalid{}
	v.line("title", &n.Title, MaxTitle, true)
	if n.Severity = strings.ToLower(strings.TrimSpace(n.Severity)); n.Severity == "" {
		n.Severity = DefaultSeverity
	}
	v.oneOf("severity", n.Severity, Severities)
	v.line("owner", &n.Owner, MaxOwner, false)
	n.Launches = dedupe(n.Launches)
	v.keys("launches", n.Launches)
	if len(n.Launches) > MaxLaunches {
		v["launches"] = "at most " + strconv.Itoa(MaxLaunches) + " launches"
	}
	return v.err()
}

// Change is an edit of an incident: nil fields stay as they are.
type Change struct {
	Title, Severity, Status, Owner *string
	Summary, RootCause, Resolution *string
	AddLaunches, RemoveLaunches    []string
}

// Validate trims the given fields and checks them.
func (c *Change) Validate() error {
	v := invalid{}
	if c.Title != nil {
		v.line("title", c.Title, MaxTitle, true)
	}
	if c.Severity != nil {
		*c.Severity = strings.ToLower(strings.TrimSpace(*c.Severity))
		v.oneOf("severity", *c.Severity, Severities)
	}
	if c.Status != nil {
		*c.Status = strings.ToLower(strings.TrimSpace(*c.Status))
		v.oneOf("status", *c.Status, Statuses)
	}
	if c.Owner != nil {
		v.line("owner", c.Owner, MaxOwner, false)
	}
	for name, p := range map[string]*string{"summary": c.Summary, "root_cause": c.RootCause, "resolution": c.Resolution} {
		if p != nil {
			v.text(name, p, MaxText, false)
		}
	}
	c.AddLaunches, c.RemoveLaunches = dedupe(c.AddLaunches), dedupe(c.RemoveLaunches)
	v.keys("add_launches", c.AddLaunches)
	v.keys("remove_launches", c.RemoveLaunches)
	if len(c.AddLaunches) > MaxLaunches {
		v["add_launches"] = "at most " + strconv.Itoa(MaxLaunches) + " launches"
	}
	return v.err()
}

// keys checks launch keys' form, so that nothing a client sends reaches
// the database unchecked.
func (v invalid) keys(field string, keys []string) {
	for _, k := range keys {
		if !launchid.KeyPattern.MatchString(k) {
			v[field] = strconv.Quote(k) + " is not a launch key"
			return
		}
	}
}

// dedupe drops blank and repeated keys, keeping the first order.
func dedupe(keys []string) []string {
	var out []string
	for _, k := range keys {
		if k = strings.TrimSpace(k); k != "" && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// Subject is an incident's subject in the audit log.
func Subject(id int64) string { return "incident:" + strconv.FormatInt(id, 10) }

// Path is an incident's page.
func Path(id int64) string { return "/incidents/" + strconv.FormatInt(id, 10) }
