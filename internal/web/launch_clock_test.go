package web_test

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"launchwatch/internal/clock"
	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// clockView is what the clock tests read of a launch.
type clockView struct {
	Status      string  `json:"status"`
	ClockOffset float64 `json:"clock_offset"`
	ClockSource string  `json:"clock_source"`
	ClockTZ     string  `json:"clock_tz"`
	Times       struct {
		FirstLine *time.Time `json:"first_line"`
		LastLine  *time.Time `json:"last_line"`
		Ready     *time.Time `json:"ready"`
		Ended     *time.Time `json:"ended"`
	} `json:"times"`
}

type clockBundle struct {
	*testBundle
	srv   *webtest.Server
	clock *clock.Fake
}

func setupClock(t *testing.T, start time.Time) *clockBundle {
	t.Helper()
	fake := clock.NewFake(start)
	srv := webtest.Start(t, web.Config{}, webtest.WithClock(fake))
	return &clockBundle{testBundle: &testBundle{t: t, url: srv.URL, store: srv.Store}, srv: srv, clock: fake}
}

func (b *clockBundle) view(key string) clockView {
	b.t.Helper()
	r := b.do("GET", "/api/v1/launches/"+key, "", nil)
	if r.status != http.StatusOK {
		b.t.Fatalf("GET %s: %d %s", key, r.status, r.body)
	}
	var v clockView
	if err := json.Unmarshal(r.body, &v); err != nil {
		b.t.Fatal(err)
	}
	return v
}

// clockLine is one line of a made-up SGLang launch: written after its
// wait, by a host whose log prints local time.
type clockLine struct {
	wait time.Duration
	body string // after the time; "" for a line printed without a time
}

// sglangStartup is a made-up SGLang launch, a minute and a half to ready.
var sglangStartup = []clockLine{
	{0, "] server_args=ServerArgs(model_path='m', tp_size=1, port=30000)"},
	{2 * time.Second, " TP0] Init torch distributed begin."},
	{3 * time.Second, " TP0] Init torch distributed ends. mem usage=0.10 GB"},
	{1 * time.Second, " TP0] Load weight begin. avail mem=70.00 GB"},
	{0, ""}, // a progress bar between, without a time
	{41 * time.Second, " TP0] Load weight end. type=LlamaForCausalLM, avail mem=50.00 GB"},
	{4 * time.Second, " TP0] Capture cuda graph begin. This can take up to several minutes."},
	{29 * time.Second, " TP0] Capture cuda graph end. Time elapsed: 29.00 s"},
	{3 * time.Second, "] INFO:     Application startup complete."},
	{6 * time.Second, "] The server is fired up and ready to roll!"},
}

// sglangText is l's text as a host in zone loc prints it at t.
func sglangText(l clockLine, t time.Time, loc *time.Location) string {
	if l.body == "" {
		return "Loading safetensors checkpoint shards: 100% Completed | 2/2"
	}
	return "[" + t.In(loc).Format("2006-01-02 15:04:05") + l.body
}

// shipLive posts each line as it is written, one batch a line, moving the
// server's clock by the line's wait (and 300 ms of shipping delay), and
// returns when each line was written, in UTC.
func (b *clockBundle) shipLive(path string, lines []clockLine, loc *time.Location) []time.Time {
	b.t.Helper()
	var at []time.Time
	written := b.clock.Now()
	for _, l := range lines {
		written = written.Add(l.wait)
		if d := written.Add(300 * time.Millisecond).Sub(b.clock.Now()); d > 0 {
			b.clock.Advance(d)
		}
		b.postText(path, sglangText(l, written, loc)+"\n")
		at = append(at, written.Truncate(time.Second))
	}
	return at
}

