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

// preview is a signature preview's answer.
type previewView struct {
	Preview struct {
		LaunchesChanged []struct {
			Launch string `json:"launch"`
			From   string `json:"from"`
			To     string `json:"to"`
			Lines  int    `json:"lines"`
		} `json:"launches_changed"`
		LinesMatched int `json:"lines_matched"`
		Conflicts    []struct {
			Launch string `json:"launch"`
			Kind   string `json:"kind"`
			Alarm  int    `json:"alarm"`
		} `json:"conflicts"`
		LaunchesRead  int     `json:"launches_read"`
		BudgetSeconds float64 `json:"budget_seconds"`
		Truncated     bool    `json:"truncated"`
	} `json:"preview"`
	Fields map[string]string `json:"fields"`
}

func (b *testBundle) signaturePreview(token string, fields map[string]any, want int) previewView {
	b.t.Helper()
	body := map[string]any{"preview": true}
	for k, v := range fields {
		body[k] = v
	}
	fields = body
	r := b.do("POST", "/api/v1/signatures", "application/json", []byte(signatureBody(fields)), "Authorization", "Bearer "+token)
	if r.status != want {
		b.t.Fatalf("preview: %d %s, want %d", r.status, r.body, want)
	}
	var p previewView
	if err := json.Unmarshal(r.body, &p); err != nil {
		b.t.Fatal(err)
	}
	return p
}

// diffView is a reclassification's answer.
type diffView struct {
	Launch  string `json:"launch"`
	Preview bool   `json:"preview"`
	From    string `json:"from"`
	To      string `json:"to"`
	Added   []struct {
		No       int    `json:"no"`
		Headline string `json:"headline"`
	} `json:"added"`
	Removed []struct {
		WasNo     int    `json:"was_no"`
		State     string `json:"state"`
		DecidedBy string `json:"decided_by"`
	} `json:"removed"`
	Changed          []map[string]any `json:"changed"`
	Kept             int              `json:"kept"`
	DecisionsKept    int              `json:"decisions_kept"`
	DecisionsDropped int              `json:"decisions_dropped"`
	Classifier       string           `json:"classifier"`
	Signatures       []int64          `json:"signatures"`
}

func (b *testBundle) reclassify(key, token string, preview bool, want int) diffView {
	b.t.Helper()
	body := `{"preview":false}`
	if preview {
		body = `{"preview":true}`
	}
	r := b.do("POST", "/api/v1/launches/"+key+"/reclassify", "application/json", []byte(body), "Authorization", "Bearer "+token)
	if r.status != want {
		b.t.Fatalf("reclassify %s: %d %s, want %d", key, r.status, r.body, want)
	}
	var d diffView
	if want == 200 {
		if err := json.Unmarshal(r.body, &d); err != nil {
			b.t.Fatal(err)
		}
	}
	return d
}

