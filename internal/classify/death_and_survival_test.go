package classify_test

import "testing"

// A shell's bare job status ("Killed") right after a fatal event is that
// event's end (the process that reported the failure died), not a second
// alarm to triage; alone, it is a death of its own.
func TestShellDeathReportEndsTheFailureBeforeIt(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "sglang", `[2031-01-02 03:04:05 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/x/scheduler.py", line 10, in run_scheduler_process
    scheduler = Scheduler()
RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.

[2031-01-02 03:04:06] Received sigquit from a child process. It usually means the child failed.
Killed`)
	if len(run.Alarms) != 1 || !run.Alarms[0].Fatal {
		t.Fatalf("alarms %+v, want one fatal alarm with the Killed line in it", run.Alarms)
	}
	alone := feedBothWays(t, "sglang", `[2031-01-02 03:04:05 TP0] Load weight begin. avail mem=70.00 GB
Killed`)
	if len(alone.Alarms) != 1 || !alone.Alarms[0].Fatal || alone.Alarms[0].Headline != "Killed" {
		t.Fatalf("alarms %+v, want Killed as a fatal alarm of its own", alone.Alarms)
	}
}

const tritonModelFails = `I0102 03:04:05.000000 1 model_lifecycle.cc:473] loading: embedder:1
I0102 03:04:05.000000 1 model_lifecycle.cc:473] loading: ranker:1
E0102 03:04:06.000000 1 model_lifecycle.cc:630] failed to load 'embedder' version 1: Internal: ModuleNotFoundError: No module named 'made_up_pkg'

At:
  /models/embedder/1/model.py(4): <module>

I0102 03:04:06.000000 1 model_lifecycle.cc:770] failed to load 'embedder'
I0102 03:04:09.000000 1 model_lifecycle.cc:827] successfully loaded 'ranker'
I0102 03:04:09.000000 1 server.cc:674] loaded models listed
I0102 03:04:09.000000 1 metrics.cc:877] Collecting metrics for GPU 0: made-up GPU`

// Triton outlives a model that fails to load: only its own last words say
// whether the failure brought it down.
func TestTritonModelLoadFailureIsFatalOnlyWhenTritonSaysSo(t *testing.T) {
	t.Parallel()
	served := feedBothWays(t, "", tritonModelFails+`
I0102 03:04:09.000000 1 grpc_server.cc:2495] Started GRPCInferenceService at 0.0.0.0:8001
I0102 03:04:09.000000 1 http_server.cc:4619] Started HTTPService at 0.0.0.0:8000`)
	if len(served.Alarms) != 1 || served.Alarms[0].Fatal {
		t.Fatalf("alarms %+v, want one non-fatal alarm (--exit-on-error=false: Triton serves the rest)", served.Alarms)
	}
	exited := feedBothWays(t, "", tritonModelFails+`
I0102 03:04:09.000000 1 server.cc:307] Waiting for in-flight requests to complete.
I0102 03:04:09.000000 1 server.cc:338] All models are stopped, unloading models
I0102 03:04:10.000000 1 server.cc:345] Timeout 29: Found 0 live models and 0 in-flight non-inference requests
error: creating server: Internal - failed to load all models`)
	if len(exited.Alarms) != 2 || !exited.Alarms[0].Fatal || !exited.Alarms[1].Fatal {
		t.Fatalf("alarms %+v, want the model failure made fatal by Triton's exit, and the exit", exited.Alarms)
	}
}

