package classify_test

import (
	"fmt"
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
	s.feed("Traceback (most recent call last):\n  File \"/x/a.py\", line 3, in run\n    step()")
	res := s.st.Settle(classify.SettleIdle)
	if len(res.Alarms) != 1 || !res.Alarms[0].Settled {
		t.Fatalf("idle settle: %+v, want the open traceback settled", res.Alarms)
	}
	res = s.feed("KeyError: 'w'")
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

// A traceback of a network call (frames inside a network client, a timeout
// or a dropped connection) is what a caller retries: until its next line
// tells, or the stream ends, it counts as PendingRuns, not PendingFatal,
// and the settler leaves it alone. A shipper's batch that ends inside it
// then never shows an alarm that the retry line takes back.
func TestNetworkTracebackWaitsForItsNextLine(t *testing.T) {
	t.Parallel()
	frames := "Traceback (most recent call last):\n" +
		"  File \"/srv/app/loader/fetch.py\", line 40, in fetch_index\n" +
		"    return client.get(url)\n" +
		"  File \"/opt/venv/lib/python3.11/site-packages/httpx/_client.py\", line 1054, in get\n" +
		"    return self.request(\"GET\", url)\n" +
		"  File \"/opt/venv/lib/python3.11/site-packages/httpcore/_sync/connection.py\", line 101, in handle_request\n" +
		"    raise exc"
	undecided := func(t *testing.T, s *stream, when string) {
		t.Helper()
		if sum := s.st.Summary(); sum.PendingFatal != 0 || sum.PendingRuns != 1 {
			t.Fatalf("%s: PendingFatal=%d PendingRuns=%d, want 0 and 1", when, sum.PendingFatal, sum.PendingRuns)
		}
		if res := s.st.Settle(classify.SettleIdle); len(res.Alarms) != 0 {
			t.Fatalf("%s: an idle settle counted it: %+v", when, res.Alarms)
		}
	}

	s := stream{st: classify.New("")}
	s.feed(frames)
	undecided(t, &s, "inside the network frames")
	s.feed("httpcore.ReadTimeout: timed out")
	undecided(t, &s, "after the network exception")
	res := s.feed("fetch_index failed (attempt 1 of 4), retrying in 2.0 s")
	if len(res.Alarms) != 1 || !res.Alarms[0].Withdrawn || liveAlarms(s.st) != 0 {
		t.Fatalf("the retry line: %+v, want the alarm withdrawn", res.Alarms)
	}

	// The stream's end counts it: a reader after the bound, or an exit.
	e := stream{st: classify.New("")}
	e.feed(frames + "\nhttpcore.ReadTimeout: timed out")
	res = e.st.Settle(classify.SettleStreamEnd)
	if len(res.Alarms) != 1 || !res.Alarms[0].Fatal || !res.Alarms[0].Settled {
		t.Fatalf("stream-end settle: %+v, want the alarm settled and fatal", res.Alarms)
	}

	// A line that is no retry closes it, and it settles as any traceback.
	c := stream{st: classify.New("")}
	c.feed(frames + "\nhttpcore.ReadTimeout: timed out")
	for i := range 6 {
		c.feed(fmt.Sprintf("INFO 01-01 10:00:%02d [loader.py:9] still starting, step %d", i, i))
	}
	if sum := c.st.Summary(); sum.PendingRuns != 0 || sum.FatalAlarms != 1 || sum.PendingFatal != 0 {
		t.Fatalf("after ordinary lines: %+v, want one settled fatal alarm", sum)
	}
}

// Only a network call's failure waits: the same exception raised by the
// server's own code (an RPC deadline, say), a non-network exception under
// network frames, or a root cause counts as usual, and so does a bare
// traceback header once a frame of the server's code follows it (its
// source line says it is the server's own work: undecided_test.go).
func TestOtherTracebacksDoNotWait(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"own code's timeout": "Traceback (most recent call last):\n" +
			"  File \"/srv/app/engine/executor.py\", line 210, in collective_rpc\n" +
			"    raise TimeoutError(f\"RPC call to {method} timed out.\")\n" +
			"TimeoutError: RPC call to execute_model timed out.",
		"other exception under network frames": "Traceback (most recent call last):\n" +
			"  File \"/opt/venv/lib/python3.11/site-packages/requests/models.py\", line 1024, in raise_for_status\n" +
			"    raise HTTPError(http_error_msg, response=self)\n" +
			"requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://hub.example.org/api/models/m",
		"header then own frame": "Traceback (most recent call last):\n" +
			"  File \"/srv/app/engine/worker.py\", line 77, in load_model\n" +
			"    self.load_weights(path)",
	}
	for name, text := range cases {
		s := stream{st: classify.New("")}
		s.feed(text)
		if sum := s.st.Summary(); sum.PendingFatal != 1 || sum.PendingRuns != 0 {
			t.Errorf("%s: PendingFatal=%d PendingRuns=%d, want 1 and 0", name, sum.PendingFatal, sum.PendingRuns)
		}
	}

	// A bare header alone says nothing yet.
	h := stream{st: classify.New("")}
	h.feed("Traceback (most recent call last):")
	if sum := h.st.Summary(); sum.PendingFatal != 0 || sum.PendingRuns != 1 {
		t.Errorf("a bare header: PendingFatal=%d PendingRuns=%d, want 0 and 1", sum.PendingFatal, sum.PendingRuns)
	}
}
