package notify_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/decode"
	"launchwatch/internal/launchid"
	"launchwatch/internal/notify"
	"launchwatch/internal/review"
)

// pagesAndUpdates splits what a receiver got: messages that page, and
// messages that update a page — in JSON those that say which page they
// update, in Slack's text those that begin with "↳ Update:" or
// "✅ Resolved:", in Alertmanager's payload an alert whose fingerprint an
// earlier message had (Alertmanager's receivers take it as the same alert).
func pagesAndUpdates(got []delivery, format string) (pages, updates []delivery) {
	seen := map[any]bool{}
	for _, d := range got {
		isUpdate := false
		switch format {
		case "json":
			_, isUpdate = d.body["updates"]
		case "slack":
			text, _ := d.body["text"].(string)
			isUpdate = strings.HasPrefix(text, "↳ Update: ") || strings.HasPrefix(text, "✅ Resolved: ")
		case "alertmanager":
			_, _, a := amAlertOf(d)
			isUpdate = seen[a["fingerprint"]]
			seen[a["fingerprint"]] = true
		}
		if isUpdate {
			updates = append(updates, d)
		} else {
			pages = append(pages, d)
		}
	}
	return pages, updates
}

func amAlertOf(d delivery) (labels, ann map[string]any, alert map[string]any) {
	a := d.body["alerts"].([]any)[0].(map[string]any)
	return a["labels"].(map[string]any), a["annotations"].(map[string]any), a
}

// TestOnePagePerFatalEvent: with the default events (alarm and crashed),
// a launch whose fatal alarm is confirmed — alarm, then crashed — pages
// each real receiver once: the crash is an update of the alarm's page (the
// same key in JSON, the same alert in Alertmanager's payload, an "Update:"
// in Slack), while a target that asked for crashes only is paged by the
// crash. A launch that crashes at once pages once; a new fatal alarm after
// a dismissal is a new fatal event and pages again.
func TestOnePagePerFatalEvent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	formats := []string{"json", "alertmanager", "slack"}
	rcv := map[string]*receiver{}
	for _, f := range formats {
		rcv[f] = newReceiver(t, 0)
		b.hook(t, rcv[f].srv.URL, f, "alarm", "crashed") // the admin form's default events
	}
	crashOnly := newReceiver(t, 0)
	b.hook(t, crashOnly.srv.URL, "json", "crashed")
	work := func() {
		t.Helper()
		if _, err := b.worker(t, notify.Config{}).Work(b.ctx); err != nil {
			t.Fatal(err)
		}
	}
	decide := func(key, verdict string) {
		t.Helper()
		if _, err := review.Decide(b.ctx, b.st, review.Decision{LaunchKey: key, AlarmNo: 1, Verdict: verdict, Actor: "ada",
			Reason: "checked the node"}); err != nil {
			t.Fatal(err)
		}
	}

	// Alarm, then a person confirms it: crashed.
	b.shipFatal(t, "demo-confirm")
	work()
	decide("demo-confirm", review.Confirm)
	work()
	for _, f := range formats {
		got := rcv[f].deliveries()
		pages, updates := pagesAndUpdates(got, f)
		if len(got) != 2 || len(pages) != 1 || len(updates) != 1 || pages[0].event != "alarm" || updates[0].event != "crashed" {
			t.Fatalf("%s receiver: %d pages and %d updates (%+v), want the alarm's page and the crash's update", f, len(pages), len(updates), got)
		}
		page, upd := pages[0], updates[0]
		switch f {
		case "json":
			if page.body["key"] == nil || page.body["key"] != upd.body["key"] {
				t.Errorf("json: keys %v and %v, want the same", page.body["key"], upd.body["key"])
			}
			if u := upd.body["updates"].(map[string]any); u["event"] != "alarm" || upd.body["status"] != "crashed" {
				t.Errorf("json update: %s", upd.raw)
			}
		case "alertmanager":
			pl, _, pa := amAlertOf(page)
			ul, uann, ua := amAlertOf(upd)
			if pa["fingerprint"] != ua["fingerprint"] || page.body["groupKey"] != upd.body["groupKey"] ||
				pl["alertname"] != "LaunchFatalAlarm" || ul["alertname"] != "LaunchFatalAlarm" || pa["startsAt"] != ua["startsAt"] {
				t.Errorf("alertmanager: the update is another alert:\n%s\n%s", page.raw, upd.raw)
			}
			if uann["status"] != "crashed" || ua["status"] != "firing" {
				t.Errorf("alertmanager update: %s", upd.raw)
			}
		case "slack":
			if text := upd.body["text"].(string); !strings.HasPrefix(text, "↳ Update: launch demo-confirm crashed") {
				t.Errorf("slack update %q", text)
			}
		}
	}
	if got := crashOnly.deliveries(); len(got) != 1 || got[0].event != "crashed" || got[0].body["updates"] != nil {
		t.Fatalf("crashes-only receiver: %+v, want one crash page", got)
	}

	// A crash with no alarm before it pages once.
	b.crash(t, "demo-direct")
	work()
	for _, f := range formats {
		pages, updates := pagesAndUpdates(rcv[f].deliveries()[2:], f)
		if len(pages) != 1 || len(updates) != 0 || pages[0].event != "crashed" {
			t.Errorf("%s receiver after a direct crash: %d pages, %d updates", f, len(pages), len(updates))
		}
	}

	// An alarm dismissed, then a new fatal alarm: two fatal events, two pages.
	b.shipFatal(t, "demo-again")
	work()
	decide("demo-again", review.Dismiss)
	more := []decode.Line{
		{Seq: 6, Text: "INFO engine: restarting the scheduler"},
		{Seq: 7, Text: "Traceback (most recent call last):"},
		{Seq: 8, Text: `  File "/opt/engine/step.py", line 91, in forward`},
		{Seq: 9, Text: "RuntimeError: CUDA error: unspecified launch failure"},
		{Seq: 10, Text: "INFO engine: scheduler process exited"},
	}
	if _, err := b.pipe.Ingest(b.ctx, "demo-again", launchid.Attrs{Server: "sglang"}, more); err != nil {
		t.Fatal(err)
	}
	b.clock.Advance(b.pipe.SettleAfter())
	l, err := b.st.LaunchByKey(b.ctx, "demo-again")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.pipe.AwaitSettled(b.ctx, l); err != nil {
		t.Fatal(err)
	}
	work()
	got := rcv["json"].deliveries()[3:]
	if len(got) != 2 || got[0].event != "alarm" || got[1].event != "alarm" || got[0].body["key"] == got[1].body["key"] {
		t.Errorf("json receiver for a dismissed alarm and a new one: %+v, want two pages with their own keys", got)
	}

	// Its second alarm dismissed too, then a third traceback that the exit
	// report settles and records as a crash in one transaction: a new fatal
	// event (its alarm never announced), not an update of a dismissed page.
	l, err = b.st.LaunchByKey(b.ctx, "demo-again")
	if err != nil {
		t.Fatal(err)
	}
	alarms, err := b.st.Alarms(b.ctx, l.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := review.Decide(b.ctx, b.st, review.Decision{LaunchKey: "demo-again", AlarmNo: alarms[len(alarms)-1].No,
		Verdict: review.Dismiss, Actor: "ada", Reason: "a drill"}); err != nil {
		t.Fatal(err)
	}
	last := []decode.Line{
		{Seq: 11, Text: "Traceback (most recent call last):"},
		{Seq: 12, Text: `  File "/opt/engine/boot.py", line 17, in start`},
		{Seq: 13, Text: "RuntimeError: widget pool exhausted on device 3"},
	}
	if _, err := b.pipe.Ingest(b.ctx, "demo-again", launchid.Attrs{Server: "sglang"}, last); err != nil {
		t.Fatal(err)
	}
	one := 1
	if _, err := b.pipe.Exit(b.ctx, "demo-again", &one, "", false); err != nil {
		t.Fatal(err)
	}
	work()
	if got := rcv["json"].deliveries()[5:]; len(got) != 1 || got[0].event != "crashed" || got[0].body["updates"] != nil {
		t.Errorf("json receiver for a crash after dismissed alarms: %+v, want a page", got)
	}
	for _, f := range formats {
		pages, _ := pagesAndUpdates(rcv[f].deliveries(), f)
		if len(pages) != 5 {
			t.Errorf("%s receiver: %d pages for 5 fatal events", f, len(pages))
		}
	}
}

