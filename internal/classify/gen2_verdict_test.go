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
