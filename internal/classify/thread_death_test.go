package classify_test

import (
	"strings"
	"testing"

	"launchwatch/internal/classify"
)

// A traceback that threading's "Exception in thread NAME:" introduced ends
// one thread, not the process: while a batch ends inside its frames it is
// undecided (pending like a trailing ERROR run, no fatal alarm to show), and
// its exception line decides. A telemetry thread's failed call is then
// withdrawn; a thread that dies of a CUDA OOM still makes a fatal alarm.
func TestThreadTracebackInFramesIsUndecided(t *testing.T) {
	t.Parallel()
	head := `Exception in thread Thread-3 (_report_usage):
Traceback (most recent call last):
  File "/usr/lib/python3.12/threading.py", line 1012, in run
    self._target(*self._args, **self._kwargs)
  File "/usr/lib/python3.12/contextlib.py", line 158, in __exit__
    self.gen.throw(value)`
	feed := func(st *classify.State, from int, text string) classify.Result {
		var lines []classify.Line
		for i, l := range strings.Split(text, "\n") {
			lines = append(lines, classify.Line{Seq: int64(from + i), Text: l})
		}
		return st.Feed(lines)
	}
	n := len(strings.Split(head, "\n"))
	for _, c := range []struct {
		name, tail string
		fatal      bool
	}{
		{"network", `  File "/srv/venv/lib/python3.12/site-packages/httpx/_client.py", line 1144, in post
    return self.request("POST", url, json=json)
httpx.ConnectError: [Errno -3] Temporary failure in name resolution`, false},
		{"oom", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", true},
	} {
		st := classify.New("")
		feed(st, 1, head)
		if sum := st.Summary(); sum.PendingFatal != 0 || sum.PendingRuns == 0 {
			t.Fatalf("%s: a thread's traceback cut in its frames: %+v, want it undecided (pending run, no pending fatal)", c.name, sum)
		}
		st.Settle(classify.SettleIdle)
		if sum := st.Summary(); sum.FatalAlarms != 0 && sum.PendingRuns == 0 {
			t.Fatalf("%s: the settle bound decided an undecided thread traceback: %+v", c.name, sum)
		}
		feed(st, n+1, c.tail+"\n")
		st.Settle(classify.SettleStreamEnd)
		if got := st.Summary().FatalAlarms > 0; got != c.fatal {
			t.Errorf("%s: fatal %v, want %v (%+v)", c.name, got, c.fatal, st.Summary())
		}
	}
}

// A thread whose name says it only reports (usage, telemetry, analytics,
// metrics, stats) is a side job: its death, whatever the exception, is no
// server failure. A thread with another job (an engine loop) stays an alarm.
// The verdict is the same however the launch is settled: by the settler at
// the bound (SettleIdle) before or without a reader's, or by the stream's
// end alone; and whether the next line, if any, comes from the same
// process or from another one (vLLM tags each line with its process).
func TestReportingThreadDeathIsNoAlarm(t *testing.T) {
	t.Parallel()
	body := `Traceback (most recent call last):
  File "/usr/lib/python3.12/threading.py", line 1012, in run
    self._target(*self._args, **self._kwargs)
  File "/srv/app/usage_lib.py", line 262, in _write_to_file
    os.makedirs(path, exist_ok=True)
PermissionError: [Errno 13] Permission denied: '/home/app/.config/app'`
	settles := [][]classify.SettleMode{
		{classify.SettleStreamEnd},
		{classify.SettleIdle},
		{classify.SettleIdle, classify.SettleStreamEnd},
	}
	for _, c := range []struct {
		intro  string
		alarms int
	}{
		{"Exception in thread Thread-2 (_report_usage_worker):", 0},
		{"Exception in thread usage-stats:", 0},
		{"Exception in thread Thread-2 (_step_loop):", 1},
	} {
		for _, tag := range []string{"", "(APIServer pid=4242) "} {
			for _, end := range []string{"", "INFO 01-02 03:04:09 [loader.py:2] Loading weights took 4.00 seconds",
				"(EngineCore_DP0 pid=4300) INFO 01-02 03:04:09 [backends.py:7] Compiling a graph for dynamic shape takes 9.10 s"} {
				for _, modes := range settles {
					st := classify.New("vllm")
					var lines []classify.Line
					for _, l := range strings.Split(c.intro+"\n"+body, "\n") {
						lines = append(lines, classify.Line{Seq: int64(len(lines) + 1), Text: tag + l})
					}
					if end != "" {
						lines = append(lines, classify.Line{Seq: int64(len(lines) + 1), Text: end})
					}
					st.Feed(lines)
					for _, m := range modes {
						st.Settle(m)
					}
					if got := st.Summary().LiveAlarms; got != c.alarms {
						t.Errorf("%q tagged %q, then %q, settled %v: %d alarms, want %d", c.intro, tag, end, modes, got, c.alarms)
					}
				}
			}
		}
	}
}
