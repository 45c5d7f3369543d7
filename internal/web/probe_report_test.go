package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"launchwatch/internal/web/webtest"
)

// launchAlarms reads a launch's status and its alarms' health_after_death.
type launchAlarms struct {
	Status string `json:"status"`
	Alarms []struct {
		No               int  `json:"no"`
		Fatal            bool `json:"fatal"`
		HealthAfterDeath *struct {
			Since  string `json:"since"`
			Last   string `json:"last"`
			Detail string `json:"detail"`
		} `json:"health_after_death"`
	} `json:"alarms"`
}

func (b *testBundle) launchAlarms(key string) launchAlarms {
	b.t.Helper()
	r := b.do("GET", "/api/v1/launches/"+key, "", nil)
	var l launchAlarms
	if r.status != http.StatusOK || json.Unmarshal(r.body, &l) != nil {
		b.t.Fatalf("GET launch %s: %d %s", key, r.status, r.body)
	}
	return l
}

// Health reports from `launchwatch run`'s probes beside what the log says.
func TestHealthReportsAndTheLog(t *testing.T) {
	t.Parallel()

	// The log says the engine died: a passing probe does not make the
	// launch ready (it makes it ready once a person dismissed the alarm).
	t.Run("APassNeverMakesALaunchWithALiveFatalAlarmReady", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/dead/lines?server=sglang", crashingLog)
		if l := b.settled("dead"); l.Status != "alarm" {
			t.Fatalf("status %q, want alarm", l.Status)
		}
		b.report("/api/v1/launches/dead/health", `{"ok": true, "detail": "http://127.0.0.1:30000/health: HTTP 200"}`, "alarm")
		b.apiJSON("POST", "/api/v1/launches/dead/alarms/1/decision", webtest.AdminToken,
			`{"verdict": "dismiss", "reason": "the OOM was a sizing probe"}`, 200)
		if l := b.launch("dead"); l.Status != "ready" {
			t.Errorf("status after the dismissal %q, want ready (the probe passed)", l.Status)
		}
	})

	// A probe that passes after the log said the engine died is recorded
	// on the fatal alarm; a result that waited in a spool since before the
	// alarm (its age) says nothing about it.
	t.Run("APassAfterTheDeathIsRecordedOnTheFatalAlarm", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/zombie/lines?server=sglang", crashingLog)
		if l := b.settled("zombie"); l.Status != "alarm" {
			t.Fatalf("status %q, want alarm", l.Status)
		}
		b.report("/api/v1/launches/zombie/health", `{"ok": true, "detail": "from the spool: HTTP 200", "age": 3600}`, "alarm")
		if a := b.launchAlarms("zombie").Alarms[0]; a.HealthAfterDeath != nil {
			t.Fatalf("a pass of an hour ago marked the alarm: %+v", a.HealthAfterDeath)
		}
		b.report("/api/v1/launches/zombie/health", `{"ok": true, "detail": "http://127.0.0.1:30000/health: HTTP 200"}`, "alarm")
		b.report("/api/v1/launches/zombie/health", `{"ok": true, "detail": "http://127.0.0.1:30000/health: HTTP 200"}`, "alarm")
		l := b.launchAlarms("zombie")
		a := l.Alarms[0]
		if l.Status != "alarm" || !a.Fatal || a.HealthAfterDeath == nil ||
			a.HealthAfterDeath.Detail != "http://127.0.0.1:30000/health: HTTP 200" || a.HealthAfterDeath.Last < a.HealthAfterDeath.Since {
			t.Fatalf("launch = %+v, alarm 1 %+v; want alarm, with the passes after its death", l, a.HealthAfterDeath)
		}
		page := string(b.do("GET", "/launches/zombie", "", nil).body)
		if !strings.Contains(page, `data-testid="alarm-health-after-death"`) || !strings.Contains(page, "the health endpoint still answers after the engine died") {
			t.Errorf("the alarm card does not say the health endpoint answers for a dead engine")
		}
		// The passes are one event: the log of process events keeps the
		// changes between passing and failing.
		events, err := b.store.Events(t.Context(), launchID(t, b, "zombie"))
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || events[0].Kind != "health_ok" {
			t.Errorf("events = %+v, want the one pass", events)
		}
	})

	t.Run("AProbeStillPassingIsOneEvent", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/steady/lines", "loading\n")
		for _, ok := range []string{"true", "true", "false", "false", "true", "true"} {
			r := b.do("POST", "/api/v1/launches/steady/health", "application/json", []byte(`{"ok": `+ok+`, "detail": "d"}`))
			if r.status != http.StatusOK {
				t.Fatalf("health: %d %s", r.status, r.body)
			}
		}
		events, err := b.store.Events(t.Context(), launchID(t, b, "steady"))
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, e := range events {
			kinds = append(kinds, e.Kind)
		}
		if got := strings.Join(kinds, " "); got != "health_ok health_fail health_fail health_ok" {
			t.Errorf("events %q, want every failure and each pass after a failure", got)
		}
	})

	t.Run("BadAge", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for body, want := range map[string]string{
			`{"ok": true, "age": -1}`:       `"age" must be`,
			`{"ok": true, "age": 1e12}`:     `"age" must be`,
			`{"ok": true, "age": "recent"}`: `"age" has the wrong type`,
		} {
			r := b.do("POST", "/api/v1/launches/age/health", "application/json", []byte(body))
			if r.status != http.StatusBadRequest || !strings.Contains(errorMessage(t, r), want) {
				t.Errorf("%s: %d %s, want 400 with %q", body, r.status, r.body, want)
			}
		}
	})
}