func TestSignatureBacktest(t *testing.T) {
	t.Parallel()
	ready := map[string]any{"meaning": "ready", "matcher": "template", "pattern": acmeReadyTemplate, "scope": "server",
		"scope_value": "acme-serve", "reason": "acme-serve answers once its workers are warm"}

	t.Run("PreviewThenApplyToStored", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/acme-1/lines?server=acme-serve", acmeLoading)
		b.postText("/api/v1/launches/acme-2/lines?server=acme-serve", acmeLoading)
		b.postText("/api/v1/launches/other-1/lines?server=other", acmeLoading)
		p := b.signaturePreview(webtest.AdminToken, ready, 200)
		if len(p.Preview.LaunchesChanged) != 2 || p.Preview.LinesMatched != 2 || p.Preview.LaunchesRead != 2 ||
			p.Preview.BudgetSeconds <= 0 {
			t.Fatalf("preview %+v, want acme-1 and acme-2 (other-1 is out of scope)", p.Preview)
		}
		for _, l := range p.Preview.LaunchesChanged {
			if l.From != "loading" || l.To != "ready" || l.Lines != 1 {
				t.Errorf("%+v, want loading → ready", l)
			}
		}
		if list := b.apiJSON("GET", "/api/v1/signatures", webtest.AdminToken, "", 200)["signatures"].([]any); len(list) != 0 {
			t.Fatalf("a preview saved %v", list)
		}
		ready["apply_to_stored"] = true
		created := b.apiJSON("POST", "/api/v1/signatures", webtest.AdminToken, signatureBody(ready), 201)
		if re := created["reclassified"].([]any); len(re) != 2 {
			t.Errorf("reclassified %v", re)
		}
		for _, key := range []string{"acme-1", "acme-2"} {
			if l := b.launch(key); l.Status != "ready" || l.ReadySeq == nil || *l.ReadySeq != 4 {
				t.Errorf("%s %s at %v after apply_to_stored, want ready at line 4", key, l.Status, l.ReadySeq)
			}
			audit, err := b.store.AuditFor(context.Background(), "launch:"+key)
			if err != nil || len(audit) != 1 || audit[0].Action != "launch.reclassify" || audit[0].Detail["to"] != "ready" {
				t.Errorf("%s audit %+v %v", key, audit, err)
			}
		}
		if st := b.launch("other-1").Status; st != "loading" {
			t.Errorf("other-1 %s", st)
		}
		sig := created["signature"].(map[string]any)
		if ex := sig["examples"].([]any); len(ex) != 1 || ex[0] != acmeReadyLine {
			t.Errorf("examples %v", ex)
		}
		// Reclassified, they count the signature's hits.
		if s := b.apiJSON("GET", "/api/v1/signatures", webtest.AdminToken, "", 200)["signatures"].([]any)[0].(map[string]any); s["hits"] != 2.0 || s["launches"] != 2.0 {
			t.Errorf("hits %v in %v launches", s["hits"], s["launches"])
		}
	})

	t.Run("ConflictsWithPeoplesDecisions", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// An error the server survives, then a fatal line, in a launch a
		// person judged healthy: its fatal alarm dismissed.
		b.postText("/api/v1/launches/acme-1/lines?server=acme-serve", acmeLoading)
		fatal := map[string]any{"meaning": "fatal", "matcher": "substring", "pattern": "lost its heartbeat", "scope": "server",
			"scope_value": "acme-serve", "reason": "a lost worker takes the engine down"}
		b.apiJSON("POST", "/api/v1/signatures", webtest.AdminToken, signatureBody(fatal), 201)
		b.postText("/api/v1/launches/acme-1/lines?server=acme-serve", acmeFatalLine+"\n")
		if l := b.settled("acme-1"); l.Counts.Alarms != 1 {
			t.Fatalf("acme-1 has %d alarms", l.Counts.Alarms)
		}
		b.apiJSON("POST", "/api/v1/launches/acme-1/alarms/1/decision", webtest.AdminToken,
			`{"verdict":"dismiss","reason":"a drill: the worker was stopped on purpose"}`, 200)
		// An error signature on the dismissed alarm's line, and a fatal one
		// on another line of the launch a person judged healthy.
		p := b.signaturePreview(webtest.AdminToken, map[string]any{"meaning": "error", "matcher": "substring",
			"pattern": "lost its heartbeat", "scope": "server", "scope_value": "acme-serve", "reason": "survivable"}, 200)
		if len(p.Preview.Conflicts) != 1 || p.Preview.Conflicts[0].Kind != "dismissed_alarm" || p.Preview.Conflicts[0].Alarm != 1 {
			t.Errorf("error signature conflicts %+v", p.Preview.Conflicts)
		}
		p = b.signaturePreview(webtest.AdminToken, map[string]any{"meaning": "fatal", "matcher": "substring",
			"pattern": "engine warm", "scope": "server", "scope_value": "acme-serve", "reason": "nonsense"}, 200)
		if len(p.Preview.Conflicts) != 1 || p.Preview.Conflicts[0].Kind != "confirmed_healthy" || p.Preview.Conflicts[0].Launch != "acme-1" {
			t.Errorf("fatal signature conflicts %+v", p.Preview.Conflicts)
		}
	})

	t.Run("RefusesWhatMatchesNearlyEveryLine", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		var log strings.Builder
		for i := range 30 {
			log.WriteString("2026-11-29 10:00:00 acme-serve: tick " + itoa(int64(i)) + "\n")
		}
		b.postText("/api/v1/launches/acme-1/lines?server=acme-serve", log.String())
		p := b.signaturePreview(webtest.AdminToken, map[string]any{"meaning": "fatal", "matcher": "substring",
			"pattern": "acme-serve: tick", "scope": "server", "scope_value": "acme-serve", "reason": "x"}, 422)
		if !strings.Contains(p.Fields["pattern"], "30 of the 30 lines") {
			t.Errorf("refusal %v", p.Fields)
		}
		r := b.do("POST", "/api/v1/signatures", "application/json", []byte(signatureBody(map[string]any{"meaning": "fatal",
			"matcher": "substring", "pattern": "acme-serve: tick", "scope": "server", "scope_value": "acme-serve", "reason": "x"})))
		if r.status != 422 {
			t.Errorf("save: %d %s", r.status, r.body)
		}
	})

	t.Run("ApplyOverConfirmedAlarmsNeedsAnAdmin", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		traceback := "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\nRuntimeError: acme engine failed\n"
		b.postText("/api/v1/launches/acme-1/lines?server=acme-serve", acmeLoading+traceback)
		b.postText("/api/v1/launches/acme-2/lines?server=acme-serve", traceback+acmeLoading)
		b.settled("acme-1")
		b.settled("acme-2")
		b.apiJSON("POST", "/api/v1/launches/acme-1/alarms/1/decision", webtest.AdminToken, `{"verdict":"confirm"}`, 200)
		b.apiJSON("POST", "/api/v1/launches/acme-2/alarms/1/decision", webtest.AdminToken, `{"verdict":"confirm"}`, 200)
		reviewer := b.srv.NewToken(t, "review")
		body := map[string]any{"meaning": "ready", "matcher": "template", "pattern": acmeReadyTemplate, "scope": "server",
			"scope_value": "acme-serve", "reason": "warm", "apply_to_stored": true}
		p := b.signaturePreview(reviewer, body, 200)
		changed := map[string]string{}
		for _, l := range p.Preview.LaunchesChanged {
			changed[l.Launch] = l.From + " → " + l.To
		}
		// acme-1 was ready before its crash; acme-2's confirmed failure
		// came before its ready line: the server survived it (a confirmed
		// alarm, not fatal), and the signature contradicts the person.
		if changed["acme-1"] != "crashed → ready_then_crashed" || changed["acme-2"] != "crashed → ready" {
			t.Errorf("changed %v", changed)
		}
		if len(p.Preview.Conflicts) != 1 || p.Preview.Conflicts[0].Kind != "confirmed_crash" || p.Preview.Conflicts[0].Launch != "acme-2" {
			t.Errorf("conflicts %+v", p.Preview.Conflicts)
		}
		r := b.do("POST", "/api/v1/signatures", "application/json", []byte(signatureBody(body)), "Authorization", "Bearer "+reviewer)
		if r.status != 403 || !strings.Contains(string(r.body), "acme-1") {
			t.Errorf("reviewer applying over a confirmed alarm: %d %s", r.status, r.body)
		}
		if list := b.apiJSON("GET", "/api/v1/signatures", reviewer, "", 200)["signatures"].([]any); len(list) != 0 {
			t.Errorf("the refused signature was saved: %v", list)
		}
		b.apiJSON("POST", "/api/v1/signatures", webtest.AdminToken, signatureBody(body), 201)
		if l := b.launch("acme-1"); l.Status != "crashed" || l.ReadySeq == nil || *l.ReadySeq != 4 {
			t.Errorf("acme-1 %s ready at %v", l.Status, l.ReadySeq)
		}
		if a := b.alarm("acme-2", 1); a.State != "confirmed" || a.Fatal {
			t.Errorf("acme-2's alarm %+v, want still confirmed, survived", a)
		}
	})
}

