package web_test

import (
	"testing"
)

// These tests check that ingest stores the classifier's verdicts with the
// lines, whatever the batch boundaries; the classifier's own judgement is
// tested in internal/classify.
func TestIngestClassifiesLines(t *testing.T) {
	t.Parallel()

	traceback := []string{
		"Traceback (most recent call last):",
		`  File "/srv/app.py", line 12, in <module>`,
		"    load()",
		"KeyError: 'model.layers.0.weight'",
	}

	t.Run("TracebackAcrossBatchesIsOneAlarm", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/tb/lines?server=vllm", "[2026-04-02 09:28:20] starting\n"+traceback[0]+"\n"+traceback[1]+"\n")
		b.postText("/api/v1/launches/tb/lines", traceback[2]+"\n")
		// The line after the exception has a log prefix: untagged lines right
		// after an exception line read as the rest of its message.
		b.postText("/api/v1/launches/tb/lines", traceback[3]+"\n[2026-04-02 09:28:30] after\n")
		l := b.launch("tb")
		if l.Counts.Alarms != 1 {
			t.Fatalf("alarms = %d, want 1", l.Counts.Alarms)
		}
		lines := b.lines("tb")
		for _, ln := range lines {
			inTraceback := ln.Seq >= 2 && ln.Seq <= 5
			if inTraceback && (ln.Alarm == nil || *ln.Alarm != 1 || ln.Kind != "error") {
				t.Errorf("line %d %q: kind %s alarm %v, want error in alarm 1", ln.Seq, ln.Text, ln.Kind, ln.Alarm)
			}
			if !inTraceback && ln.Alarm != nil {
				t.Errorf("line %d %q is in alarm %d", ln.Seq, ln.Text, *ln.Alarm)
			}
		}
		alarms, err := b.store.Alarms(t.Context(), launchID(t, b, "tb"))
		if err != nil {
			t.Fatal(err)
		}
		if len(alarms) != 1 || alarms[0].Headline != traceback[3] || alarms[0].HeadlineSeq != 5 ||
			alarms[0].FirstSeq != 2 || alarms[0].LastSeq != 5 || alarms[0].State != "open" {
			t.Errorf("alarms = %+v", alarms)
		}
	})

	t.Run("ReadyLineMakesTheLaunchReady", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/ok/lines?server=sglang", "loading\n")
		ack := b.postText("/api/v1/launches/ok/lines", "[2026-04-02 09:28:25] The server is fired up and ready to roll!\n")
		if ack.Status != "ready" {
			t.Errorf("status = %q, want ready", ack.Status)
		}
		l := b.launch("ok")
		if l.Status != "ready" || l.ReadySeq == nil || *l.ReadySeq != 2 {
			t.Errorf("launch status %q ready_seq %v, want ready at 2", l.Status, l.ReadySeq)
		}
		if lines := b.lines("ok"); lines[1].Kind != "ready" {
			t.Errorf("ready line kind = %q", lines[1].Kind)
		}
	})
}

func launchID(t *testing.T, b *testBundle, key string) int64 {
	t.Helper()
	l, err := b.store.LaunchByKey(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	return l.ID
}
