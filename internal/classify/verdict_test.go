package classify_test

import (
	"fmt"
	"strings"
	"testing"

	"launchwatch/internal/classify"
)

const readyThenTraceback = `INFO:     Application startup complete.
INFO:     127.0.0.1:40000 - "POST /v1/completions HTTP/1.1" 200 OK
ERROR 07-01 10:00:00 [engine.py:1] Error in generate
Traceback (most recent call last):
  File "/x/engine.py", line 30, in generate
    out = self.step()
IndexError: list index out of range`

func TestServingAfterAnErrorMeansItWasSurvived(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "vllm", readyThenTraceback+`
INFO:     127.0.0.1:40002 - "POST /v1/completions HTTP/1.1" 200 OK
INFO 07-01 10:00:05 [loggers.py:1] Engine 000: Avg prompt throughput: 12.0 tokens/s, Avg generation throughput: 30.1 tokens/s, Running: 1 reqs`)
	if len(run.Alarms) != 1 || run.Alarms[0].Fatal {
		t.Fatalf("alarms %+v, want one non-fatal alarm: the server kept serving", run.Alarms)
	}
}

func TestAProcessDeathAfterAnErrorMakesItFatal(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "vllm", readyThenTraceback+`
ERROR 07-01 10:00:01 [client.py:1] Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.
INFO:     127.0.0.1:40002 - "POST /v1/completions HTTP/1.1" 200 OK
INFO:     127.0.0.1:40003 - "POST /v1/completions HTTP/1.1" 200 OK`)
	if len(run.Alarms) == 0 || !run.Alarms[0].Fatal {
		t.Fatalf("alarms %+v, want the IndexError fatal: the engine died after it", run.Alarms)
	}
}

// An error after readiness is not settled until what follows tells its
// fate; the end of the stream settles it as it stands.
func TestAnErrorWhileServingAwaitsEvidence(t *testing.T) {
	t.Parallel()
	st := classify.New("vllm")
	var seq int64
	feed := func(text string) classify.Result {
		var ls []classify.Line
		for _, l := range strings.Split(text, "\n") {
			seq++
			ls = append(ls, classify.Line{Seq: seq, Text: l})
		}
		return st.Feed(ls)
	}
	feed(readyThenTraceback + "\nINFO 07-01 10:00:02 [metrics.py:1] Prefix cache hit rate: GPU: 10.00%")
	if p := st.Summary().PendingFatal; p != 1 {
		t.Fatalf("PendingFatal = %d after the traceback, want 1 (no evidence yet)", p)
	}
	res := st.Settle(classify.SettleStreamEnd)
	if len(res.Alarms) != 1 || !res.Alarms[0].Settled || !res.Alarms[0].Fatal {
		t.Fatalf("Settle gave %+v, want the alarm settled and fatal", res.Alarms)
	}
	if p := st.Summary().PendingFatal; p != 0 {
		t.Errorf("PendingFatal = %d after Settle", p)
	}
}

func TestReadinessAfterAnErrorMeansItWasSurvived(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "vllm", `INFO 07-01 09:00:00 [core.py:1] Starting to load model m
ERROR 07-01 09:00:10 [worker.py:1] Error executing method determine_num_available_blocks
Traceback (most recent call last):
  File "/x/worker.py", line 9, in determine_num_available_blocks
    self.profile()
RuntimeError: profiling run failed, falling back to the default block count
INFO 07-01 09:00:20 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000
INFO:     Application startup complete.`)
	if len(run.Alarms) > 1 || (len(run.Alarms) == 1 && run.Alarms[0].Fatal) {
		t.Fatalf("alarms %+v, want no fatal alarm: the server came up after the error", run.Alarms)
	}
	if run.Ready == nil {
		t.Fatal("not ready")
	}
}

