package compare_test

import (
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/compare"
	"launchwatch/internal/store"
	"launchwatch/internal/templates"
)

// summary builds a template summary from made-up lines, as ingest would.
func summary(lines ...templates.LineTemplate) store.TemplateSummary {
	for i := range lines {
		tmpl, noise := classify.LineTemplate(lines[i].Sample)
		lines[i].Template, lines[i].Noise, lines[i].Hash = tmpl, noise, templates.Hash(tmpl)
		if lines[i].Count == 0 {
			lines[i].Count = 1
		}
	}
	return store.TemplateSummary{Templates: lines}
}

func TestNewIn(t *testing.T) {
	t.Parallel()

	t.Run("RankedBySeverityThenFirstLine", func(t *testing.T) {
		t.Parallel()
		a := summary(templates.LineTemplate{Sample: "boot: reading settings from /etc/acme.toml", FirstSeq: 1})
		b := summary(
			templates.LineTemplate{Sample: "boot: reading settings from /etc/other.toml", FirstSeq: 1},
			templates.LineTemplate{Sample: "Compiling:  40%|████      | 4/10", FirstSeq: 2, Count: 900},
			templates.LineTemplate{Sample: "planner: 7 experts idle", FirstSeq: 3, Count: 500},
			templates.LineTemplate{Sample: "WARNING cache dir is not writable", FirstSeq: 4, Severity: templates.SeverityWarning},
			templates.LineTemplate{Sample: "  File \"/srv/acme/plan.py\", line 9, in plan", FirstSeq: 5, Severity: templates.SeverityError},
			templates.LineTemplate{Sample: "        ^^^^^^^^", FirstSeq: 6, Severity: templates.SeverityError, Count: 4},
			templates.LineTemplate{Sample: "KeyError: 'expert_17'", FirstSeq: 7, Severity: templates.SeverityError},
			templates.LineTemplate{Sample: "CRITICAL watchdog: worker 3 unresponsive", FirstSeq: 8, Severity: templates.SeverityCritical},
		)
		heads := []store.AlarmHeadline{{No: 1, Fatal: true, Seq: 7, Text: "KeyError: 'expert_17'"}}
		got := compare.NewIn(b, heads, a)
		want := []struct {
			tier   compare.Tier
			sample string
		}{
			{compare.RootCause, "KeyError: 'expert_17'"},
			{compare.Critical, "CRITICAL watchdog: worker 3 unresponsive"},
			{compare.Error, "  File \"/srv/acme/plan.py\", line 9, in plan"},
			{compare.Warning, "WARNING cache dir is not writable"},
			{compare.Other, "planner: 7 experts idle"},
			{compare.Noise, "Compiling:  40%|████      | 4/10"},
		}
		if len(got) != len(want) {
			t.Fatalf("got %d entries, want %d: %+v", len(got), len(want), got)
		}
		for i, w := range want {
			if got[i].Tier != w.tier || got[i].Sample != w.sample {
				t.Errorf("entry %d: %s %q, want %s %q", i, got[i].Tier, got[i].Sample, w.tier, w.sample)
			}
		}
		if n := got[len(got)-1]; n.Count != 904 || n.Templates != 2 || n.FirstSeq != 2 {
			t.Errorf("noise entry: %d lines of %d templates from seq %d, want 904 of 2 from 2", n.Count, n.Templates, n.FirstSeq)
		}
	})

	t.Run("HeadlineDroppedByTheCapStillLeads", func(t *testing.T) {
		t.Parallel()
		b := summary(templates.LineTemplate{Sample: "ERROR something else", FirstSeq: 3, Severity: templates.SeverityError})
		b.Evicted = 12
		heads := []store.AlarmHeadline{{No: 2, Fatal: true, Seq: 90, Text: "OSError: disk quota exceeded"}}
		got := compare.NewIn(b, heads, summary())
		if len(got) != 2 || got[0].Tier != compare.RootCause || got[0].FirstSeq != 90 {
			t.Fatalf("entries %+v, want the headline first", got)
		}
	})

	t.Run("SameErrorInBothIsNotNew", func(t *testing.T) {
		t.Parallel()
		line := templates.LineTemplate{Sample: "RuntimeError: probe 4 failed", FirstSeq: 2, Severity: templates.SeverityError}
		heads := []store.AlarmHeadline{{No: 1, Fatal: true, Seq: 2, Text: "RuntimeError: probe 9 failed"}}
		if got := compare.NewIn(summary(line), heads, summary(line)); len(got) != 0 {
			t.Errorf("entries %+v, want none", got)
		}
	})
}