// TestRenderRecoveryResolvesThePage: a recovery after an alarm (ready
// from alarm) is rendered as the page's resolution: the same alert,
// resolved, in Alertmanager's payload; "Resolved:" in Slack's text.
func TestRenderRecoveryResolvesThePage(t *testing.T) {
	t.Parallel()
	paged := time.Date(2031, 3, 4, 10, 1, 30, 0, time.UTC)
	m := notify.Message{Event: "ready", Launch: "demo-back", Status: "ready", Key: "launch/demo-back/fatal/7",
		Update: &notify.PageRef{Event: "alarm", At: paged}, At: paged.Add(5 * time.Minute), Summary: "launch demo-back is ready"}
	am, err := notify.Render("alertmanager", m)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Status string `json:"status"`
		Alerts []struct {
			Status   string            `json:"status"`
			Labels   map[string]string `json:"labels"`
			StartsAt time.Time         `json:"startsAt"`
			EndsAt   time.Time         `json:"endsAt"`
		} `json:"alerts"`
	}
	if err := json.Unmarshal([]byte(am), &p); err != nil {
		t.Fatal(err)
	}
	a := p.Alerts[0]
	if p.Status != "resolved" || a.Status != "resolved" || a.Labels["alertname"] != "LaunchFatalAlarm" || a.Labels["episode"] != "7" ||
		a.Labels["severity"] != "critical" || !a.StartsAt.Equal(paged) || !a.EndsAt.Equal(m.At) {
		t.Errorf("alertmanager: %s", am)
	}
	slack, err := notify.Render("slack", m)
	if err != nil || !strings.Contains(slack, `"text":"✅ Resolved: launch demo-back is ready`) {
		t.Errorf("slack: %s (%v)", slack, err)
	}
}
