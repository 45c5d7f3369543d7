package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"launchwatch/internal/review"
	"launchwatch/internal/web/webtest"
)

// acmeLoading is a launch of a server no pack knows: its weights load (a
// progress bar every server prints), then it says in its own words that
// it serves, which nothing recognises: it stays loading.
const acmeLoading = `2026-11-29 10:00:00 acme-serve 2.1 starting (model=/models/acme-7b)
2026-11-29 10:00:01 Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:10<00:10,  5.0s/it]
2026-11-29 10:00:02 Loading safetensors checkpoint shards: 100% Completed | 4/4 [00:20<00:00,  5.0s/it]
2026-11-29 10:00:40 acme-serve: engine warm, all 4 workers answering
`

// acmeReadyLine is acmeLoading's fourth line, and acmeReadyTemplate its
// template, as the teach form fills it in.
const (
	acmeReadyLine     = "2026-11-29 10:00:40 acme-serve: engine warm, all 4 workers answering"
	acmeReadyTemplate = "acme-serve: engine warm, all <num> workers answering"
	acmeFatalLine     = "2026-11-29 10:01:40 acme-serve: worker 2 lost its heartbeat, engine going down"
)

// signatureBody is a POST /api/v1/signatures body.
func signatureBody(fields map[string]any) string {
	b, _ := json.Marshal(fields)
	return string(b)
}

