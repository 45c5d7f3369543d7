package views_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/views"
)

var tl0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func sec(s float64) time.Time { return tl0.Add(time.Duration(s * float64(time.Second))) }

func endAt(s float64) *time.Time { t := sec(s); return &t }

// restartingInput is a launch that starts n times over an hour: each cycle
// runs init, weights, kv_cache, 8 ranks capturing CUDA graphs at once and
// warmup, becomes ready or crashes, with an alarm, a gap and a note.
func restartingInput(n int) views.TimelineInput {
	in := views.TimelineInput{Origin: sec(0), Last: sec(3600)}
	cycle := 3600.0 / float64(n)
	seq := int64(1)
	phase := func(name string, b, e float64) {
		in.Phases = append(in.Phases, views.TimelinePhase{Name: name, BeginSeq: seq, Begin: sec(b), End: endAt(e),
			Href: fmt.Sprintf("/l?after=%d", seq)})
		seq += 3
	}
	for i := range n {
		t := float64(i) * cycle
		u := cycle / 20
		phase("init", t, t+u)
		phase("weights", t+u, t+3*u)
		phase("kv_cache", t+3*u, t+4*u)
		for range 8 {
			phase("cuda_graph", t+4*u, t+6*u)
		}
		phase("warmup", t+6*u, t+7*u)
		in.Resets = append(in.Resets, seq)
		in.Alarms = append(in.Alarms, views.TimelineAlarm{No: i + 1, At: sec(t + 8*u), State: "open",
			Headline: strings.Repeat("RuntimeError: NCCL error ", 4), Href: fmt.Sprintf("#alarm-%d", i+1)})
		in.Gaps = append(in.Gaps, views.TimelineGap{From: sec(t + 10*u), To: sec(t + 19*u)})
		in.Notes = append(in.Notes, views.TimelineNote{At: sec(t + 9*u), Author: "ada", Body: "restart", Href: "#n"})
		seq += 10
	}
	return in
}

func svgBytes(t *testing.T, p views.TimelineProps) int {
	t.Helper()
	var buf bytes.Buffer
	if err := views.Timeline(p).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Len()
}