func TestConfig(t *testing.T) {
	t.Parallel()
	changed, same := compare.Config(
		map[string]string{"tp": "2", "max_len": "4096", "gone": "x"},
		map[string]string{"tp": "2", "max_len": "65536", "new": "y"})
	if len(same) != 1 || same[0].Key != "tp" {
		t.Errorf("same %+v, want tp", same)
	}
	var keys []string
	for _, c := range changed {
		keys = append(keys, c.Key)
	}
	if len(keys) != 3 || keys[0] != "gone" || keys[1] != "max_len" || keys[2] != "new" {
		t.Errorf("changed %v, want gone, max_len, new", keys)
	}
}

func TestNewInHeadlineLeadsItsTier(t *testing.T) {
	t.Parallel()
	b := summary(
		templates.LineTemplate{Sample: "Traceback (most recent call last):", FirstSeq: 10, Severity: templates.SeverityError},
		templates.LineTemplate{Sample: "OSError: socket closed", FirstSeq: 12, Severity: templates.SeverityError},
	)
	heads := []store.AlarmHeadline{{No: 1, Seq: 12, Text: "OSError: socket closed"}} // not fatal: the server lives on
	got := compare.NewIn(b, heads, summary())
	if len(got) != 2 || got[0].Sample != "OSError: socket closed" || got[0].Tier != compare.Error {
		t.Errorf("entries %+v, want the alarm's headline first", got)
	}
}

// TestNewInOneEntryPerEvent: a traceback's frames are not an entry each —
// they are one entry, its headline's, holding them; a dismissed alarm's
// event is folded too but does not lead, and an event whose headline the
// other launch has too is led by its first new line and says so.
func TestNewInOneEntryPerEvent(t *testing.T) {
	t.Parallel()
	var lines []templates.LineTemplate
	lines = append(lines, templates.LineTemplate{Sample: "Scheduler hit an exception: Traceback (most recent call last):", FirstSeq: 10, Severity: templates.SeverityError})
	for i := range 60 {
		lines = append(lines, templates.LineTemplate{Sample: "  File \"/sgl/srt/mod.py\", line 9, in step_" + string(rune('a'+i%26)) + string(rune('a'+i/26)),
			FirstSeq: int64(11 + i), Severity: templates.SeverityError})
	}
	lines = append(lines,
		templates.LineTemplate{Sample: "torch.OutOfMemoryError: CUDA out of memory.", FirstSeq: 71, Severity: templates.SeverityError},
		templates.LineTemplate{Sample: "WARNING slow tokenizer", FirstSeq: 80, Severity: templates.SeverityWarning},
		templates.LineTemplate{Sample: "Exception in probe: Traceback (most recent call last):", FirstSeq: 90, Severity: templates.SeverityError},
		templates.LineTemplate{Sample: "RuntimeError: probe unavailable", FirstSeq: 92, Severity: templates.SeverityError},
		templates.LineTemplate{Sample: "  File \"/sgl/srt/retry.py\", line 3, in retry", FirstSeq: 101, Severity: templates.SeverityError},
	)
	b := summary(lines...)
	a := summary(templates.LineTemplate{Sample: "ValueError: bad batch", FirstSeq: 5, Severity: templates.SeverityError})
	heads := []store.AlarmHeadline{
		{No: 1, Fatal: true, Seq: 71, FirstSeq: 10, LastSeq: 71, Text: "torch.OutOfMemoryError: CUDA out of memory.", State: "open"},
		{No: 2, Seq: 92, FirstSeq: 90, LastSeq: 92, Text: "RuntimeError: probe unavailable", State: "dismissed"},
		{No: 3, Seq: 102, FirstSeq: 100, LastSeq: 102, Text: "ValueError: bad batch", State: "open"},
	}
	got := compare.NewIn(b, heads, a)
	type row struct {
		tier    compare.Tier
		sample  string
		alarm   int
		members int
		known   bool
	}
	var rows []row
	for _, e := range got {
		rows = append(rows, row{e.Tier, e.Sample, e.Alarm, len(e.Members), e.Known})
	}
	want := []row{
		{compare.RootCause, "torch.OutOfMemoryError: CUDA out of memory.", 1, 61, false},
		{compare.Error, "Exception in probe: Traceback (most recent call last):", 2, 1, false},
		{compare.Error, "  File \"/sgl/srt/retry.py\", line 3, in retry", 3, 0, true},
		{compare.Warning, "WARNING slow tokenizer", 0, 0, false},
	}
	if len(rows) != len(want) {
		t.Fatalf("entries %+v, want %+v", rows, want)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Errorf("entry %d: %+v, want %+v", i, rows[i], want[i])
		}
	}
	if e := got[0]; e.Count != 62 || e.Members[0].FirstSeq != 10 || e.Members[60].FirstSeq != 70 {
		t.Errorf("the OOM's event: %d lines, members from %d to %d; want 62 lines from 10 to 70", e.Count, e.Members[0].FirstSeq, e.Members[60].FirstSeq)
	}
}
