package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"launchwatch/internal/incident"
)

// incidentView is the API's incident, as far as the tests read it.
type incidentView struct {
	ID            int64  `json:"id"`
	Title         string `json:"title"`
	Severity      string `json:"severity"`
	Status        string `json:"status"`
	Owner         string `json:"owner"`
	Summary       string `json:"summary"`
	PostmortemURL string `json:"postmortem_url"`
	Launches      []struct {
		Key    string `json:"key"`
		Status string `json:"status"`
	} `json:"launches"`
	StatusChanges []struct {
		Status string `json:"status"`
		By     string `json:"by"`
		At     string `json:"at"`
	} `json:"status_changes"`
	Notes []struct {
		ID        int64  `json:"id"`
		Text      string `json:"text"`
		Author    string `json:"author"`
		Revisions []struct {
			Text string `json:"text"`
		} `json:"revisions"`
	} `json:"notes"`
	ActionItems []struct {
		Text string `json:"text"`
		Done bool   `json:"done"`
	} `json:"action_items"`
}

func (v incidentView) launchKeys() []string {
	var out []string
	for _, l := range v.Launches {
		out = append(out, l.Key)
	}
	return out
}

// incidentJSON sends a JSON request and decodes the incident it answers.
func (b *testBundle) incidentJSON(method, path, body string, wantStatus int) incidentView {
	b.t.Helper()
	r := b.do(method, path, "application/json", []byte(body))
	if r.status != wantStatus {
		b.t.Fatalf("%s %s %s: %d %s, want %d", method, path, body, r.status, r.body, wantStatus)
	}
	var v incidentView
	if err := json.Unmarshal(r.body, &v); err != nil {
		b.t.Fatalf("%s %s: %v: %s", method, path, err, r.body)
	}
	return v
}

// crashAndGood ships a launch that becomes ready and then one of the same
// name that crashes (cuda_graph_max_bs 32 → 64, mem_fraction_static
// 0.6 → 0.7) and reports its exit.
func (b *testBundle) crashAndGood() {
	b.t.Helper()
	b.postText("/api/v1/launches/good-1/lines?server=sglang&name=llama-8b&host=gpu-a", healthyLog)
	b.postText("/api/v1/launches/crash-1/lines?server=sglang&name=llama-8b&host=gpu-a", crashingLog)
	b.report("/api/v1/launches/crash-1/exit", `{"code": 1}`, "crashed")
}

