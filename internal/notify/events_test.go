package notify_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/decode"
	"launchwatch/internal/incident"
	"launchwatch/internal/launchid"
	"launchwatch/internal/notify"
	"launchwatch/internal/store"
)

// An exit report that settles a traceback (alarm) and records the exit
// code (crashed) in one transaction announces the crash alone, once; a
// second exit report announces nothing.
func TestCrashAnnouncedOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, 0)
	h := b.hook(t, rcv.srv.URL, "json", "alarm", "crashed", "ready")
	b.crash(t, "demo-once")
	two := 2
	if _, err := b.pipe.Exit(b.ctx, "demo-once", &two, "", false); err != nil {
		t.Fatal(err)
	}
	if _, err := b.worker(t, notify.Config{}).Work(b.ctx); err != nil {
		t.Fatal(err)
	}
	got := rcv.deliveries()
	if len(got) != 1 || got[0].body["event"] != "crashed" {
		t.Fatalf("deliveries = %+v, want one crashed", got)
	}
	if log := b.deliveryLog(t, h.ID); len(log) != 1 || log[0].LaunchKey != "demo-once" || log[0].Kind != "crashed" {
		t.Errorf("log = %+v", log)
	}
}

// A launch that reaches its ready line is announced ready, and one whose
// settled fatal alarm opens while it runs is announced as alarm.
func TestReadyAndAlarmAnnounced(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, 0)
	b.hook(t, rcv.srv.URL, "json", "alarm", "ready")
	lines := []decode.Line{
		{Seq: 1, Text: "[2031-03-04 10:00:01] INFO engine: loading model acme/tiny-demo-7b"},
		{Seq: 2, Text: "[2031-03-04 10:00:09] INFO:     Application startup complete."},
	}
	if _, err := b.pipe.Ingest(b.ctx, "demo-ready", launchid.Attrs{Server: "vllm"}, lines); err != nil {
		t.Fatal(err)
	}
	if _, err := b.worker(t, notify.Config{}).Work(b.ctx); err != nil {
		t.Fatal(err)
	}
	got := rcv.deliveries()
	if len(got) != 1 || got[0].body["event"] != "ready" || got[0].body["launch"] != "demo-ready" || got[0].body["server"] != "vllm" {
		t.Fatalf("deliveries = %+v, want one ready", got)
	}
	b.shipFatal(t, "demo-alarm")
	if _, err := b.worker(t, notify.Config{}).Work(b.ctx); err != nil {
		t.Fatal(err)
	}
	got = rcv.deliveries()
	if len(got) != 2 || got[1].body["event"] != "alarm" || got[1].body["launch"] != "demo-alarm" ||
		!strings.Contains(got[1].body["headline"].(string), "CUDA error: an illegal memory access") {
		t.Fatalf("deliveries = %+v, want ready then alarm", got)
	}
}