func TestSignaturesAPI(t *testing.T) {
	t.Parallel()

	t.Run("CreateListPatchAudited", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		reviewer := b.srv.NewToken(t, "review")
		for name, tc := range map[string]struct {
			body   map[string]any
			status int
			field  string
		}{
			"CatchAllRegex":    {map[string]any{"meaning": "ready", "matcher": "regex", "pattern": ".*", "scope": "server", "scope_value": "acme-serve", "reason": "x"}, 422, "pattern"},
			"CommonWord":       {map[string]any{"meaning": "fatal", "matcher": "substring", "pattern": "INFO", "scope": "server", "scope_value": "acme-serve", "reason": "x"}, 422, "pattern"},
			"NoReason":         {map[string]any{"meaning": "ready", "matcher": "template", "pattern": acmeReadyTemplate, "scope": "server", "scope_value": "acme-serve"}, 422, "reason"},
			"BadMeaning":       {map[string]any{"meaning": "maybe", "matcher": "template", "pattern": acmeReadyTemplate, "scope": "server", "scope_value": "acme-serve", "reason": "x"}, 422, "meaning"},
			"PhaseWithoutName": {map[string]any{"meaning": "phase", "matcher": "template", "pattern": acmeReadyTemplate, "scope": "server", "scope_value": "acme-serve", "reason": "x"}, 422, "phase"},
			"BadKind":          {map[string]any{"meaning": "fatal", "kind": "boom", "matcher": "template", "pattern": acmeReadyTemplate, "scope": "server", "scope_value": "acme-serve", "reason": "x"}, 422, "kind"},
			"NoLiteral":        {map[string]any{"meaning": "ready", "matcher": "regex", "pattern": `\d+ \w+ \d+`, "scope": "server", "scope_value": "acme-serve", "reason": "x"}, 422, "pattern"},
			"BadScope":         {map[string]any{"meaning": "ready", "matcher": "template", "pattern": acmeReadyTemplate, "scope": "label", "scope_value": "team", "reason": "x"}, 422, "scope"},
			"AllNeedsAdmin":    {map[string]any{"meaning": "ready", "matcher": "template", "pattern": acmeReadyTemplate, "scope": "all", "reason": "x"}, 403, ""},
		} {
			r := b.do("POST", "/api/v1/signatures", "application/json", []byte(signatureBody(tc.body)), "Authorization", "Bearer "+reviewer)
			if r.status != tc.status {
				t.Errorf("%s: %d %s, want %d", name, r.status, r.body, tc.status)
				continue
			}
			if tc.field != "" {
				var body struct {
					Fields map[string]string `json:"fields"`
				}
				if err := json.Unmarshal(r.body, &body); err != nil || body.Fields[tc.field] == "" {
					t.Errorf("%s: %s, want a reason for %s", name, r.body, tc.field)
				}
			}
		}
		if r := b.do("POST", "/api/v1/signatures", "application/json", []byte(`{"meaning":"ready","nope":1}`)); r.status != 400 {
			t.Errorf("unknown field: %d %s", r.status, r.body)
		}
		created := b.apiJSON("POST", "/api/v1/signatures", reviewer, signatureBody(map[string]any{"meaning": "ready",
			"matcher": "template", "pattern": acmeReadyTemplate, "scope": "server", "scope_value": "acme-serve",
			"reason": "acme-serve answers once its workers are warm"}), 201)
		id := int64(created["id"].(float64))
		list := b.apiJSON("GET", "/api/v1/signatures", reviewer, "", 200)["signatures"].([]any)
		if len(list) != 1 || list[0].(map[string]any)["pattern"] != acmeReadyTemplate || list[0].(map[string]any)["enabled"] != true {
			t.Fatalf("list %v", list)
		}
		patched := b.apiJSON("PATCH", "/api/v1/signatures/"+itoa(id), reviewer, `{"enabled":false,"reason":"acme 2.2 says it differently"}`, 200)
		if patched["enabled"] != false || patched["reason"] != "acme 2.2 says it differently" {
			t.Errorf("patched %v", patched)
		}
		if r := b.do("PATCH", "/api/v1/signatures/"+itoa(id), "application/json", []byte(`{}`)); r.status != 422 {
			t.Errorf("empty patch: %d %s", r.status, r.body)
		}
		if r := b.do("PATCH", "/api/v1/signatures/999", "application/json", []byte(`{"enabled":true}`)); r.status != 404 {
			t.Errorf("unknown signature: %d %s", r.status, r.body)
		}
		audit, err := b.store.AuditFor(context.Background(), review.SignatureSubject(id))
		if err != nil || len(audit) != 2 || audit[0].Action != "signature.create" || audit[1].Action != "signature.disable" {
			t.Fatalf("audit %+v %v", audit, err)
		}
		// A signature for all launches is an admin's.
		all := b.apiJSON("POST", "/api/v1/signatures", webtest.AdminToken, signatureBody(map[string]any{"meaning": "fatal",
			"matcher": "substring", "pattern": "lost its heartbeat", "scope": "all", "reason": "a lost worker takes the engine down"}), 201)
		if r := b.do("PATCH", "/api/v1/signatures/"+itoa(int64(all["id"].(float64))), "application/json", []byte(`{"enabled":false}`),
			"Authorization", "Bearer "+reviewer); r.status != 403 {
			t.Errorf("a reviewer disabled a signature for all launches: %d %s", r.status, r.body)
		}
	})

	t.Run("AppliesAtIngestInScope", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/acme-1/lines?server=acme-serve", acmeLoading)
		if st := b.launch("acme-1").Status; st != "loading" {
			t.Fatalf("acme-1 %s before any signature, want loading", st)
		}
		b.apiJSON("POST", "/api/v1/signatures", webtest.AdminToken, signatureBody(map[string]any{"meaning": "ready",
			"matcher": "template", "pattern": acmeReadyTemplate, "scope": "server", "scope_value": "acme-serve",
			"reason": "acme-serve answers once its workers are warm"}), 201)
		b.apiJSON("POST", "/api/v1/signatures", webtest.AdminToken, signatureBody(map[string]any{"meaning": "fatal",
			"matcher": "substring", "pattern": "lost its heartbeat", "scope": "label", "scope_value": "team=infer",
			"reason": "a lost worker takes the engine down"}), 201)
		if st := b.launch("acme-1").Status; st != "loading" {
			t.Errorf("acme-1 %s: saving a signature changed a stored launch", st)
		}
		// A new launch, its ready line in a batch of its own.
		lines := strings.SplitAfter(acmeLoading, "\n")
		b.postText("/api/v1/launches/acme-2/lines?server=acme-serve", strings.Join(lines[:3], ""))
		b.postText("/api/v1/launches/acme-2/lines?server=acme-serve", lines[3])
		if l := b.launch("acme-2"); l.Status != "ready" || l.ReadySeq == nil || *l.ReadySeq != 4 {
			t.Errorf("acme-2 %s ready at %v, want ready at line 4", l.Status, l.ReadySeq)
		}
		// Another server's launch is out of the ready signature's scope.
		b.postText("/api/v1/launches/other-1/lines?server=other", acmeLoading)
		if st := b.launch("other-1").Status; st != "loading" {
			t.Errorf("other-1 %s, want loading: out of scope", st)
		}
		// The fatal signature applies to launches with its label.
		b.postText("/api/v1/launches/acme-3/lines?server=acme-serve&label.team=infer", acmeLoading+acmeFatalLine+"\n")
		if l := b.settled("acme-3"); l.Status != "alarm" || l.Counts.Alarms != 1 {
			t.Errorf("acme-3 %s with %d alarms, want alarm", l.Status, l.Counts.Alarms)
		}
		b.postText("/api/v1/launches/acme-4/lines?server=acme-serve", acmeLoading+acmeFatalLine+"\n")
		if l := b.settled("acme-4"); l.Status != "ready" || l.Counts.Alarms != 0 {
			t.Errorf("acme-4 %s with %d alarms, want ready: no label", l.Status, l.Counts.Alarms)
		}
		var sigs struct {
			Signatures []struct {
				Meaning  string   `json:"meaning"`
				Hits     int64    `json:"hits"`
				Launches int64    `json:"launches"`
				Examples []string `json:"examples"`
			} `json:"signatures"`
		}
		r := b.do("GET", "/api/v1/signatures", "", nil)
		if err := json.Unmarshal(r.body, &sigs); err != nil {
			t.Fatal(err)
		}
		for _, s := range sigs.Signatures {
			want := map[string]int64{"ready": 3, "fatal": 1}[s.Meaning] // acme-2, acme-3, acme-4; acme-3
			if s.Hits != want || s.Launches != want || len(s.Examples) != 1 {
				t.Errorf("%s signature: %d hits in %d launches, examples %q; want %d", s.Meaning, s.Hits, s.Launches, s.Examples, want)
			}
		}
		if r.status != http.StatusOK {
			t.Fatal(r.status)
		}
	})
}
