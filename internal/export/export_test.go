package export

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"":                     {},
		"2026-11-29T08:30:00Z": time.Date(2026, 11, 29, 8, 30, 0, 0, time.UTC),
		"2026-11-01":           time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
		"36h":                  now.Add(-36 * time.Hour),
		"7d":                   now.Add(-7 * 24 * time.Hour),
	} {
		got, err := ParseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"yesterday", "-3h", "7w", "2026-13-01", "d"} {
		if _, err := ParseSince(bad, now); err == nil {
			t.Errorf("ParseSince(%q) accepted", bad)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	c := Cursor{LaunchID: 123456789, AlarmNo: 42}
	got, err := ParseCursor(c.String())
	if err != nil || got != c {
		t.Fatalf("ParseCursor(%q) = %+v, %v", c.String(), got, err)
	}
	for _, bad := range []string{"x", "a1.", "a1.!!", "a1." + strings.Repeat("A", 100), "b1.MTIzLjQy"} {
		if _, err := ParseCursor(bad); err == nil {
			t.Errorf("ParseCursor(%q) accepted", bad)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// BuildCase numbers lines from 1 whatever the seqs (gaps included), turns
// a confirmed alarm into a block and a dismissed one's lines into bait,
// and takes the outcome from readiness and the first confirmed fatal alarm.
func TestBuildCase(t *testing.T) {
	lines := []LogLine{
		{Seq: 10, Text: "boot"},
		{Seq: 11, Text: "ready: accepting requests"},
		{Seq: 13, Alarm: ptr(1), Text: "Traceback (most recent call last):"},
		{Seq: 14, Alarm: ptr(1), Text: "ValueError: a bad request body"},
		{Seq: 20, Text: "serving"},
		{Seq: 21, Alarm: ptr(2), Text: "Traceback (most recent call last):"},
		{Seq: 22, Alarm: ptr(2), Text: "RuntimeError: the engine loop died"},
	}
	l := LaunchFacts{Key: "k:1", Server: "vllm", Status: "crashed", ReadySeq: ptr(int64(11)), Ready: true, Alarms: []AlarmFacts{
		{No: 1, Kind: "traceback", State: "dismissed", HeadlineSeq: 14, FirstSeq: 13, LastSeq: 14},
		{No: 2, Kind: "traceback", Fatal: true, State: "confirmed", Headline: "RuntimeError: the engine loop died", HeadlineSeq: 22, FirstSeq: 21, LastSeq: 22},
	}}
	log, label, err := BuildCase(l, lines, "src")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(log), "\n") != 7 || !strings.HasPrefix(string(log), "boot\nready") {
		t.Errorf("log = %q", log)
	}
	if label.Outcome != "ready_then_crashed" || *label.ReadyLine != 2 || len(label.ErrorBlocks) != 1 ||
		label.ErrorBlocks[0].Start != 6 || label.ErrorBlocks[0].End != 7 || label.ErrorBlocks[0].HeadlineLines[0] != 7 ||
		!slices.Equal(label.BaitLines, []int64{3, 4}) || label.Server != "vllm" {
		t.Errorf("label = %+v", label)
	}

	l.Alarms[1].State = "dismissed" // nothing confirmed: ready, whatever the classifier said
	l.Status = "ready"
	if _, label, _ = BuildCase(l, lines, "src"); label.Outcome != "ready" || len(label.ErrorBlocks) != 0 || len(label.BaitLines) != 4 {
		t.Errorf("all dismissed: %+v", label)
	}
	l.Alarms[0].State = "open"
	if _, _, err := BuildCase(l, lines, "src"); !errors.Is(err, ErrNotReviewed) {
		t.Errorf("open alarm: err %v", err)
	}
	if (LaunchFacts{}).Reviewed() {
		t.Error("a launch without alarms counts as reviewed")
	}
}

func TestCaseName(t *testing.T) {
	if got := CaseName("sg:run@7+b=2"); got != "sg_run_7_b_2" {
		t.Errorf("CaseName = %q", got)
	}
}
