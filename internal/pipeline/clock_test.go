package pipeline

import (
	"fmt"
	"testing"
	"time"

	"launchwatch/internal/decode"
)

func TestSnapZone(t *testing.T) {
	t.Parallel()
	tests := map[time.Duration]time.Duration{
		300 * time.Millisecond:                     0,                            // shipping delay
		-2*time.Hour + 400*time.Millisecond:        -2 * time.Hour,               // UTC+2 written without an offset
		5*time.Hour + 30*time.Minute - time.Second: 5*time.Hour + 30*time.Minute, // UTC−5:30
		-10 * time.Minute:                          -10 * time.Minute,            // a host clock ten minutes off
		7*time.Minute + 200*time.Millisecond:       7 * time.Minute,
	}
	for in, want := range tests {
		if got := snapZone(in); got != want {
			t.Errorf("snapZone(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestLogTimeYear(t *testing.T) {
	t.Parallel()
	received := time.Date(2031, 1, 1, 0, 0, 5, 0, time.UTC)
	// Logged on 31 December, received on 1 January: the year before.
	if got, want := logTime("INFO 12-31 23:59:59 [x.py:1] hello", received), time.Date(2030, 12, 31, 23, 59, 59, 0, time.UTC); !got.Equal(want) {
		t.Errorf("logTime = %s, want %s", got, want)
	}
	if got, want := logTime("INFO 01-01 00:00:01 [x.py:1] hello", received), time.Date(2031, 1, 1, 0, 0, 1, 0, time.UTC); !got.Equal(want) {
		t.Errorf("logTime = %s, want %s", got, want)
	}
	if got := logTime("no time here", received); !got.IsZero() {
		t.Errorf("logTime of a line without a time = %s, want zero", got)
	}
}

func TestClockObserve(t *testing.T) {
	t.Parallel()
	r := time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC)
	t.Run("OldLogIsNoSample", func(t *testing.T) {
		t.Parallel()
		var c clockState
		c.observe(r, []time.Time{r.AddDate(0, -3, 0)}, "")
		if c.Source != ClockNone || len(c.Samples) != 0 {
			t.Errorf("clock %+v, want nothing measured", c)
		}
	})
	t.Run("BacklogBatchIsNoSample", func(t *testing.T) {
		t.Parallel()
		var c clockState
		c.observe(r, []time.Time{r.Add(-30 * time.Minute), r.Add(-time.Minute)}, "")
		if c.Source != ClockNone {
			t.Errorf("clock %+v, want nothing measured from a batch spanning 29 minutes", c)
		}
	})
	t.Run("SamplesAreBounded", func(t *testing.T) {
		t.Parallel()
		var c clockState
		for i := range 100 {
			at := r.Add(time.Duration(i) * time.Second)
			c.observe(at, []time.Time{at.Add(2 * time.Hour)}, "")
		}
		if len(c.Samples) != clockSamples || c.Offset != -2*time.Hour || c.Source != ClockEstimated {
			t.Errorf("%d samples, offset %s (%s); want %d, -2h estimated", len(c.Samples), c.Offset, c.Source, clockSamples)
		}
	})
	t.Run("TZWins", func(t *testing.T) {
		t.Parallel()
		var c clockState
		c.observe(r, []time.Time{r.Add(2 * time.Hour)}, "-05:30")
		if c.Offset != 5*time.Hour+30*time.Minute || c.Source != ClockTZ {
			t.Errorf("clock %+v, want +5h30m from tz", c)
		}
	})
}

// A batch large enough to be read in parts gets each line's own time, in
// its place, whatever part read it.
func TestLogTimesInParts(t *testing.T) {
	t.Parallel()
	received := time.Date(2031, 3, 14, 12, 0, 0, 0, time.UTC)
	for _, n := range []int{0, 1, parallelLogTimes - 1, parallelLogTimes, 3*parallelLogTimes + 7} {
		lines := make([]decode.Line, n)
		for i := range lines {
			if i%3 != 2 { // some lines carry no time
				at := received.Add(-time.Duration(n-i) * time.Millisecond)
				lines[i].Text = fmt.Sprintf("INFO %s [x.py:%d] step %d", at.Format("01-02 15:04:05.000"), i, i)
			} else {
				lines[i].Text = fmt.Sprintf("  continuation %d", i)
			}
		}
		got := logTimes(lines, received)
		if len(got) != n {
			t.Fatalf("%d lines: %d times", n, len(got))
		}
		for i, l := range lines {
			if want := logTime(l.Text, received); !got[i].Equal(want) {
				t.Fatalf("%d lines: line %d has %s, want %s", n, i, got[i], want)
			}
			if got[i].IsZero() != (i%3 == 2) {
				t.Fatalf("%d lines: line %d %q: time %s", n, i, l.Text, got[i])
			}
		}
	}
}
