package classify_test

import (
	"fmt"
	"strings"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/eval"
)

// feedBothWays classifies log line by line and again in random batches with
// the state saved and restored between them, requires the same result, and
// returns it.
func feedBothWays(t *testing.T, server, log string) eval.Run {
	t.Helper()
	lines := strings.Split(log, "\n")
	one, err := eval.Feed(lines, server, eval.LineByLine, false)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 5; seed++ {
		other, err := eval.Feed(lines, server, eval.RandomBatches(seed), true)
		if err != nil {
			t.Fatal(err)
		}
		if d := eval.Diff(one, other); d != "" {
			t.Fatalf("batches (seed %d) change the result: %s", seed, d)
		}
	}
	return one
}

func alarmLines(run eval.Run, id int) []int64 {
	var seqs []int64
	for _, v := range run.Verdicts {
		if v.Alarm == id {
			seqs = append(seqs, v.Seq)
		}
	}
	return seqs
}

func TestHintLinesJoinTheirError(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "vllm", `(EngineCore pid=7) ERROR 05-01 09:00:00 [core.py:1] Traceback (most recent call last):
(EngineCore pid=7) ERROR 05-01 09:00:00 [core.py:1]   File "/x/gpu_model_runner.py", line 88, in execute_model
(EngineCore pid=7) ERROR 05-01 09:00:00 [core.py:1]     out = self.model(x)
(EngineCore pid=7) ERROR 05-01 09:00:00 [core.py:1] torch.AcceleratorError: CUDA error: device-side assert triggered
(EngineCore pid=7) ERROR 05-01 09:00:00 [core.py:1] Search for `+"`cudaErrorAssert'"+` in https://docs.example.invalid/cuda/types.html for more information.
(EngineCore pid=7) ERROR 05-01 09:00:00 [core.py:1] CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
(EngineCore pid=7) ERROR 05-01 09:00:00 [core.py:1] For debugging consider passing CUDA_LAUNCH_BLOCKING=1
(EngineCore pid=7) ERROR 05-01 09:00:00 [core.py:1] Compile with `+"`TORCH_USE_CUDA_DSA`"+` to enable device-side assertions.
INFO 05-01 09:00:01 [launcher.py:1] Shutting down FastAPI HTTP server.`)
	if len(run.Alarms) != 1 {
		t.Fatalf("got %d alarms, want the traceback alone: %+v", len(run.Alarms), run.Alarms)
	}
	a := run.Alarms[0]
	if a.HeadlineSeq != 4 || a.Kind != classify.AlarmAssert && a.Kind != classify.AlarmCUDA {
		t.Errorf("alarm = %+v, want the CUDA assert on line 4", a)
	}
	if got := alarmLines(run, a.ID); len(got) != 8 {
		t.Errorf("alarm lines %v, want 1-8 (the hints belong to it)", got)
	}
}

func TestTeardownTracebackJoinsTheCrash(t *testing.T) {
	t.Parallel()
	crash := `[2026-03-01 08:00:00] Scheduler hit an exception: Traceback (most recent call last):
  File "/x/scheduler.py", line 10, in run
    self.step()
KeyError: 'lm_head.weight'
[2026-03-01 08:00:01] Received sigquit from a child process. It usually means the child failed.
Exception ignored in: <function Engine.__del__ at 0x7f00aa11bb20>
Traceback (most recent call last):
  File "/x/engine.py", line 40, in __del__
    self.close()
AttributeError: 'Engine' object has no attribute 'pool'`
	run := feedBothWays(t, "sglang", crash)
	if len(run.Alarms) != 1 || run.Alarms[0].HeadlineSeq != 4 {
		t.Fatalf("alarms %+v, want one: the KeyError", run.Alarms)
	}
	if got := alarmLines(run, run.Alarms[0].ID); len(got) != 10 {
		t.Errorf("alarm lines %v, want 1-10 (the teardown joins the crash)", got)
	}

	// Alone, a teardown report is a warning: Python ignored it.
	alone := feedBothWays(t, "sglang", `[2026-03-01 08:00:00] The server is fired up and ready to roll!
Exception ignored in: <function Engine.__del__ at 0x7f00aa11bb20>
Traceback (most recent call last):
  File "/x/engine.py", line 40, in __del__
    self.close()
AttributeError: 'Engine' object has no attribute 'pool'`)
	if len(alone.Alarms) != 0 {
		t.Fatalf("a lone teardown report made alarms: %+v", alone.Alarms)
	}
	if k := alone.Verdicts[5].Kind; k != classify.KindWarning {
		t.Errorf("its exception line is %s, want warning", k)
	}
}