func TestNewTimeline(t *testing.T) {
	t.Parallel()

	t.Run("OneRowPerPhaseKind", func(t *testing.T) {
		t.Parallel()
		p := views.NewTimeline(restartingInput(50))
		var names []string
		for _, r := range p.Rows {
			names = append(names, r.Name)
		}
		if got := strings.Join(names, ","); got != "init,weights,kv_cache,cuda_graph,warmup" {
			t.Errorf("rows %s", got)
		}
		if p.RowCount() > 30 {
			t.Errorf("%d rows", p.RowCount())
		}
		if r := p.Rows[3]; r.Instances != 400 {
			t.Errorf("cuda_graph has %d instances, want 400", r.Instances)
		}
	})

	t.Run("RepeatedInstancesAreNumberedSegments", func(t *testing.T) {
		t.Parallel()
		p := views.NewTimeline(restartingInput(5))
		init := p.Rows[0]
		if len(init.Segments) != 5 {
			t.Fatalf("init has %d segments, want 5", len(init.Segments))
		}
		s := init.Segments[2]
		if s.First != 3 || s.Count != 1 || s.Title != "init #3, 36.0s" || s.Label != "" {
			t.Errorf("third init: #%d ×%d title %q label %q (8.5 units wide: no room for a label)", s.First, s.Count, s.Title, s.Label)
		}
		if w := p.Rows[1].Segments[2]; w.Label != "#3" || w.Title != "weights #3, 1m12s" {
			t.Errorf("third weights: label %q title %q", w.Label, w.Title)
		}
		doc := renderDoc(t, views.Timeline(p))
		if n := doc.Find(`[data-testid="timeline-row"]`).Length(); n != 5 {
			t.Errorf("%d rows drawn", n)
		}
		if txt := doc.Find(`[data-phase="init"][data-no="3"] title`).Text(); txt != "init #3, 36.0s" {
			t.Errorf("drawn title %q", txt)
		}
	})

	t.Run("OverlappingInstancesMergeWithACount", func(t *testing.T) {
		t.Parallel()
		p := views.NewTimeline(restartingInput(5))
		cg := p.Rows[3]
		if len(cg.Segments) != 5 {
			t.Fatalf("cuda_graph has %d segments, want one per cycle", len(cg.Segments))
		}
		s := cg.Segments[1]
		if s.Count != 8 || s.First != 9 || s.Last != 16 || !s.Overlapping || s.Label != "×8" ||
			s.Title != "cuda_graph #9–#16: 8 instances (some at once), 1m12s" {
			t.Errorf("merged ranks: ×%d #%d–#%d %v label %q title %q", s.Count, s.First, s.Last, s.Overlapping, s.Label, s.Title)
		}
	})

	t.Run("RestartsAreMarkersOnTheAxis", func(t *testing.T) {
		t.Parallel()
		p := views.NewTimeline(restartingInput(5))
		if len(p.Restarts) != 4 || !p.Restarts[0].At.Equal(sec(720)) || p.Restarts[0].Title != "restart: init began again" {
			t.Errorf("restarts %+v", p.Restarts)
		}
		// Without reset lines, the first kind beginning again once all
		// ended is a restart; ranks starting a phase at once are not.
		in := restartingInput(5)
		in.Resets = nil
		if p := views.NewTimeline(in); len(p.Restarts) != 4 {
			t.Errorf("%d restarts without reset lines, want 4", len(p.Restarts))
		}
	})

	t.Run("MarksAreAggregatedPerColumn", func(t *testing.T) {
		t.Parallel()
		in := views.TimelineInput{Origin: sec(0), Last: sec(1000)}
		// 1000 alarms a second apart: 850 units of plot, 10 per column.
		for i := range 1000 {
			state := "dismissed"
			if i == 1 {
				state = "open"
			}
			in.Alarms = append(in.Alarms, views.TimelineAlarm{No: i + 1, At: sec(float64(i)), State: state, Headline: "boom"})
		}
		p := views.NewTimeline(in)
		if n := len(p.Alarms); n > 850/10+1 || n < 80 {
			t.Errorf("%d alarm marks for 1000 alarms", n)
		}
		total := 0
		for _, a := range p.Alarms {
			total += a.Count
		}
		if total != 1000 {
			t.Errorf("the marks count %d alarms, want 1000", total)
		}
		first := p.Alarms[0]
		if first.Count < 2 || first.State != "open" || first.No != 1 {
			t.Errorf("first column: ×%d %s #%d, want the open one's state and the first number", first.Count, first.State, first.No)
		}
		doc := renderDoc(t, views.Timeline(p))
		if txt := doc.Find(`[data-testid="timeline-alarm"] title`).First().Text(); !strings.Contains(txt, "more here") {
			t.Errorf("aggregated title %q", txt)
		}
	})

	t.Run("SizeDependsOnWidthNotEvents", func(t *testing.T) {
		t.Parallel()
		// Every column of every row taken (500 cycles over 141 columns) is
		// the worst case: 5 phase rows of 141 segments, 141 gaps and 3 rows
		// of 85 marks.
		small, big := svgBytes(t, views.NewTimeline(restartingInput(50))), svgBytes(t, views.NewTimeline(restartingInput(500)))
		const bound = 300_000
		if small > bound || big > bound {
			t.Errorf("SVG of 50 restarts %d bytes, of 500 %d bytes; want both under %d", small, big, bound)
		}
		more := svgBytes(t, views.NewTimeline(restartingInput(5000)))
		if more > bound || float64(more) > 1.1*float64(big) {
			t.Errorf("SVG of 5000 restarts %d bytes, of 500 %d bytes", more, big)
		}
		t.Logf("SVG bytes: 50 restarts %d, 500 %d, 5000 %d", small, big, more)
	})

	t.Run("ZoomDrawsOnlyTheRange", func(t *testing.T) {
		t.Parallel()
		in := restartingInput(5)
		in.From, in.To = sec(700), sec(1500)
		p := views.NewTimeline(in)
		if !p.Zoomed || !p.Start.Equal(sec(700)) || !p.End.Equal(sec(1500)) {
			t.Fatalf("zoom %v–%v", p.Start, p.End)
		}
		if n := len(p.Rows[0].Segments); n != 2 || p.Rows[0].Segments[0].First != 2 {
			t.Errorf("init in the zoom: %d segments", n)
		}
		if len(p.Alarms) != 1 || p.Alarms[0].No != 2 {
			t.Errorf("alarms in the zoom %+v", p.Alarms)
		}
		if ticks := p.Ticks(); ticks[0].Label != "+11m40s" || ticks[4].Label != "+25m00s" {
			t.Errorf("ticks %+v, want them counted from the first line", ticks)
		}
	})

	t.Run("OpenPhaseShowsElapsedOnTheLaunchClock", func(t *testing.T) {
		t.Parallel()
		in := views.TimelineInput{Origin: sec(0), Last: sec(30), Now: sec(90), Live: true,
			Phases: []views.TimelinePhase{{Name: "weights", BeginSeq: 1, Begin: sec(10)}}}
		p := views.NewTimeline(in)
		if s := p.Rows[0].Segments[0]; s.Label != "1m20s …" || !p.End.Equal(sec(90)) {
			t.Errorf("open phase %q, axis to %v", s.Label, p.End)
		}
	})
}

// TestReadyMarksMergePerColumnInAnyOrder: a log whose times jump back and
// forth (logs concatenated) still draws one ready marker per column, the
// first in time labelled "ready" and the rest "ready again".
func TestReadyMarksMergePerColumnInAnyOrder(t *testing.T) {
	t.Parallel()
	in := views.TimelineInput{Origin: sec(0), Last: sec(3600)}
	for i := range 300 {
		at := sec(100)
		if i%2 == 1 {
			at = sec(3000)
		}
		in.Readies = append(in.Readies, views.TimelineMark{At: at, Href: fmt.Sprintf("/l#L%d", i)})
	}
	p := views.NewTimeline(in)
	if len(p.Readies) != 2 || p.Readies[0].Count != 150 || p.Readies[1].Count != 150 {
		t.Fatalf("ready marks %+v, want two of 150", p.Readies)
	}
	if p.Readies[0].Title != "ready (150 times here)" || p.Readies[1].Title != "ready again (150 times here)" {
		t.Errorf("titles %q and %q", p.Readies[0].Title, p.Readies[1].Title)
	}
}