func TestReclassify(t *testing.T) {
	t.Parallel()

	t.Run("KeepsAConfirmedDecisionWhenTheAlarmPersists", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		log := strings.Replace(crashingLog, "\n", "\n[2026-11-29 10:00:03] metrics: optional exporter failed to start\n", 1)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", log)
		b.settled("crash-1")
		b.apiJSON("POST", "/api/v1/launches/crash-1/alarms/1/decision", webtest.AdminToken, `{"verdict":"confirm","reason":"real OOM"}`, 200)
		if st := b.launch("crash-1").Status; st != "crashed" {
			t.Fatalf("crash-1 %s", st)
		}
		// Nothing changed since: reclassifying keeps everything.
		d := b.reclassify("crash-1", webtest.AdminToken, true, 200)
		if d.From != "crashed" || d.To != "crashed" || len(d.Added)+len(d.Removed)+len(d.Changed) != 0 || d.Kept != 1 || d.DecisionsKept != 1 {
			t.Fatalf("unchanged launch: %+v", d)
		}
		// A taught error before the traceback: a new alarm 1, the OOM
		// becomes alarm 2 and keeps its confirmation.
		b.apiJSON("POST", "/api/v1/signatures", webtest.AdminToken, signatureBody(map[string]any{"meaning": "error",
			"matcher": "substring", "pattern": "optional exporter failed", "scope": "server", "scope_value": "sglang",
			"reason": "test: make an alarm before the OOM"}), 201)
		d = b.reclassify("crash-1", webtest.AdminToken, true, 200)
		if !d.Preview || len(d.Added) != 1 || d.Added[0].No != 1 || d.Kept != 1 || d.DecisionsKept != 1 || d.From != "crashed" || d.To != "crashed" ||
			len(d.Signatures) != 1 || d.Classifier == "" {
			t.Fatalf("preview %+v", d)
		}
		if a := b.alarm("crash-1", 1); a.State != "confirmed" || !strings.Contains(a.Headline, "OutOfMemoryError") {
			t.Fatalf("the preview changed the launch: %+v", a)
		}
		applied := b.reclassify("crash-1", b.srv.NewToken(t, "review"), false, 200)
		if applied.Preview || len(applied.Added) != 1 || applied.Kept != 1 || applied.To != "crashed" {
			t.Fatalf("applied %+v", applied)
		}
		oom := b.alarm("crash-1", 2)
		if oom.State != "confirmed" || oom.DecidedBy == nil || *oom.DecidedBy == "" || oom.Reason == nil || *oom.Reason != "real OOM" ||
			!strings.Contains(oom.Headline, "OutOfMemoryError") {
			t.Errorf("the OOM after reclassification: %+v", oom)
		}
		if a := b.alarm("crash-1", 1); a.State != "open" || a.Fatal {
			t.Errorf("the taught error: %+v", a)
		}
		audit, err := b.store.AuditFor(context.Background(), review.Subject("crash-1", 2))
		if err != nil || len(audit) != 1 || audit[0].Action != "alarm.reclassify" || audit[0].Detail["was_no"] != 1.0 {
			t.Errorf("audit of alarm 2: %+v %v", audit, err)
		}
		if audit, _ := b.store.AuditFor(context.Background(), review.Subject("crash-1", 1)); len(audit) != 1 || audit[0].Action != "alarm.confirm" {
			t.Errorf("the confirmation's own record moved: %+v", audit)
		}
		// Line verdicts follow the new numbering.
		for _, l := range b.lines("crash-1") {
			if strings.Contains(l.Text, "OutOfMemoryError") && (l.Alarm == nil || *l.Alarm != 2) {
				t.Errorf("OOM line %+v", l)
			}
		}
		// A second reclassification changes nothing.
		if d := b.reclassify("crash-1", webtest.AdminToken, false, 200); len(d.Added)+len(d.Removed)+len(d.Changed) != 0 || d.DecisionsKept != 1 {
			t.Errorf("again: %+v", d)
		}
	})

	t.Run("VanishedAlarmsKeepTheirHistory", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		created := b.apiJSON("POST", "/api/v1/signatures", webtest.AdminToken, signatureBody(map[string]any{"meaning": "fatal",
			"matcher": "substring", "pattern": "lost its heartbeat", "scope": "server", "scope_value": "acme-serve",
			"reason": "a lost worker takes the engine down"}), 201)
		b.postText("/api/v1/launches/acme-1/lines?server=acme-serve", acmeLoading+acmeFatalLine+"\n")
		b.postText("/api/v1/launches/acme-2/lines?server=acme-serve", acmeLoading+acmeFatalLine+"\n")
		b.settled("acme-1")
		b.settled("acme-2")
		b.apiJSON("POST", "/api/v1/launches/acme-1/alarms/1/decision", webtest.AdminToken, `{"verdict":"dismiss","reason":"drill"}`, 200)
		b.apiJSON("POST", "/api/v1/launches/acme-2/alarms/1/decision", webtest.AdminToken, `{"verdict":"confirm"}`, 200)
		b.apiJSON("PATCH", "/api/v1/signatures/"+itoa(int64(created["id"].(float64))), webtest.AdminToken, `{"enabled":false}`, 200)
		d := b.reclassify("acme-1", webtest.AdminToken, false, 200)
		if len(d.Removed) != 1 || d.Removed[0].State != "dismissed" || d.Removed[0].DecidedBy == "" || d.DecisionsDropped != 1 ||
			d.From != "loading" || d.To != "loading" {
			t.Fatalf("diff %+v", d)
		}
		if l := b.launch("acme-1"); l.Counts.Alarms != 0 || l.Status != "loading" {
			t.Errorf("acme-1 %s with %d alarms", l.Status, l.Counts.Alarms)
		}
		audit, err := b.store.AuditFor(context.Background(), review.Subject("acme-1", 1))
		if err != nil || len(audit) != 2 || audit[0].Action != "alarm.dismiss" || audit[1].Action != "alarm.reclassify" ||
			audit[1].Detail["outcome"] != "vanished" {
			t.Errorf("history of the vanished alarm: %+v %v", audit, err)
		}
		// Dropping a person's confirmation is an admin's call.
		b.reclassify("acme-2", b.srv.NewToken(t, "review"), false, 403)
		if d := b.reclassify("acme-2", b.srv.NewToken(t, "review"), true, 200); len(d.Removed) != 1 {
			t.Errorf("a reviewer's preview %+v", d)
		}
		if d := b.reclassify("acme-2", webtest.AdminToken, false, 200); len(d.Removed) != 1 || d.To != "loading" {
			t.Errorf("admin %+v", d)
		}
		b.reclassify("nope", webtest.AdminToken, true, 404)
		if r := b.do("POST", "/api/v1/launches/acme-2/reclassify", "", nil); r.status != 200 {
			t.Errorf("no body (apply): %d %s", r.status, r.body)
		}
		if r := b.do("POST", "/api/v1/launches/acme-2/reclassify", "application/json", []byte(`{"preview":"yes"}`)); r.status != 400 {
			t.Errorf("bad body: %d", r.status)
		}
	})
}