func TestUncaughtTracebackAfterAWarningIsACrash(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "vllm", `WARNING 04-02 11:00:00 [ext.py:9] Failed to import from vllm._ext with ImportError('libfoo.so: cannot open shared object file')
Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "<frozen runpy>", line 88, in _run_code
  File "/x/vllm/entrypoints/api_server.py", line 3, in <module>
    from vllm.ext import Kind
RuntimeError: Tried to instantiate class 'ext.Kind', but it does not exist`)
	if len(run.Alarms) != 1 || run.Alarms[0].HeadlineSeq != 7 || !run.Alarms[0].Fatal {
		t.Fatalf("alarms %+v, want the uncaught RuntimeError on line 7", run.Alarms)
	}
	if got := alarmLines(run, run.Alarms[0].ID); len(got) != 6 || got[0] != 2 {
		t.Errorf("alarm lines %v, want 2-7", got)
	}
}

func TestManyRanksAreOneAlarm(t *testing.T) {
	t.Parallel()
	const ranks = 72
	var b strings.Builder
	frames := []string{`Traceback (most recent call last):`, `  File "/x/worker.py", line 5, in load`, `    w = load_shard(i)`,
		`torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU %d has a total capacity of 79.10 GiB`}
	for _, f := range frames { // every rank prints each line before any prints the next
		for r := range ranks {
			fmt.Fprintf(&b, "[rank%d]: %s\n", r, strings.ReplaceAll(f, "%d", fmt.Sprint(r)))
		}
	}
	run := feedBothWays(t, "", strings.TrimSuffix(b.String(), "\n"))
	if len(run.Alarms) != 1 || run.Alarms[0].Ranks != ranks || run.Alarms[0].Kind != classify.AlarmOOM {
		t.Fatalf("got %d alarms (first %+v), want one OOM from %d ranks", len(run.Alarms), run.Alarms[0], ranks)
	}
	if got := alarmLines(run, run.Alarms[0].ID); len(got) != ranks*len(frames) {
		t.Errorf("%d lines belong to the alarm, want all %d", len(got), ranks*len(frames))
	}
}

func TestRetryNeverWithdrawsARootCause(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `Traceback (most recent call last):
  File "/x/runner.py", line 5, in capture
    graph.replay()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB.
Retrying with a smaller batch size (attempt 2/3)`)
	if len(run.Alarms) != 1 || run.Alarms[0].Kind != classify.AlarmOOM {
		t.Fatalf("alarms %+v, want the OOM kept", run.Alarms)
	}
	// A plain exception that is retried was caught.
	caught := feedBothWays(t, "", `Traceback (most recent call last):
  File "/x/hub.py", line 5, in fetch
    r = get(url)
ConnectionError: connection reset by peer
Retrying in 2 seconds (attempt 2/5)`)
	if len(caught.Alarms) != 0 {
		t.Fatalf("a retried ConnectionError made alarms: %+v", caught.Alarms)
	}
}

func TestConsequenceLinksToItsRootCause(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "vllm", `(EngineCore pid=9) ERROR 06-01 12:00:00 [core.py:1] EngineCore failed to start.
(EngineCore pid=9) ERROR 06-01 12:00:00 [core.py:1] Traceback (most recent call last):
(EngineCore pid=9) ERROR 06-01 12:00:00 [core.py:1]   File "/x/core.py", line 70, in __init__
(EngineCore pid=9) ERROR 06-01 12:00:00 [core.py:1]     self._init_kv_cache()
(EngineCore pid=9) ERROR 06-01 12:00:00 [core.py:1] ValueError: No available memory for the cache blocks. Try increasing gpu_memory_utilization.
(APIServer pid=8) Traceback (most recent call last):
(APIServer pid=8)   File "/x/bin/vllm", line 8, in <module>
(APIServer pid=8)     sys.exit(main())
(APIServer pid=8) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}`)
	if len(run.Alarms) != 2 {
		t.Fatalf("alarms %+v, want the engine's error and the API server's consequence", run.Alarms)
	}
	root, conseq := run.Alarms[0], run.Alarms[1]
	if root.Cause != 0 || root.HeadlineSeq != 5 || conseq.Cause != root.ID || conseq.HeadlineSeq != 9 {
		t.Errorf("root %+v, consequence %+v: want the consequence (headline line 9) linked to the root (line 5)", root, conseq)
	}
}

func TestCppDumpHeadlineIsWhereItWasRaised(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `frame #3: <unknown function> + 0x1234 (0x7f0000001234 in /x/libtorch.so)

Exception raised from checkTimeout at /x/ProcessGroupNCCL.cpp:600 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f0000000096 in /x/libc10.so)
frame #1: <unknown function> + 0x5678 (0x7f0000005678 in /x/libtorch_cuda.so)`)
	if len(run.Alarms) != 1 || run.Alarms[0].HeadlineSeq != 3 {
		t.Fatalf("alarms %+v, want one with its headline on line 3", run.Alarms)
	}
}

