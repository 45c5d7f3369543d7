package classify_test

import (
	"strings"
	"testing"

	"launchwatch/internal/classify"
)

type stream struct {
	st  *classify.State
	seq int64
}

func (s *stream) feed(text string) classify.Result {
	var ls []classify.Line
	for _, l := range strings.Split(text, "\n") {
		s.seq++
		ls = append(ls, classify.Line{Seq: s.seq, Text: l})
	}
	return s.st.Feed(ls)
}

func liveAlarms(st *classify.State) int { return st.Summary().LiveAlarms }

// Settling by time makes an alarm count without closing its grammar: the
// rest of a traceback that arrives late still joins it, a retry line in its
// window still withdraws it.
func TestIdleSettleLeavesTheGrammarOpen(t *testing.T) {
	t.Parallel()
	s := stream{st: classify.New("")}
	s.feed("Traceback (most recent call last):\n  File \"/x/a.py\", line 3, in run")
	res := s.st.Settle(classify.SettleIdle)
	if len(res.Alarms) != 1 || !res.Alarms[0].Settled {
		t.Fatalf("idle settle: %+v, want the open traceback settled", res.Alarms)
	}
	res = s.feed("    step()\nKeyError: 'w'")
	if len(res.Alarms) != 1 || res.Alarms[0].HeadlineSeq != 4 || liveAlarms(s.st) != 1 {
		t.Fatalf("the traceback's end made %+v (live %d), want the same alarm headed by line 4", res.Alarms, liveAlarms(s.st))
	}
	s.st.Settle(classify.SettleIdle)
	res = s.feed("Retrying in 1 second (attempt 2/3)")
	if len(res.Alarms) != 1 || !res.Alarms[0].Withdrawn {
		t.Fatalf("a retry line after an idle settle: %+v, want the alarm withdrawn", res.Alarms)
	}
}

// A trailing ERROR run is last words only when the stream ends: the settler
// leaves it alone, a reader asking after the bound makes it an alarm, and
// a line that goes on with ordinary output withdraws that alarm again.
func TestStreamEndSettleOfAnErrorRun(t *testing.T) {
	t.Parallel()
	run := "INFO 01-01 10:00:00 [core.py:1] Starting to load model m\n" +
		"ERROR 01-01 10:00:01 [loader.py:9] Failed to open shard 3 of 8: checksum mismatch"

	s := stream{st: classify.New("vllm")}
	s.feed(run)
	if sum := s.st.Summary(); sum.PendingRuns != 1 {
		t.Fatalf("PendingRuns = %d, want 1", sum.PendingRuns)
	}
	if res := s.st.Settle(classify.SettleIdle); len(res.Alarms) != 0 {
		t.Fatalf("an idle settle promoted the run: %+v", res.Alarms)
	}
	res := s.st.Settle(classify.SettleStreamEnd)
	if len(res.Alarms) != 1 || !res.Alarms[0].Fatal || !res.Alarms[0].Settled || res.Alarms[0].FirstSeq != 2 {
		t.Fatalf("stream-end settle: %+v, want one fatal settled alarm at line 2", res.Alarms)
	}
	res = s.feed("INFO 01-01 10:00:09 [loader.py:9] Loading weights took 8.0 s")
	if len(res.Alarms) != 1 || !res.Alarms[0].Withdrawn || liveAlarms(s.st) != 0 {
		t.Fatalf("ordinary output after it: %+v, want the alarm withdrawn", res.Alarms)
	}

	// More of the failure keeps it.
	k := stream{st: classify.New("vllm")}
	k.feed(run)
	k.st.Settle(classify.SettleStreamEnd)
	k.feed("ERROR 01-01 10:00:01 [loader.py:9] Giving up on model m")
	if liveAlarms(k.st) != 1 {
		t.Fatalf("an ERROR line after the promoted run withdrew it")
	}

	// The process exited: for good.
	x := stream{st: classify.New("vllm")}
	x.feed(run)
	if res := x.st.Settle(classify.SettleExit); len(res.Alarms) != 1 || !res.Alarms[0].Fatal {
		t.Fatalf("exit settle: %+v", res.Alarms)
	}
}
