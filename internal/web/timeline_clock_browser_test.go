package web_test

import (
	"math"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// barBox is a timeline element as the browser lays it out: its x and
// width in the SVG's units and its left edge and width on screen.
type barBox struct {
	Phase     string  `json:"phase"`
	X         float64 `json:"x"`
	W         float64 `json:"w"`
	ScreenX   float64 `json:"sx"`
	ScreenW   float64 `json:"sw"`
	SVGScreen float64 `json:"svgw"`
}

// TestBrowserTimelineLocalTimeHost ships a launch from a host whose log
// prints UTC+2 without an offset, live, one line a batch as `launchwatch
// run` does (the server's clock moved by the time between lines), and
// checks in Chromium that the timeline's bars sit where the lines were
// written: each phase bar from its first line to its last on an axis from
// the launch's first line to its last, on screen as in the SVG, the ready
// marker at the ready line; and that the API's times are in order.
func TestBrowserTimelineLocalTimeHost(t *testing.T) {
	t.Parallel()
	utc2 := time.FixedZone("UTC+2", 2*3600)
	b := setupClock(t, time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC))
	at := b.shipLive("/api/v1/launches/utc2/lines?server=sglang&host=gpu-utc2", sglangStartup, utc2)
	b.clock.Advance(time.Minute)
	b.report("/api/v1/launches/utc2/exit", `{"code": 0, "requested": true}`, "exited")

	v := b.view("utc2")
	tm := v.Times
	if tm.FirstLine == nil || tm.Ready == nil || tm.Ended == nil {
		t.Fatalf("times: %+v", tm)
	}
	if tm.FirstLine.After(*tm.Ready) || tm.Ready.After(*tm.Ended) {
		t.Errorf("first_line %s, ready %s, ended %s: want first_line ≤ ready ≤ ended", tm.FirstLine, tm.Ready, tm.Ended)
	}
	if v.ClockOffset != -7200 {
		t.Errorf("clock offset %v, want -7200", v.ClockOffset)
	}

	tab := newBrowser(t)
	if err := chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/utc2"), htmxIdle()); err != nil {
		t.Fatal(err)
	}
	box := func(sel, phase string) string {
		return `(function () {
			var svg = document.querySelector('[data-testid="timeline"]').getBoundingClientRect();
			return Array.from(document.querySelectorAll(` + "`" + sel + "`" + `)).map(function (g) {
				var r = g.querySelector("rect, line"), s = r.getBoundingClientRect();
				var x = r.x ? r.x.baseVal.value : r.x1.baseVal.value, w = r.width ? r.width.baseVal.value : 0;
				return {phase: ` + phase + `, x: x, w: w, sx: s.left - svg.left, sw: s.width, svgw: svg.width};
			});
		})()`
	}
	bars, err := chromedp.Run(tab, chromedp.Evaluate[[]barBox](box(`[data-testid="timeline-phase"]`, "g.dataset.phase")))
	if err != nil {
		t.Fatal(err)
	}
	readies, err := chromedp.Run(tab, chromedp.Evaluate[[]barBox](box(`[data-testid="timeline-ready"]`, `"ready"`)))
	if err != nil {
		t.Fatal(err)
	}

	const left, width, svgWidth = 130.0, 1000.0 - 130 - 20, 1000.0 // views/timeline.go's geometry
	span := at[len(at)-1].Sub(at[0]).Seconds()
	x := func(i int) float64 { return left + at[i].Sub(at[0]).Seconds()/span*width }
	want := map[string][2]int{"init": {1, 2}, "weights": {3, 5}, "cuda_graph": {6, 7}}
	seen := 0
	for _, bar := range bars {
		w, ok := want[bar.Phase]
		if !ok {
			continue
		}
		seen++
		if math.Abs(bar.X-x(w[0])) > 0.11 || math.Abs(bar.X+bar.W-x(w[1])) > 0.21 {
			t.Errorf("phase %s drawn from x=%.1f to %.1f, want %.1f to %.1f (written %s to %s)", bar.Phase,
				bar.X, bar.X+bar.W, x(w[0]), x(w[1]), at[w[0]].Format(time.TimeOnly), at[w[1]].Format(time.TimeOnly))
		}
		// On screen too: the SVG scales to its box, the bar with it.
		scale := bar.SVGScreen / svgWidth
		if math.Abs(bar.ScreenX-bar.X*scale) > 1.5 || math.Abs(bar.ScreenW-bar.W*scale) > 1.5 {
			t.Errorf("phase %s on screen at %.1f+%.1f px of %.0f, want %.1f+%.1f", bar.Phase, bar.ScreenX, bar.ScreenW,
				bar.SVGScreen, bar.X*scale, bar.W*scale)
		}
		if bar.X+bar.W > left+width-1 && w[1] < len(at)-1 {
			t.Errorf("phase %s reaches the right edge", bar.Phase)
		}
	}
	if seen != len(want) {
		t.Errorf("the browser shows %d of the phases %v: %+v", seen, want, bars)
	}
	if len(readies) != 1 || math.Abs(readies[0].X-x(len(at)-1)) > 0.11 {
		t.Errorf("ready markers %+v, want one at x=%.1f", readies, x(len(at)-1))
	}
}