// A native program reports one failure line by line as it unwinds: one
// alarm, headed by the first (deepest) line.
func TestNativeUnwindIsOneAlarm(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `main: loading model
gguf_init: loaded 291 tensors from /m/q.gguf
llama_model_load: error loading model: tensor 'blk.3.attn_q.weight' has wrong shape
llama_model_load_from_file_impl: failed to load model
common_init_from_params: failed to load model '/m/q.gguf'
main: exiting due to model loading error`)
	if len(run.Alarms) != 1 || run.Alarms[0].HeadlineSeq != 3 || !run.Alarms[0].Fatal {
		t.Fatalf("alarms %+v, want one fatal alarm headed by line 3", run.Alarms)
	}
	if got := alarmLines(run, run.Alarms[0].ID); len(got) != 4 {
		t.Errorf("alarm lines %v, want 3-6", got)
	}
}

// mpirun's report that a rank failed is the launcher's own event, linked to
// the rank's error.
func TestMPILauncherReportLinksToTheRanksError(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `[1,0]<stderr>:Traceback (most recent call last):
[1,0]<stderr>:  File "/srv/worker.py", line 40, in main
[1,0]<stderr>:    engine = build()
[1,0]<stderr>:RuntimeError: engine plan was built for another GPU
--------------------------------------------------------------------------
Primary job  terminated normally, but 1 process returned
a non-zero exit code. Per user-direction, the job has been aborted.
--------------------------------------------------------------------------`)
	if len(run.Alarms) != 2 {
		t.Fatalf("alarms %+v, want the rank's error and mpirun's report", run.Alarms)
	}
	if r, c := run.Alarms[0], run.Alarms[1]; r.HeadlineSeq != 4 || c.Cause != r.ID || c.FirstSeq < 5 {
		t.Errorf("rank error %+v, report %+v: want the report linked to the error on line 4", r, c)
	}
}

// A progress bar another process redraws right after an exception is not
// the exception's message.
func TestProgressBarAfterAnExceptionIsNotItsMessage(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "vllm", "(EngineCore_DP0 pid=45) ERROR 11-30 10:00:02 [core.py:1] Traceback (most recent call last):\n"+
		"(EngineCore_DP0 pid=45) ERROR 11-30 10:00:02 [core.py:1]   File \"/x/core.py\", line 70, in __init__\n"+
		"(EngineCore_DP0 pid=45) ERROR 11-30 10:00:02 [core.py:1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"+
		"Loading safetensors checkpoint shards:   0% Completed | 0/4\rLoading safetensors checkpoint shards: 100% Completed | 4/4")
	if len(run.Alarms) != 1 {
		t.Fatalf("alarms %+v", run.Alarms)
	}
	if got := alarmLines(run, run.Alarms[0].ID); len(got) != 3 {
		t.Errorf("alarm lines %v, want 1-3 (not the progress bar)", got)
	}
}

// The kernel's OOM report: its first line names the task that asked for
// memory, the next the victim it killed. One event, headed by the victim.
func TestKernelOOMReportIsHeadedByTheVictim(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `INFO 01-02 03:04:00 [gpu_model_runner.py:1] Starting to load model m...
kernel: python3 invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0
kernel: Out of memory: Killed process 4242 (python3) total-vm:1000kB, anon-rss:900kB, file-rss:0kB`)
	if len(run.Alarms) != 1 || !strings.Contains(run.Alarms[0].Headline, "Out of memory: Killed process 4242") {
		t.Fatalf("alarms %+v, want one alarm headed by the Killed process line", run.Alarms)
	}
}

// TestSupervisorExitAdoptsTheReason: a program that prints why it stops
// and exits, with no level and no traceback, is reported dead by its
// supervisor on the next line; the alarm starts at the reason and quotes
// it. A supervisor's report of a clean exit is no alarm, and a reason-less
// line before a report is not adopted.
func TestSupervisorExitAdoptsTheReason(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `Welcome to Heron - Version 2.4.1
Detected Available RAM: 31999 MB

Could not open model file: /models/heron-7b.gguf
[entrypoint] heron exited with status 2, restarting in 10s (attempt 1/5)`)
	if len(run.Alarms) != 1 || !run.Alarms[0].Fatal || run.Alarms[0].FirstSeq != 4 || run.Alarms[0].HeadlineSeq != 4 {
		t.Fatalf("alarms %+v, want one fatal alarm from line 4, headed by the reason", run.Alarms)
	}
	if k := run.Verdicts[3].Kind; k != classify.KindError {
		t.Errorf("the reason's line is %q, want error", k)
	}

	plain := feedBothWays(t, "", `Welcome to Heron - Version 2.4.1
Serving the model from /models/heron-7b.gguf
[entrypoint] heron exited with status 2, restarting in 10s (attempt 1/5)`)
	if len(plain.Alarms) != 1 || plain.Alarms[0].FirstSeq != 3 || plain.Alarms[0].HeadlineSeq != 3 {
		t.Errorf("alarms %+v, want the supervisor's report alone: the line before says nothing failed", plain.Alarms)
	}

	clean := feedBothWays(t, "", `Could not find an optional plugin directory, skipping
[entrypoint] heron exited with status 0, not restarting`)
	if len(clean.Alarms) != 0 {
		t.Errorf("alarms %+v after a clean exit, want none", clean.Alarms)
	}
}
