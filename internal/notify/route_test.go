package notify_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/notify"
	"launchwatch/internal/store"
)

func TestMatches(t *testing.T) {
	t.Parallel()
	launch := &store.EventLaunch{Key: "k1", Server: "sglang", Labels: map[string]string{"team": "infra", "gpu": "h100"}}
	crashed := store.WebhookEvent{Kind: "crashed", Launch: launch}
	hookID := int64(7)
	tests := []struct {
		name string
		hook store.Webhook
		ev   store.WebhookEvent
		want bool
	}{
		{"AnyLaunch", store.Webhook{Events: []string{"crashed"}}, crashed, true},
		{"OtherEvent", store.Webhook{Events: []string{"ready"}}, crashed, false},
		{"Server", store.Webhook{Events: []string{"crashed"}, Server: "sglang"}, crashed, true},
		{"OtherServer", store.Webhook{Events: []string{"crashed"}, Server: "vllm"}, crashed, false},
		{"LabelExists", store.Webhook{Events: []string{"crashed"}, Label: "gpu"}, crashed, true},
		{"LabelValue", store.Webhook{Events: []string{"crashed"}, Label: "team=infra"}, crashed, true},
		{"LabelOtherValue", store.Webhook{Events: []string{"crashed"}, Label: "team=serving"}, crashed, false},
		{"LabelMissing", store.Webhook{Events: []string{"crashed"}, Label: "zone"}, crashed, false},
		{"TestToItsTarget", store.Webhook{ID: 7}, store.WebhookEvent{Kind: "test", WebhookID: &hookID}, true},
		{"TestToAnother", store.Webhook{ID: 8, Events: []string{"crashed"}}, store.WebhookEvent{Kind: "test", WebhookID: &hookID}, false},
		{"IncidentAnyLaunch", store.Webhook{Events: []string{"incident"}, Label: "team=infra"},
			store.WebhookEvent{Kind: "incident", Incident: &store.EventIncident{Launches: []store.EventLaunch{{Server: "vllm"}, *launch}}}, true},
		{"IncidentNoLaunchMatches", store.Webhook{Events: []string{"incident"}, Server: "tgi"},
			store.WebhookEvent{Kind: "incident", Incident: &store.EventIncident{Launches: []store.EventLaunch{*launch}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := notify.Matches(tt.hook, tt.ev); got != tt.want {
				t.Errorf("Matches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRenderFormats(t *testing.T) {
	t.Parallel()
	code := 1
	m := notify.Message{Event: "crashed", Summary: "launch k<1> crashed: RuntimeError: a & b", Launch: "k<1>", Launches: []string{"k<1>"},
		LaunchURL: "https://lw.example.org/launches/k%3C1%3E", Server: "sglang", Host: "gpu-7",
		Labels: map[string]string{"team": "infra", "gpu-kind": "h100"}, Status: "crashed", Headline: "RuntimeError: a & b",
		ExitCode: &code, At: time.Date(2031, 3, 4, 10, 0, 0, 0, time.UTC), BaseURL: "https://lw.example.org"}
	t.Run("Slack", func(t *testing.T) {
		t.Parallel()
		var p map[string]string
		mustRender(t, "slack", m, &p)
		want := "launch k&lt;1&gt; crashed: RuntimeError: a &amp; b\n<https://lw.example.org/launches/k%3C1%3E|Launch k&lt;1&gt;> · sglang on gpu-7"
		if p["text"] != want {
			t.Errorf("text = %q, want %q", p["text"], want)
		}
	})
	t.Run("JSON", func(t *testing.T) {
		t.Parallel()
		var p map[string]any
		mustRender(t, "json", m, &p)
		if p["launch"] != "k<1>" || p["event"] != "crashed" || p["exit_code"] != 1.0 || p["url"] != m.LaunchURL ||
			p["labels"].(map[string]any)["team"] != "infra" {
			t.Errorf("payload = %v", p)
		}
	})
	t.Run("Alertmanager", func(t *testing.T) {
		t.Parallel()
		var p struct {
			Version, GroupKey, Status, Receiver, ExternalURL string
			TruncatedAlerts                                  *int
			GroupLabels, CommonLabels, CommonAnnotations     map[string]string
			Alerts                                           []struct {
				Status, GeneratorURL, Fingerprint string
				Labels, Annotations               map[string]string
				StartsAt, EndsAt                  time.Time
			}
		}
		mustRender(t, "alertmanager", m, &p)
		if p.Version != "4" || p.Status != "firing" || p.Receiver == "" || p.ExternalURL != "https://lw.example.org" ||
			p.TruncatedAlerts == nil || len(p.Alerts) != 1 || p.GroupKey == "" {
			t.Fatalf("payload = %+v", p)
		}
		a := p.Alerts[0]
		if a.Labels["alertname"] != "LaunchCrashed" || a.Labels["launch"] != "k<1>" || a.Labels["severity"] != "critical" ||
			a.Labels["label_gpu_kind"] != "h100" || a.Labels["server"] != "sglang" || a.Annotations["description"] != m.Headline ||
			a.GeneratorURL != m.LaunchURL || !a.StartsAt.Equal(m.At) || !a.EndsAt.IsZero() || len(a.Fingerprint) != 16 {
			t.Errorf("alert = %+v", a)
		}
	})
}

func mustRender(t *testing.T, format string, m notify.Message, v any) {
	t.Helper()
	body, err := notify.Render(format, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("%s payload is not JSON: %v: %s", format, err, body)
	}
}

func TestTargetValidate(t *testing.T) {
	t.Parallel()
	ok := notify.Target{URL: "https://hooks.example.com/T000/B000", Format: "slack", Events: []string{"crashed", "alarm", "crashed"}}
	tests := []struct {
		name  string
		edit  func(*notify.Target)
		field string // "" when valid
	}{
		{"Valid", func(*notify.Target) {}, ""},
		{"HTTPWithPort", func(t *notify.Target) { t.URL = "http://10.0.0.5:9093/api/v2/alerts" }, ""},
		{"LabelValue", func(t *notify.Target) { t.Label = "team=infra" }, ""},
		{"NoURL", func(t *notify.Target) { t.URL = "" }, "url"},
		{"FTP", func(t *notify.Target) { t.URL = "ftp://files.example.com/x" }, "url"},
		{"Javascript", func(t *notify.Target) { t.URL = "javascript:alert(1)" }, "url"},
		{"Relative", func(t *notify.Target) { t.URL = "/hooks/x" }, "url"},
		{"NoHost", func(t *notify.Target) { t.URL = "http:///x" }, "url"},
		{"Space", func(t *notify.Target) { t.URL = "https://hooks.example.com/a b" }, "url"},
		{"BadPort", func(t *notify.Target) { t.URL = "https://hooks.example.com:99999/" }, "url"},
		{"Unspecified", func(t *notify.Target) { t.URL = "http://0.0.0.0/hook" }, "url"},
		{"Format", func(t *notify.Target) { t.Format = "xml" }, "format"},
		{"NoEvents", func(t *notify.Target) { t.Events = nil }, "events"},
		{"UnknownEvent", func(t *notify.Target) { t.Events = []string{"exploded"} }, "events"},
		{"Server", func(t *notify.Target) { t.Server = "SG Lang" }, "server"},
		{"Label", func(t *notify.Target) { t.Label = "=infra" }, "label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			target := ok
			target.Events = append([]string(nil), ok.Events...)
			tt.edit(&target)
			errs := target.Validate()
			switch {
			case tt.field == "" && errs != nil:
				t.Errorf("refused: %v", errs)
			case tt.field != "" && errs[tt.field] == "":
				t.Errorf("errors = %v, want one for %s", errs, tt.field)
			case tt.field == "" && strings.Join(target.Events, ",") != "crashed,alarm" && tt.name == "Valid":
				t.Errorf("events = %v, want them once each", target.Events)
			}
		})
	}
}
