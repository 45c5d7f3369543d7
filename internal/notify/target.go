package notify

import (
	"launchwatch/internal/launchid"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Target is a webhook target as an admin asks for it (POST /api/v1/webhooks
// and the admin page's form).
type Target struct {
	URL    string   `json:"url"`
	Format string   `json:"format"`
	Events []string `json:"events"`
	Server string   `json:"server"`
	Label  string   `json:"label"`
}

// maxURL bounds a target's URL.
const maxURL = 2000

// Validate trims t and returns what is wrong with it, by field (nil when
// nothing is): an http or https URL with a host, a known format, at least
// one known event, a server kind, a label "name" or "name=value".
func (t *Target) Validate() map[string]string {
	errs := map[string]string{}
	t.URL, t.Format = strings.TrimSpace(t.URL), strings.TrimSpace(t.Format)
	t.Server, t.Label = strings.TrimSpace(t.Server), strings.TrimSpace(t.Label)
	if msg := checkURL(t.URL); msg != "" {
		errs["url"] = msg
	}
	if !slices.Contains(Formats, t.Format) {
		errs["format"] = "must be one of " + strings.Join(Formats, ", ")
	}
	var events []string
	for _, e := range t.Events {
		e = strings.TrimSpace(e)
		switch {
		case !slices.Contains(Events, e):
			errs["events"] = "unknown event " + quote(e) + "; the events are " + strings.Join(Events, ", ")
		case !slices.Contains(events, e):
			events = append(events, e)
		}
	}
	if len(t.Events) == 0 {
		errs["events"] = "name at least one of " + strings.Join(Events, ", ")
	}
	t.Events = events
	if t.Server != "" && !launchid.ServerPattern.MatchString(t.Server) {
		errs["server"] = "a server kind such as sglang or vllm (lower case letters, digits, . _ -)"
	}
	if t.Label != "" {
		name, _, _ := strings.Cut(t.Label, "=")
		if name == "" || len(t.Label) > 200 || strings.ContainsFunc(t.Label, unicode.IsControl) {
			errs["label"] = `a label "name" or "name=value", at most 200 characters`
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return errs
}

// checkURL says what is wrong with a target URL ("" when nothing is).
func checkURL(raw string) string {
	if raw == "" {
		return "is required"
	}
	if len(raw) > maxURL {
		return "is longer than 2000 characters"
	}
	if strings.ContainsFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		return "must not contain spaces or control characters"
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "is not a URL"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "must be an http:// or https:// URL"
	}
	host := u.Hostname()
	if host == "" {
		return "has no host"
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "has a bad port"
		}
	}
	if ip := net.ParseIP(host); ip != nil && (ip.IsUnspecified() || ip.IsMulticast()) {
		return "has an address that cannot be sent to"
	}
	if u.Fragment != "" {
		return "must not have a #fragment (it is never sent)"
	}
	return ""
}

func quote(s string) string { return `"` + s + `"` }