// A background thread whose network call failed (threading's "Exception in
// thread NAME:" over a network-only traceback) is no server failure; the
// same intro over any other failure stays an alarm.
func TestThreadsFailedNetworkCallIsNoAlarm(t *testing.T) {
	t.Parallel()
	const intro = `INFO 01-02 03:04:05 [loader.py:1] Loading weights
Exception in thread Thread-4 (_send_metrics):
Traceback (most recent call last):
  File "/x/threading.py", line 1045, in _bootstrap_inner
    self.run()
  File "/x/site-packages/httpx/_transports/default.py", line 86, in map_httpcore_exceptions
    raise mapped_exc(message) from exc
`
	run := feedBothWays(t, "vllm", intro+`httpx.ConnectError: [Errno -3] Temporary failure in name resolution
INFO 01-02 03:04:09 [loader.py:2] Loading weights took 4.00 seconds`)
	if len(run.Alarms) != 0 {
		t.Fatalf("alarms %+v, want none: only a reporting thread's call failed", run.Alarms)
	}
	ended := feedBothWays(t, "vllm", intro+`httpx.ConnectError: [Errno -3] Temporary failure in name resolution`)
	if len(ended.Alarms) != 0 {
		t.Fatalf("alarms %+v at the stream's end, want none", ended.Alarms)
	}
	other := feedBothWays(t, "vllm", `Exception in thread Thread-4 (_step_loop):
Traceback (most recent call last):
  File "/x/engine.py", line 10, in _step_loop
    self.step()
IndexError: list index out of range
INFO 01-02 03:04:09 [loader.py:2] Loading weights took 4.00 seconds`)
	if len(other.Alarms) != 1 {
		t.Fatalf("alarms %+v, want the thread's IndexError as an alarm", other.Alarms)
	}
}

// uvicorn's "Exception in ASGI application" over a TaskGroup's
// ExceptionGroup and the traceback chained to it are one alarm headed by the
// leaf exception.
func TestASGIExceptionGroupIsOneAlarmWithTheLeafHeadline(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "vllm", `INFO:     Application startup complete.
ERROR:    Exception in ASGI application
  + Exception Group Traceback (most recent call last):
  |   File "/x/starlette/_utils.py", line 76, in collapse_excgroups
  |     yield
  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)
  +-+---------------- 1 ----------------
    | Traceback (most recent call last):
    |   File "/x/app.py", line 9, in auth
    |     token = headers["x-key"]
    | KeyError: 'x-key'
    +------------------------------------

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/x/app.py", line 9, in auth
    token = headers["x-key"]
KeyError: 'x-key'
INFO:     127.0.0.1:40002 - "POST /v1/completions HTTP/1.1" 200 OK`)
	if len(run.Alarms) != 1 || run.Alarms[0].Headline != "KeyError: 'x-key'" {
		t.Fatalf("alarms %+v, want one alarm headed by the KeyError", run.Alarms)
	}
}

// asyncio's exception handler reports an exception the loop survived: at
// the very end of an excerpt it is still no crash.
func TestAsyncioHandlerReportIsSurvived(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "vllm", `INFO:     Application startup complete.
INFO:     127.0.0.1:40000 - "POST /v1/completions HTTP/1.1" 200 OK
ERROR:    Exception in callback H11Protocol.timeout_keep_alive_handler()
handle: <TimerHandle when=812.5 H11Protocol.timeout_keep_alive_handler()>
Traceback (most recent call last):
  File "/x/uvicorn/protocols/http/h11_impl.py", line 363, in timeout_keep_alive_handler
    self.conn.send(event)
h11._util.LocalProtocolError: Can't send data when our state is ERROR`)
	if len(run.Alarms) != 1 || run.Alarms[0].Fatal || run.Alarms[0].FirstSeq != 3 {
		t.Fatalf("alarms %+v, want one non-fatal alarm from line 3", run.Alarms)
	}
	dead := feedBothWays(t, "vllm", `INFO:     Application startup complete.
ERROR:asyncio:Exception in callback _log_task_completion(error_callback=<bound method>)
handle: <Handle _log_task_completion(error_callback=<bound method>)>
Traceback (most recent call last):
  File "/x/vllm/engine/async_llm_engine.py", line 59, in _log_task_completion
    raise AsyncEngineDeadError(
vllm.engine.async_llm_engine.AsyncEngineDeadError: Task finished unexpectedly. See stack trace above for the actual cause.`)
	if len(dead.Alarms) != 1 || !dead.Alarms[0].Fatal {
		t.Fatalf("alarms %+v, want one fatal alarm: the engine died", dead.Alarms)
	}
}