func TestIncidentAPI(t *testing.T) {
	t.Parallel()

	t.Run("OpenChangeAndNote", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.crashAndGood()
		v := b.incidentJSON("POST", "/api/v1/incidents",
			`{"title": "OOM in graph capture", "severity": "sev2", "launches": ["crash-1"]}`, http.StatusCreated)
		if v.ID < 1 || v.Title != "OOM in graph capture" || v.Severity != "sev2" || v.Status != "investigating" ||
			!slices.Equal(v.launchKeys(), []string{"crash-1"}) || len(v.StatusChanges) != 1 {
			t.Fatalf("created incident: %+v", v)
		}
		path := "/api/v1/incidents/" + strconv.FormatInt(v.ID, 10)
		got := b.incidentJSON("GET", path, "", http.StatusOK)
		if got.Title != v.Title || got.Launches[0].Status != "crashed" {
			t.Errorf("GET %s: %+v", path, got)
		}

		v = b.incidentJSON("PATCH", path, `{"status": "mitigated", "owner": "grace", "add_launches": ["good-1"]}`, http.StatusOK)
		if v.Status != "mitigated" || v.Owner != "grace" || !slices.Equal(v.launchKeys(), []string{"crash-1", "good-1"}) {
			t.Errorf("after PATCH: %+v", v)
		}
		if n := len(v.StatusChanges); n != 2 || v.StatusChanges[1].Status != "mitigated" || v.StatusChanges[1].At == "" ||
			v.StatusChanges[1].By == "" {
			t.Errorf("status changes %+v, want investigating then mitigated, each timed and attributed", v.StatusChanges)
		}
		// The same status again changes nothing and records nothing.
		v = b.incidentJSON("PATCH", path, `{"status": "mitigated", "remove_launches": ["good-1"]}`, http.StatusOK)
		if len(v.StatusChanges) != 2 || !slices.Equal(v.launchKeys(), []string{"crash-1"}) {
			t.Errorf("after a PATCH to the same status and a removal: %+v", v)
		}

		r := b.do("POST", path+"/notes", "application/json", []byte(`{"text": "capture OOMs since the bump to 64"}`))
		var note struct {
			ID     int64  `json:"id"`
			Text   string `json:"text"`
			Author string `json:"author"`
		}
		if r.status != http.StatusCreated || json.Unmarshal(r.body, &note) != nil || note.ID < 1 ||
			note.Text != "capture OOMs since the bump to 64" || note.Author == "" {
			t.Fatalf("POST note: %d %s", r.status, r.body)
		}
		audit, err := b.store.AuditFor(context.Background(), incident.Subject(v.ID))
		must(t, err)
		var actions []string
		for _, e := range audit {
			actions = append(actions, e.Action)
		}
		want := []string{"incident.create", "incident.update", "incident.status", "incident.launch_add",
			"incident.launch_remove", "incident.note"}
		if !slices.Equal(actions, want) {
			t.Errorf("audit %v, want %v", actions, want)
		}
	})

	t.Run("BadInputIs4xx", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.crashAndGood()
		v := b.incidentJSON("POST", "/api/v1/incidents", `{"title": "t", "launches": ["crash-1"]}`, http.StatusCreated)
		if v.Severity != incident.DefaultSeverity {
			t.Errorf("severity %q without one given, want %q", v.Severity, incident.DefaultSeverity)
		}
		path := "/api/v1/incidents/" + strconv.FormatInt(v.ID, 10)
		for _, tc := range []struct {
			name, method, path, ctype, body string
			status                          int
			msg                             string
		}{
			{"NoTitle", "POST", "/api/v1/incidents", "application/json", `{"title": " "}`, 400, "title"},
			{"BadSeverity", "POST", "/api/v1/incidents", "application/json", `{"title": "x", "severity": "sev9"}`, 400, "severity"},
			{"UnknownLaunch", "POST", "/api/v1/incidents", "application/json", `{"title": "x", "launches": ["nope"]}`, 400, `"nope" is no launch`},
			{"BadLaunchKey", "POST", "/api/v1/incidents", "application/json", `{"title": "x", "launches": ["a\u0000b"]}`, 400, "not a launch key"},
			{"NulInTitle", "POST", "/api/v1/incidents", "application/json", `{"title": "a\u0000b"}`, 400, "title"},
			{"UnknownField", "POST", "/api/v1/incidents", "application/json", `{"title": "x", "sevrity": "sev1"}`, 400, "sevrity"},
			{"WrongType", "POST", "/api/v1/incidents", "application/json", `{"title": 7}`, 400, "title"},
			{"NotJSON", "POST", "/api/v1/incidents", "application/json", `{"title": `, 400, "JSON"},
			{"TwoValues", "POST", "/api/v1/incidents", "application/json", `{"title": "a"} {}`, 400, "more than one"},
			{"NotJSONType", "POST", "/api/v1/incidents", "text/plain", `{"title": "x"}`, 415, "application/json"},
			{"BadStatus", "PATCH", path, "application/json", `{"status": "done"}`, 400, "status"},
			{"EmptyNote", "POST", path + "/notes", "application/json", `{"text": ""}`, 400, "text"},
			{"NoIncident", "GET", "/api/v1/incidents/999", "", "", 404, "not found"},
			{"NoIncidentPatch", "PATCH", "/api/v1/incidents/999", "application/json", `{"status": "resolved"}`, 404, "not found"},
			{"NoIncidentNote", "POST", "/api/v1/incidents/999/notes", "application/json", `{"text": "x"}`, 404, "not found"},
			{"BadID", "GET", "/api/v1/incidents/abc", "", "", 400, "positive number"},
			{"BadFilter", "GET", "/api/v1/incidents?status=open", "", "", 400, "status"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := b.do(tc.method, tc.path, tc.ctype, []byte(tc.body))
				if r.status != tc.status {
					t.Fatalf("%d %s, want %d", r.status, r.body, tc.status)
				}
				if msg := errorMessage(t, r); !strings.Contains(msg, tc.msg) {
					t.Errorf("message %q does not mention %q", msg, tc.msg)
				}
			})
		}
		// Nothing of a refused request was stored.
		got := b.incidentJSON("GET", path, "", http.StatusOK)
		if got.Status != "investigating" || len(got.Notes) != 0 || len(got.StatusChanges) != 1 {
			t.Errorf("after refused requests: %+v", got)
		}
		list := b.do("GET", "/api/v1/incidents", "", nil)
		var l struct {
			Incidents []struct {
				ID int64 `json:"id"`
			} `json:"incidents"`
		}
		if json.Unmarshal(list.body, &l) != nil || len(l.Incidents) != 1 {
			t.Errorf("incidents after refused creations: %s", list.body)
		}
	})
}
