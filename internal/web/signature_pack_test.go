package web_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/web/webtest"
)

// packOf reads a server's exported pack.
func (b *testBundle) packOf() (classify.Pack, []byte) {
	b.t.Helper()
	r := b.do("GET", "/api/v1/signatures/pack", "", nil)
	if r.status != http.StatusOK || !strings.Contains(r.header.Get("Content-Disposition"), "taught.json") {
		b.t.Fatalf("export: %d %v %s", r.status, r.header, r.body)
	}
	p, err := classify.ParsePack(r.body)
	if err != nil {
		b.t.Fatalf("the export is not a pack: %v\n%s", err, r.body)
	}
	return p, r.body
}

// comparable is a pack signature without what a server numbers or words
// for itself.
func comparable(g classify.Signature) string {
	g.ID, g.About = "", ""
	b, _ := json.Marshal(g)
	return string(b)
}

func TestSignaturePack(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/acme-1/lines?server=acme-serve&label.team=infer", acmeLoading+acmeFatalLine+"\n"+
		"2026-11-29 10:01:41 acme-serve: request 7 failed: upstream reset\n")
	for _, s := range []map[string]any{
		{"meaning": "ready", "matcher": "template", "pattern": acmeReadyTemplate, "scope": "server", "scope_value": "acme-serve",
			"reason": "warm workers answer", "apply_to_stored": true},
		{"meaning": "fatal", "kind": "other", "matcher": "substring", "pattern": "lost its heartbeat", "scope": "label",
			"scope_value": "team=infer", "reason": "a lost worker takes the engine down", "apply_to_stored": true},
		{"meaning": "error", "matcher": "regex", "pattern": `request \d+ failed`, "scope": "server", "scope_value": "acme-serve",
			"reason": "one request failed"},
		{"meaning": "phase", "phase": "startup", "matcher": "substring", "pattern": "acme-serve 2.1 starting", "scope": "server",
			"scope_value": "acme-serve", "reason": "the first line"},
		{"meaning": "ready", "matcher": "substring", "pattern": "never printed by anyone", "scope": "server", "scope_value": "acme-serve",
			"reason": "disabled below"},
	} {
		b.apiJSON("POST", "/api/v1/signatures", webtest.AdminToken, signatureBody(s), 201)
	}
	b.apiJSON("PATCH", "/api/v1/signatures/5", webtest.AdminToken, `{"enabled":false}`, 200)

	p, raw := b.packOf()
	if err := classify.CheckPack(p); err != nil {
		t.Fatalf("the exported pack fails the built-in loader's checks: %v\n%s", err, raw)
	}
	if len(p.Signatures) != 4 || p.Family != "taught" {
		t.Fatalf("exported %d signatures of %q, want the 4 enabled:\n%s", len(p.Signatures), p.Family, raw)
	}
	byID := map[string]classify.Signature{}
	for _, g := range p.Signatures {
		byID[g.ID] = g
	}
	if g := byID["taught.1"]; g.Role != "ready" || len(g.Servers) != 1 || g.Servers[0] != "acme-serve" || len(g.Tests) != 1 ||
		g.Tests[0] != acmeReadyLine {
		t.Errorf("the ready signature exported as %+v", g)
	}
	if g := byID["taught.2"]; g.Role != "alarm" || !g.IsFatal() || len(g.Servers) != 0 || !strings.Contains(g.About, "team=infer") {
		t.Errorf("the fatal signature exported as %+v", g)
	}
	if g := byID["taught.3"]; g.Role != "alarm" || g.IsFatal() || g.Regex != `request \d+ failed` {
		t.Errorf("the error signature exported as %+v", g)
	}
	if g := byID["taught.4"]; g.Role != "phase" || g.Phase != "startup" || g.Action != "begin" {
		t.Errorf("the phase signature exported as %+v", g)
	}

	// Imported into another server, and exported from there: the same pack.
	b2 := setup(t)
	r := b2.do("POST", "/api/v1/signatures/pack?scope=label&scope_value=team%3Dinfer", "application/json", raw)
	if r.status != http.StatusCreated {
		t.Fatalf("import: %d %s", r.status, r.body)
	}
	var imported struct {
		Imported   []int64 `json:"imported"`
		Signatures []struct {
			Scope      string `json:"scope"`
			ScopeValue string `json:"scope_value"`
			Meaning    string `json:"meaning"`
		} `json:"signatures"`
	}
	if err := json.Unmarshal(r.body, &imported); err != nil || len(imported.Imported) != 4 {
		t.Fatalf("imported %s (%v)", r.body, err)
	}
	if s := imported.Signatures[1]; s.Meaning != "fatal" || s.Scope != "label" || s.ScopeValue != "team=infer" {
		t.Errorf("the signature without a server took scope %+v", s)
	}
	p2, _ := b2.packOf()
	if len(p2.Signatures) != len(p.Signatures) {
		t.Fatalf("round trip: %d signatures, want %d", len(p2.Signatures), len(p.Signatures))
	}
	for i := range p.Signatures {
		if a, c := comparable(p.Signatures[i]), comparable(p2.Signatures[i]); a != c {
			t.Errorf("round trip changed signature %d:\n %s\n %s", i, a, c)
		}
	}
	audit := b2.apiJSON("GET", "/api/v1/signatures", webtest.AdminToken, "", 200)["signatures"].([]any)
	if len(audit) != 4 {
		t.Errorf("b2 signatures %v", audit)
	}

	// The same checks as a signature taught by hand, all or none.
	reviewer := b2.srv.NewToken(t, "review")
	bad := func(name, pack, token string, want int) {
		t.Helper()
		r := b2.do("POST", "/api/v1/signatures/pack", "application/json", []byte(pack), "Authorization", "Bearer "+token)
		if r.status != want {
			t.Errorf("%s: %d %s, want %d", name, r.status, r.body, want)
		}
	}
	sig := func(fields string) string {
		return `{"family":"x","signatures":[{"id":"x.a","role":"ready","any":["engine warm"],"tests":["acme-serve: engine warm"]` + fields + `}]}`
	}
	bad("TestDoesNotMatch", `{"family":"x","signatures":[{"id":"x.a","role":"ready","any":["engine warm"],"tests":["nothing here"]}]}`, webtest.AdminToken, 422)
	bad("UnknownRole", `{"family":"x","signatures":[{"id":"x.a","role":"detect","family":"x","any":["engine warm"],"tests":["engine warm"]}]}`, webtest.AdminToken, 422)
	bad("CommonWord", `{"family":"x","signatures":[{"id":"x.a","role":"alarm","kind":"other","any":["error"],"tests":["error"]}]}`, webtest.AdminToken, 422)
	bad("UnknownField", `{"family":"x","nope":1,"signatures":[]}`, webtest.AdminToken, 400)
	bad("AllNeedsAdmin", sig(""), reviewer, 403)
	bad("Empty", `{"family":"x","signatures":[]}`, webtest.AdminToken, 422)
	if r := b2.do("POST", "/api/v1/signatures/pack", "application/json", []byte(sig(`,"servers":["acme-serve"]`)), "Authorization", "Bearer "+reviewer); r.status != 201 {
		t.Errorf("a reviewer importing a server's signature: %d %s", r.status, r.body)
	}
}