// shipFatal ships a crash that no exit report follows, and moves the clock
// past the settle bound so the settler would count it.
func (b *testBundle) shipFatal(t *testing.T, key string) {
	t.Helper()
	lines := []decode.Line{
		{Seq: 1, Text: "INFO engine: loading model acme/tiny-demo-7b"},
		{Seq: 2, Text: "Traceback (most recent call last):"},
		{Seq: 3, Text: `  File "/opt/engine/step.py", line 88, in forward`},
		{Seq: 4, Text: "RuntimeError: CUDA error: an illegal memory access was encountered"},
		{Seq: 5, Text: "INFO engine: scheduler process exited"},
	}
	if _, err := b.pipe.Ingest(b.ctx, key, launchid.Attrs{Server: "sglang"}, lines); err != nil {
		t.Fatal(err)
	}
	b.clock.Advance(b.pipe.SettleAfter())
	l, err := b.st.LaunchByKey(b.ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.pipe.AwaitSettled(b.ctx, l); err != nil {
		t.Fatal(err)
	}
}

// A launch not heard from for --silent-after is announced silent once per
// silence: again only after it was heard and fell silent again.
func TestSilentOncePerSilence(t *testing.T) {
	t.Parallel()
	b := setup(t)
	rcv := newReceiver(t, 0)
	b.hook(t, rcv.srv.URL, "slack", "silent")
	ship := func(seq int64) {
		t.Helper()
		if _, err := b.pipe.Ingest(b.ctx, "demo-quiet", launchid.Attrs{Server: "sglang"},
			[]decode.Line{{Seq: seq, Text: "INFO engine: loading weights shard " + string(rune('0'+seq)) + "/8"}}); err != nil {
			t.Fatal(err)
		}
	}
	work := func() {
		t.Helper()
		if _, err := b.worker(t, notify.Config{SilentAfter: time.Minute}).Work(b.ctx); err != nil {
			t.Fatal(err)
		}
	}
	ship(1)
	b.clock.Advance(59 * time.Second)
	work()
	if n := len(rcv.deliveries()); n != 0 {
		t.Fatalf("%d deliveries before --silent-after passed", n)
	}
	b.clock.Advance(2 * time.Second)
	work()
	b.clock.Advance(10 * time.Minute)
	work()
	got := rcv.deliveries()
	if len(got) != 1 || !strings.Contains(got[0].body["text"].(string), "demo-quiet went silent") ||
		!strings.Contains(got[0].body["text"].(string), "<https://launchwatch.example.org/launches/demo-quiet|Launch demo-quiet>") {
		t.Fatalf("deliveries = %+v, want one silent", got)
	}
	ship(2)
	b.clock.Advance(2 * time.Minute)
	work()
	if n := len(rcv.deliveries()); n != 2 {
		t.Fatalf("%d deliveries after a second silence, want 2", n)
	}
}

// Incidents are announced when opened and resolved, to targets whose
// server or label matches one of their launches, naming every launch.
func TestIncidentOpenedAndResolved(t *testing.T) {
	t.Parallel()
	b := setup(t)
	infra, other := newReceiver(t, 0), newReceiver(t, 0)
	b.hook(t, infra.srv.URL, "alertmanager", "incident")
	if _, err := b.st.CreateWebhook(b.ctx, store.Webhook{URL: other.srv.URL, Format: "json", Events: []string{"incident"},
		Server: "vllm", CreatedBy: "test", CreatedAt: b.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	b.crash(t, "demo-inc-a")
	if _, err := b.pipe.Ingest(b.ctx, "demo-inc-b", launchid.Attrs{Server: "sglang"}, []decode.Line{{Seq: 1, Text: "INFO engine: up"}}); err != nil {
		t.Fatal(err)
	}
	id, err := incident.Open(b.ctx, b.st, incident.New{Title: "widget pool exhausted", Severity: "sev2",
		Launches: []string{"demo-inc-a", "demo-inc-b"}}, "ada")
	if err != nil {
		t.Fatal(err)
	}
	resolved := "resolved"
	if err := incident.Apply(b.ctx, b.st, id, incident.Change{Status: &resolved}, "ada"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.worker(t, notify.Config{}).Work(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(other.deliveries()); n != 0 {
		t.Errorf("the vllm-only target got %d deliveries of an sglang incident", n)
	}
	got := infra.deliveries()
	if len(got) != 2 {
		t.Fatalf("%d deliveries, want opened and resolved", len(got))
	}
	for i, status := range []string{"firing", "resolved"} {
		p := got[i].body
		alerts := p["alerts"].([]any)
		a := alerts[0].(map[string]any)
		labels := a["labels"].(map[string]any)
		ann := a["annotations"].(map[string]any)
		if p["version"] != "4" || p["status"] != status || a["status"] != status || labels["alertname"] != "LaunchwatchIncident" ||
			labels["launch"] != "demo-inc-a" || labels["severity"] != "sev2" || ann["launches"] != "demo-inc-a, demo-inc-b" ||
			!strings.HasSuffix(a["generatorURL"].(string), "/incidents/"+strconv.FormatInt(id, 10)) {
			t.Errorf("delivery %d = %s", i, got[i].raw)
		}
	}
}