func TestLaunchClock(t *testing.T) {
	t.Parallel()
	utc2 := time.FixedZone("UTC+2", 2*3600)

	// A host printing UTC+2 without an offset, shipped live: the offset
	// is measured and corrected, so every time of the launch is when it
	// happened, in order, and the timeline's bars sit where they happened.
	t.Run("LiveLocalTimeIsCorrected", func(t *testing.T) {
		t.Parallel()
		b := setupClock(t, time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC))
		at := b.shipLive("/api/v1/launches/utc2/lines?server=sglang", sglangStartup, utc2)
		b.clock.Advance(time.Minute)
		b.report("/api/v1/launches/utc2/exit", `{"code": 0, "requested": true}`, "exited")

		v := b.view("utc2")
		if v.ClockOffset != -7200 || v.ClockSource != "estimated" {
			t.Errorf("clock offset %v (%s), want -7200 (estimated)", v.ClockOffset, v.ClockSource)
		}
		tm := v.Times
		if tm.FirstLine == nil || tm.Ready == nil || tm.Ended == nil {
			t.Fatalf("times: %+v", tm)
		}
		if tm.FirstLine.After(*tm.Ready) || tm.Ready.After(*tm.Ended) {
			t.Errorf("first_line %s, ready %s, ended %s: want them in order", tm.FirstLine, tm.Ready, tm.Ended)
		}
		if !tm.FirstLine.Equal(at[0]) || !tm.Ready.Equal(at[len(at)-1]) {
			t.Errorf("first_line %s, ready %s, want %s and %s", tm.FirstLine, tm.Ready, at[0], at[len(at)-1])
		}
		for i, ln := range b.lines("utc2") {
			ts, _ := time.Parse(time.RFC3339Nano, ln.TS)
			if !ts.Equal(at[i]) {
				t.Errorf("line %d at %s, want %s (when it was written)", ln.Seq, ts, at[i])
			}
		}
		b.checkTimelineBars("utc2", at, map[string][2]int{"init": {1, 2}, "weights": {3, 5}, "cuda_graph": {6, 7}})
	})

	// --tz names the zone: one batch (no live evidence) is enough, and
	// the estimate does not override it.
	t.Run("TZOverrides", func(t *testing.T) {
		t.Parallel()
		b := setupClock(t, time.Date(2031, 1, 10, 12, 0, 0, 0, time.UTC))
		berlin, _ := time.LoadLocation("Europe/Berlin")
		for _, tc := range []struct {
			key, tz string
			loc     *time.Location
			offset  float64
		}{
			{"fixed", "+02:00", utc2, -7200},
			{"named", "Europe/Berlin", berlin, -3600}, // January: CET
		} {
			var body strings.Builder
			start := b.clock.Now().Add(-10 * time.Minute) // backfilled: no live sample
			at := start
			for _, l := range sglangStartup {
				at = at.Add(l.wait)
				body.WriteString(sglangText(l, at, tc.loc) + "\n")
			}
			b.postText("/api/v1/launches/"+tc.key+"/lines?server=sglang&tz="+url.QueryEscape(tc.tz), body.String())
			v := b.view(tc.key)
			if v.ClockOffset != tc.offset || v.ClockSource != "tz" || v.ClockTZ != tc.tz {
				t.Errorf("%s: clock %v %q %q, want %v tz %q", tc.key, v.ClockOffset, v.ClockSource, v.ClockTZ, tc.offset, tc.tz)
			}
			if v.Times.FirstLine == nil || !v.Times.FirstLine.Equal(start) || v.Times.Ready == nil || !v.Times.Ready.Equal(at) {
				t.Errorf("%s: first_line %v, ready %v, want %s and %s", tc.key, v.Times.FirstLine, v.Times.Ready, start, at)
			}
		}
		r := b.do("POST", "/api/v1/launches/bad/lines?tz=Mars/Olympus", "text/plain", []byte("x\n"))
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "tz") {
			t.Errorf("tz=Mars/Olympus: %d %s, want 400 naming tz", r.status, r.body)
		}
	})

	// Lines received long after they were logged (a backlog shipped after
	// live lines) keep their log time and do not move the live offset.
	t.Run("BackfillKeepsLogTime", func(t *testing.T) {
		t.Parallel()
		b := setupClock(t, time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC))
		b.shipLive("/api/v1/launches/late/lines?server=sglang", sglangStartup[:4], utc2)
		b.clock.Advance(20 * time.Minute)
		old := b.clock.Now().Add(-15 * time.Minute)
		b.postText("/api/v1/launches/late/lines", sglangText(sglangStartup[5], old, utc2)+"\n")
		v := b.view("late")
		if v.ClockOffset != -7200 {
			t.Errorf("clock offset %v after a backfilled line, want -7200", v.ClockOffset)
		}
		lines := b.lines("late")
		if ts, _ := time.Parse(time.RFC3339, lines[len(lines)-1].TS); !ts.Equal(old.Truncate(time.Second)) {
			t.Errorf("backfilled line at %s, want its log time %s", ts, old.Truncate(time.Second))
		}
	})
}

// checkTimelineBars checks that each phase's bar on the launch page starts
// and ends where its lines were written on an axis from the first line to
// the last (phases maps a phase to its begin and end line indexes).
func (b *clockBundle) checkTimelineBars(key string, at []time.Time, phases map[string][2]int) {
	b.t.Helper()
	doc := b.page("/launches/"+key, 200)
	const left, width = 130.0, 1000.0 - 130 - 20 // views/timeline.go's geometry
	span := at[len(at)-1].Sub(at[0]).Seconds()
	x := func(t time.Time) float64 { return left + t.Sub(at[0]).Seconds()/span*width }
	seen := 0
	doc.Find(`[data-testid="timeline-phase"]`).Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("data-phase")
		want, ok := phases[name]
		if !ok {
			return
		}
		seen++
		rect := s.Find("rect")
		bx, _ := strconv.ParseFloat(rect.AttrOr("x", ""), 64)
		bw, _ := strconv.ParseFloat(rect.AttrOr("width", ""), 64)
		wantX, wantEnd := x(at[want[0]]), x(at[want[1]])
		if math.Abs(bx-wantX) > 0.11 || math.Abs(bx+bw-wantEnd) > 0.21 {
			b.t.Errorf("phase %s bar at x=%.1f to %.1f, want %.1f to %.1f", name, bx, bx+bw, wantX, wantEnd)
		}
	})
	if seen != len(phases) {
		b.t.Errorf("timeline shows %d of the %d phases %v", seen, len(phases), phases)
	}
}