// A launch shipped without a server takes the family its lines show:
// server-scoped rules, the list's filter and webhooks see it. A server a
// shipper gives wins.
func TestServerFromTheDetectedFamily(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.apiJSON("POST", "/api/v1/rules", webtest.AdminToken,
		`{"matcher":"substring","pattern":"CUDA out of memory","scope":"server","scope_value":"sglang","reason":"the sizing probe OOMs on purpose"}`, 201)
	b.postText("/api/v1/launches/nofam/lines", crashingLog)
	r := b.do("GET", "/api/v1/launches/nofam", "", nil)
	var l struct {
		Server         string `json:"server"`
		ServerDetected bool   `json:"server_detected"`
		Status         string `json:"status"`
		Alarms         []struct {
			State string `json:"state"`
		} `json:"alarms"`
	}
	if err := json.Unmarshal(r.body, &l); err != nil {
		t.Fatal(err)
	}
	if l.Server != "sglang" || !l.ServerDetected {
		t.Errorf("server %q detected %v, want sglang, detected", l.Server, l.ServerDetected)
	}
	if len(l.Alarms) != 1 || l.Alarms[0].State != "suppressed" || l.Status == "alarm" {
		t.Errorf("status %q, alarms %+v: want the OOM suppressed by the sglang rule", l.Status, l.Alarms)
	}
	list := string(b.do("GET", "/api/v1/launches?server=sglang", "", nil).body)
	if !strings.Contains(list, `"key":"nofam"`) {
		t.Errorf("?server=sglang does not list the launch: %s", list)
	}

	b.postText("/api/v1/launches/nofam/lines?server=vllm", "one more line\n")
	if got := b.launch("nofam"); got.Server != "vllm" {
		t.Errorf("server after a batch with ?server=vllm = %q, want vllm", got.Server)
	}
	r = b.do("GET", "/api/v1/launches/nofam", "", nil)
	if err := json.Unmarshal(r.body, &l); err != nil || l.ServerDetected {
		t.Errorf("server_detected after a shipper gave one = %v, want false", l.ServerDetected)
	}
	// A later batch without a server does not take the given one back.
	b.postText("/api/v1/launches/nofam/lines", "and another\n")
	if got := b.launch("nofam"); got.Server != "vllm" {
		t.Errorf("server after a batch without one = %q, want vllm still", got.Server)
	}
}
