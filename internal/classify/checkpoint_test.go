package classify

import (
	"fmt"
	"testing"
)

func feedTexts(s *State, seqs []int64, text func(int64) string) {
	lines := make([]Line, len(seqs))
	for i, q := range seqs {
		lines[i] = Line{Seq: q, Text: text(q)}
	}
	s.Feed(lines)
}

// TestEquivalentIgnoresOnlyTheLineCount: a state fed one line more (a gap
// filled) is equivalent to the one without it once nothing it holds was
// touched around that line, and not while an event that spans it is held.
func TestEquivalentIgnoresOnlyTheLineCount(t *testing.T) {
	t.Parallel()
	text := func(q int64) string {
		switch q {
		case 50:
			return "Traceback (most recent call last):"
		case 51:
			return `  File "/srv/app/x.py", line 3, in run`
		case 52:
			return "KeyError: 'made-up'"
		}
		return fmt.Sprintf("[2026-04-02 09:28:%02d] INFO decode step %d", q%60, q)
	}
	seqs := func(from, to int64, skip int64) []int64 {
		var out []int64
		for q := from; q <= to; q++ {
			if q != skip {
				out = append(out, q)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		gap   int64 // the line one state lacks
		until int64 // both are fed up to here
		want  bool
	}{
		{"GapBeforeEverything", 10, 60, true},
		{"GapInsideAHeldEvent", 51, 60, false},
		{"GapAfterAHeldEventThatStillCounts", 55, 60, false},
		{"GapAfterAnEventSinceRetired", 55, 3000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			with, without := New("sglang"), New("sglang")
			feedTexts(with, seqs(1, tc.until, 0), text)
			feedTexts(without, seqs(1, tc.until, tc.gap), text)
			if got := with.Equivalent(without); got != tc.want {
				t.Errorf("Equivalent = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("HeldNamesTheOpenEvent", func(t *testing.T) {
		t.Parallel()
		s := New("sglang")
		feedTexts(s, seqs(1, 60, 0), text)
		h := s.Held()
		if h.FromSeq != 50 || len(h.Alarms) != 1 {
			t.Errorf("Held = %+v, want the traceback from seq 50 and its alarm", h)
		}
	})
}