func TestOllamaRunnerFailureIsNotTheServersDeath(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "ollama", `time=2026-01-02T03:04:00.000Z level=INFO source=routes.go:1200 msg="Listening on 127.0.0.1:11434 (version 0.9.0)"
time=2026-01-02T03:04:05.000Z level=ERROR source=sched.go:400 msg="error loading llama server" error="llama runner process has terminated: exit status 2"
[GIN] 2026/01/02 - 03:04:05 | 500 |  2.000123456s |       127.0.0.1 | POST     "/api/generate"`)
	for _, a := range run.Alarms {
		if a.Fatal {
			t.Fatalf("alarm %+v is fatal: ollama serve keeps answering after a runner fails", a)
		}
	}
}

// A runner's Go panic, forwarded to `ollama serve`'s stderr, followed by
// serve's own "post predict" error for that request: the child died, the
// parent that reports it did not. The report is no alarm of its own.
func TestOllamaRunnerPanicBeforeServesRequestErrorIsNotFatal(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "ollama", `time=2026-01-02T03:04:00.000Z level=INFO source=routes.go:1200 msg="Listening on 127.0.0.1:11434 (version 0.9.0)"
panic: runtime error: index out of range [5] with length 5

goroutine 9 [running]:
github.com/example/runner.(*Server).step(0xc000100000)
	/src/runner/runner.go:100 +0x1a
created by github.com/example/runner.Execute in goroutine 1
	/src/runner/runner.go:20 +0x5c
time=2026-01-02T03:04:05.000Z level=ERROR source=server.go:800 msg="post predict" error="Post \"http://127.0.0.1:40000/completion\": EOF"
[GIN] 2026/01/02 - 03:04:05 | 500 |  2.000123456s |       127.0.0.1 | POST     "/api/generate"`)
	if len(run.Alarms) != 1 || run.Alarms[0].Fatal {
		t.Fatalf("alarms %+v, want one non-fatal alarm (the runner's panic)", run.Alarms)
	}
}

// uvicorn logs "Application startup complete." before it binds its socket:
// a bind failure right after it means the server never listened, so the
// readiness is taken back (the ready line is an ordinary line again) and
// the failure is a crash before readiness. A server handed a bound socket
// (vLLM) that serves after the same line stays ready, and so does one whose
// bind-like failure comes long after it.
func TestBindFailureRightAfterStartupTakesReadinessBack(t *testing.T) {
	t.Parallel()
	head := `2031-02-03 04:05:01,100 - tinyserve - INFO - engine.py:66 - model loaded in 8.1 s
INFO:     Started server process [4242]
INFO:     Waiting for application startup.
INFO:     Application startup complete.`
	run := feedBothWays(t, "", head+`
ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 23333): address already in use
INFO:     Waiting for application shutdown.
INFO:     Application shutdown complete.`)
	if run.Ready != nil {
		t.Errorf("ready at line %d, want the readiness taken back", run.Ready.Seq)
	}
	if k := run.Verdicts[3].Kind; k == classify.KindReady {
		t.Errorf("the startup line is still kind %q", k)
	}
	if run.Final != "alarm" || len(run.Alarms) != 1 || !run.Alarms[0].Fatal || run.Alarms[0].HeadlineSeq != 5 {
		t.Errorf("final %q, alarms %+v; want alarm with one fatal alarm headed by the bind failure", run.Final, run.Alarms)
	}

	served := feedBothWays(t, "", head+`
INFO:     10.0.0.7:51234 - "GET /v1/models HTTP/1.1" 200 OK
INFO:     10.0.0.7:51240 - "POST /v1/completions HTTP/1.1" 200 OK`)
	if served.Ready == nil || served.Ready.Seq != 4 || served.Final != "ready" {
		t.Errorf("a server that serves after the startup line: ready %+v, final %q; want ready at line 4", served.Ready, served.Final)
	}

	late := head
	for i := range 8 {
		late += fmt.Sprintf("\nINFO:     10.0.0.7:%d - \"GET /health HTTP/1.1\" 200 OK", 51000+i)
	}
	lateRun := feedBothWays(t, "", late+`
ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 9400): address already in use`)
	if lateRun.Ready == nil || lateRun.Ready.Seq != 4 {
		t.Errorf("a bind failure long after readiness took it back: ready %+v", lateRun.Ready)
	}
}
