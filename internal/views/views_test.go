package views_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"

	"launchwatch/internal/views"
)

func renderDoc(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	if err := c.Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		33800 * time.Millisecond:              "33.8s",
		4*time.Minute + 12*time.Second:        "4m12s",
		2*time.Hour + 5*time.Minute:           "2h05m",
		-time.Second:                          "—",
		59*time.Second + 940*time.Millisecond: "59.9s",
	} {
		if got := views.Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestTimeline(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	end := at(100)
	// The old one-bar-per-instance test, on NewTimeline's input.
	in := views.TimelineInput{
		Origin: at(0), Last: at(100), Now: at(100),
		Phases: []views.TimelinePhase{
			{Name: "weights", BeginSeq: 1, Begin: at(0), End: &[]time.Time{at(50)}[0], Href: "/w"},
			{Name: "cuda_graph", BeginSeq: 2, Begin: at(50), Done: 3, Total: 8, Href: "/c"},
		},
		Ready:  &views.TimelineMark{At: end, Href: "/r"},
		Alarms: []views.TimelineAlarm{{No: 1, At: at(200), State: "confirmed", Headline: "<boom>", Href: "#alarm-1"}},
		Gaps:   []views.TimelineGap{{From: at(10), To: at(40)}},
		Live:   true,
	}
	p := views.NewTimeline(in)
	doc := renderDoc(t, views.Timeline(p))
	weights := doc.Find(`[data-phase="weights"] rect`)
	// The plot spans x 130..980: 0..50 s is 130..555.
	if x, w := weights.AttrOr("x", ""), weights.AttrOr("width", ""); x != "130.0" || w != "425.0" {
		t.Errorf("weights bar x=%s width=%s, want 130.0 and 425.0", x, w)
	}
	if txt := doc.Find(`[data-phase="cuda_graph"] text`).Text(); txt != "50.0s, 3/8 …" {
		t.Errorf("running phase label %q", txt)
	}
	if x := doc.Find(`[data-testid="timeline-alarm"] circle`).AttrOr("cx", ""); x != "980.0" {
		t.Errorf("an alarm after the end is drawn at %s, want clamped to 980.0", x)
	}
	if title := doc.Find(`[data-testid="timeline-alarm"] title`).Text(); title != "alarm 1 (confirmed): <boom>" {
		t.Errorf("alarm title %q", title)
	}
	if g := doc.Find(`[data-testid="timeline-gap"]`); g.Length() != 1 || !strings.Contains(g.Text(), "30.0s") {
		t.Errorf("gap %q", g.Text())
	}
	in.Live = false
	doc = renderDoc(t, views.Timeline(views.NewTimeline(in)))
	if txt := doc.Find(`[data-phase="cuda_graph"] text`).Text(); txt != "50.0s, no end line" {
		t.Errorf("unended phase of a finished launch %q", txt)
	}
}
