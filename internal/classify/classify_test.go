package classify_test

import (
	"strings"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/eval"
)

type wantAlarm struct {
	kind     classify.AlarmKind
	fatal    bool
	ranks    int
	headline string // substring of the headline
	headSeq  int64  // 0 = not checked
	first    int64  // 0 = not checked
	cause    int    // the alarm ID it links to as a consequence
}

func TestScenarios(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		server  string
		log     string
		alarms  []wantAlarm
		outcome string
		ready   int64
	}{
		{
			name:   "InterleavedRanksAreOneAlarm",
			server: "vllm",
			log: `(Worker_TP0 pid=11) ERROR 03-02 19:49:43 [worker.py:1] Traceback (most recent call last):
(Worker_TP1 pid=12) ERROR 03-02 19:49:43 [worker.py:1] Traceback (most recent call last):
(Worker_TP0 pid=11) ERROR 03-02 19:49:43 [worker.py:1]   File "/x/model_runner.py", line 10, in load_model
(Worker_TP1 pid=12) ERROR 03-02 19:49:43 [worker.py:1]   File "/x/model_runner.py", line 10, in load_model
(Worker_TP0 pid=11) ERROR 03-02 19:49:43 [worker.py:1]     self.model = get_model()
(Worker_TP1 pid=12) ERROR 03-02 19:49:43 [worker.py:1]     self.model = get_model()
(Worker_TP0 pid=11) ERROR 03-02 19:49:43 [worker.py:1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB. GPU 0 has a total capacity of 79.10 GiB
(Worker_TP1 pid=12) ERROR 03-02 19:49:43 [worker.py:1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB. GPU 1 has a total capacity of 79.10 GiB`,
			alarms:  []wantAlarm{{kind: classify.AlarmOOM, fatal: true, ranks: 2, headline: "CUDA out of memory", first: 1}},
			outcome: eval.OutcomeCrashed,
		},
		{
			name:   "SequentialRankTracebacksAreOneAlarm",
			server: "sglang",
			log: `[2025-01-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "/sglang/srt/managers/scheduler.py", line 1, in run_scheduler_process
    scheduler.event_loop_overlap()
KeyError: 'model.layers.3.mlp'
[2025-01-01 10:00:00 TP1] Scheduler hit an exception: Traceback (most recent call last):
  File "/sglang/srt/managers/scheduler.py", line 1, in run_scheduler_process
    scheduler.event_loop_overlap()
KeyError: 'model.layers.7.mlp'
[2025-01-01 10:00:01] Received sigquit from a child process. It usually means the child failed.`,
			alarms:  []wantAlarm{{kind: classify.AlarmTraceback, fatal: true, ranks: 2, headline: "KeyError", headSeq: 4}},
			outcome: eval.OutcomeCrashed,
		},
		{
			name:   "WarningTracebackIsNoAlarm",
			server: "",
			log: `WARNING 01-01 10:00:00 [utils.py:1] Failed to import optional kernel package, some features are disabled
Traceback (most recent call last):
  File "/x/kernels.py", line 3, in <module>
    import deep_gemm
ModuleNotFoundError: No module named 'deep_gemm'
INFO 01-01 10:00:01 [engine.py:1] Starting to load model m...`,
			outcome: eval.OutcomeLoading,
		},
		{
			name:   "OperatorInterruptIsNoAlarm",
			server: "vllm",
			log: `INFO:     Application startup complete.
^CTraceback (most recent call last):
  File "/x/bin/vllm", line 8, in <module>
    sys.exit(main())
KeyboardInterrupt
ERROR 01-01 10:00:01 [core.py:1] EngineCore failed: RuntimeError: cancelled`,
			outcome: eval.OutcomeReady,
			ready:   1,
		},
		{
			name:   "BenignWordsAreNoAlarm",
			server: "",
			log: `INFO 01-01 10:00:00 [x.py:1] Registered ErrorHandler for /v1/errors
INFO 01-01 10:00:00 [x.py:1] Health check: 0 errors, 0 failures, 0 exceptions
INFO 01-01 10:00:00 [x.py:1] enable_custom_allreduce_error_check=False max_timeout=30
2025-10-14 19:22:02.871009: E external/local_xla/xla/stream_executor/cuda/cuda_fft.cc:467] Unable to register cuFFT factory
[TensorRT-LLM][WARNING] [json.exception.type_error.302] type must be string, but is null
ERROR 01-01 10:00:00 [fa_utils.py:57] Cannot use FA version 2 is not supported due to FA2 is only supported on devices with compute capability >= 8
INFO 01-01 10:00:01 [x.py:1] Starting to load model m`,
			// The ERROR lines are followed by ordinary ones: warnings. (The
			// same run as the last words of a stream would be its crash.)
			outcome: eval.OutcomeLoading,
		},
		{
			name:    "ConfigDumpIsConfig",
			server:  "vllm",
			log:     `INFO 05-12 02:45:15 [api_server.py:1044] args: Namespace(model='m', disable_log_requests=False, max_log_len=None, exception_handler='raise', on_error='fail', timeout=600)`,
			outcome: eval.OutcomeLoading,
		},
		{
			name:   "UnknownServerTraceback",
			server: "",
			log: `starting my-server
Traceback (most recent call last):
  File "/app/serve.py", line 42, in <module>
    engine = Engine(cfg)
RuntimeError: CUDA error: an illegal memory access was encountered
CUDA kernel errors might be asynchronously reported at some other API call.
For debugging consider passing CUDA_LAUNCH_BLOCKING=1`,
			alarms:  []wantAlarm{{kind: classify.AlarmCUDA, fatal: true, ranks: 1, headline: "illegal memory access", headSeq: 5, first: 2}},
			outcome: eval.OutcomeCrashed,
		},
		{
			name:    "Segfault",
			server:  "",
			log:     "loading...\nSegmentation fault (core dumped)",
			alarms:  []wantAlarm{{kind: classify.AlarmSignal, fatal: true, ranks: 1, headline: "Segmentation fault", headSeq: 2}},
			outcome: eval.OutcomeCrashed,
		},
		{
			name:   "TGIReadyOnlyWhenRouterConnects",
			server: "",
			log: `2024-12-11T10:04:00.597656Z  INFO text_generation_launcher: Server started at unix:///tmp/text-generation-server-0
2024-12-11T10:04:00.680759Z  INFO shard-manager: text_generation_launcher: Shard ready in 9.313982844s rank=0
2024-12-11T10:04:00.802105Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:125: Warming up model
2024-12-11T10:04:05.000000Z  INFO text_generation_router::server: router/src/server.rs:2402: Connected`,
			outcome: eval.OutcomeReady,
			ready:   4,
		},
		{
			name:    "OllamaReady",
			server:  "ollama",
			log:     `time=2024-06-01T10:00:00.000Z level=INFO source=routes.go:1100 msg="Listening on 127.0.0.1:11434 (version 0.1.41)"`,
			outcome: eval.OutcomeReady,
			ready:   1,
		},
		{
			name:   "SGLangUvicornIsNotReady",
			server: "sglang",
			log: `[2025-07-19 23:01:27] INFO:     Application startup complete.
[2025-07-19 23:01:29] The server is fired up and ready to roll!`,
			outcome: eval.OutcomeReady,
			ready:   2,
		},
		{
			name:   "RequestErrorTheServerSurvives",
			server: "vllm",
			log: `INFO:     Application startup complete.
ERROR 01-01 10:00:00 [serving_chat.py:1] Error in preprocessing prompt inputs
Traceback (most recent call last):
  File "/vllm/entrypoints/openai/serving_chat.py", line 1, in create_chat_completion
    prompt = self._preprocess(request)
ValueError: This model's maximum context length is 8192 tokens.
INFO:     127.0.0.1:1 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error
INFO:     127.0.0.1:2 - "POST /v1/chat/completions HTTP/1.1" 200 OK`,
			// Answered 500: a request's failure the server survives. (The
			// same error answered 400 is a handled rejection, no alarm:
			// TestHandledRequestErrorAnswered4xxIsNoAlarm.)
			alarms:  []wantAlarm{{kind: classify.AlarmTraceback, fatal: false, ranks: 1, headline: "maximum context length", first: 2}},
			outcome: eval.OutcomeReady,
			ready:   1,
		},
		{
			name:   "CrashAfterReadiness",
			server: "vllm",
			log: `INFO:     Application startup complete.
ERROR 01-01 10:00:00 [core.py:1] EngineCore encountered a fatal error.
Traceback (most recent call last):
  File "/vllm/v1/engine/core.py", line 1, in run_busy_loop
    self._process_engine_step()
RuntimeError: CUDA error: an illegal memory access was encountered`,
			alarms:  []wantAlarm{{kind: classify.AlarmCUDA, fatal: true, ranks: 1, headline: "illegal memory access", first: 2, headSeq: 6}},
			outcome: eval.OutcomeReadyThenCrashed,
			ready:   1,
		},
		{
			name:   "CaughtAndFellBack",
			server: "",
			log: `Traceback (most recent call last):
  File "/x/attn.py", line 3, in <module>
    from flash_attn import flash_attn_func
ImportError: libcudart.so.11.0: cannot open shared object file
flash_attn could not be loaded, falling back to sdpa`,
			outcome: eval.OutcomeLoading,
		},
		{
			name:   "ChainedTracebackIsOneAlarm",
			server: "",
			log: `Traceback (most recent call last):
  File "/x/a.py", line 1, in f
    g()
OSError: [Errno 28] No space left on device

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/x/a.py", line 5, in main
    f()
RuntimeError: failed to save checkpoint`,
			alarms:  []wantAlarm{{kind: classify.AlarmTraceback, fatal: true, ranks: 1, headline: "failed to save checkpoint", headSeq: 11, first: 1}},
			outcome: eval.OutcomeCrashed,
		},
		{
			name:   "ShutdownTeardownIsNoAlarm",
			server: "sglang",
			log: `[2026-08-01 23:43:47] The server is fired up and ready to roll!
[2026-08-02 00:17:43] SIGTERM received. signum=None frame=None. Draining requests and shutting down...
[2026-08-02 00:17:43] Subprocess detokenizer (pid=31379) crashed with exit code -15. Triggering SIGQUIT for cleanup...
[2026-08-02 00:17:43] SIGQUIT received. signum=None, frame=None. It usually means one child failed.`,
			outcome: eval.OutcomeReady,
			ready:   1,
		},
		{
			name:   "NCCLWatchdogAbort",
			server: "",
			log: `terminate called after throwing an instance of 'c10::DistBackendError'
  what():  [PG 0 Rank 3] Process group watchdog thread terminated with exception: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.
Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f in /x/libc10.so)`,
			alarms:  []wantAlarm{{kind: classify.AlarmNCCL, fatal: true, ranks: 1, headline: "Watchdog caught collective operation timeout", headSeq: 2, first: 1}},
			outcome: eval.OutcomeCrashed,
		},
		{
			// The launcher's report is its own event (an engineer quotes
			// both), linked to the shard's error as its consequence.
			name:   "TGIShardFailureAndLauncherReport",
			server: "tgi",
			log: `2024-12-11T10:04:03.000000Z ERROR text_generation_launcher: Error when initializing model
Traceback (most recent call last):

  File "/opt/conda/bin/text-generation-server", line 8, in <module>
    sys.exit(app())
ValueError: Unsupported model type qwen3
2024-12-11T10:04:04.000000Z ERROR text_generation_launcher: Shard 0 failed to start
2024-12-11T10:04:04.000000Z  INFO text_generation_launcher: Shutting down shards
Error: ShardCannotStart`,
			alarms: []wantAlarm{{kind: classify.AlarmTraceback, fatal: true, ranks: 1, headline: "Unsupported model type", headSeq: 6, first: 1},
				{kind: classify.AlarmOther, fatal: true, ranks: 1, headline: "Shard 0 failed to start", headSeq: 7, first: 7, cause: 1}},
			outcome: eval.OutcomeCrashed,
		},
		{
			name:   "RichTraceback",
			server: "tgi",
			log: `╭───────────────────── Traceback (most recent call last) ──────────────────────╮
│ /opt/conda/lib/python3.11/site-packages/text_generation_server/cli.py:118 in │
│ serve                                                                        │
╰──────────────────────────────────────────────────────────────────────────────╯
RuntimeError: FlashAttention only supports Ampere GPUs or newer.`,
			alarms:  []wantAlarm{{kind: classify.AlarmTraceback, fatal: true, ranks: 1, headline: "FlashAttention only supports", headSeq: 5, first: 1}},
			outcome: eval.OutcomeCrashed,
		},
		{
			name:   "FaulthandlerDump",
			server: "",
			log: `Fatal Python error: Segmentation fault

Thread 0x00007f3b6e7236fc (most recent call first):
  File "/x/threading.py", line 324 in wait
Current thread 0x00007f3c750b0353 (most recent call first):
  File "/x/model.py", line 12 in forward
Extension modules: numpy.core._multiarray_umath (total: 1)`,
			alarms:  []wantAlarm{{kind: classify.AlarmSignal, fatal: true, ranks: 1, headline: "Fatal Python error", headSeq: 1, first: 1}},
			outcome: eval.OutcomeCrashed,
		},
		{
			name:   "PortInUse",
			server: "vllm",
			log: `INFO:     Waiting for application startup.
ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 8000): address already in use`,
			alarms:  []wantAlarm{{kind: classify.AlarmOther, fatal: true, ranks: 1, headline: "address already in use", headSeq: 2}},
			outcome: eval.OutcomeCrashed,
		},
		{
			name:   "BareRankTagsAndWrapperLevels",
			server: "",
			log: `2026-06-09 14:01:54.604 [Info] (Process) [TP0] Scheduler hit an exception: Traceback (most recent call last):
2026-06-09 14:01:54.604 [Info] (Process)   File "/sglang/srt/managers/scheduler.py", line 1, in run_scheduler_process
2026-06-09 14:01:54.604 [Info] (Process)     scheduler.event_loop_overlap()
2026-06-09 14:01:54.604 [Info] (Process) RuntimeError: Prefill out of memory. Try to lower your batch size.
2026-06-09 14:01:54.605 [Info] (Process) [TP1] Scheduler hit an exception: Traceback (most recent call last):
2026-06-09 14:01:54.605 [Info] (Process)   File "/sglang/srt/managers/scheduler.py", line 1, in run_scheduler_process
2026-06-09 14:01:54.605 [Info] (Process)     scheduler.event_loop_overlap()
2026-06-09 14:01:54.605 [Info] (Process) RuntimeError: Prefill out of memory. Try to lower your batch size.`,
			alarms:  []wantAlarm{{kind: classify.AlarmTraceback, fatal: true, ranks: 2, headline: "Prefill out of memory", headSeq: 4, first: 1}},
			outcome: eval.OutcomeCrashed,
		},
		{
			name:   "RayWorkerTags",
			server: "vllm",
			log: `(RayWorkerWrapper pid=2960, ip=10.1.1.1) ERROR 01-01 10:00:00 [worker_base.py:1] Error executing method load_model. This might cause deadlock in distributed execution.
(RayWorkerWrapper pid=2960, ip=10.1.1.1) ERROR 01-01 10:00:00 [worker_base.py:1] Traceback (most recent call last):
(RayWorkerWrapper pid=2960, ip=10.1.1.1) ERROR 01-01 10:00:00 [worker_base.py:1]   File "/vllm/worker/worker_base.py", line 1, in execute_method
(RayWorkerWrapper pid=2960, ip=10.1.1.1) ERROR 01-01 10:00:00 [worker_base.py:1]     return executor(*args, **kwargs)
(RayWorkerWrapper pid=2960, ip=10.1.1.1) ERROR 01-01 10:00:00 [worker_base.py:1] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.`,
			alarms:  []wantAlarm{{kind: classify.AlarmOOM, fatal: true, ranks: 1, headline: "CUDA out of memory", headSeq: 5, first: 1}},
			outcome: eval.OutcomeCrashed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lines := strings.Split(tt.log, "\n")
			run, err := eval.Feed(lines, tt.server, eval.LineByLine, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Alarms) != len(tt.alarms) {
				t.Fatalf("got %d alarms, want %d: %+v", len(run.Alarms), len(tt.alarms), run.Alarms)
			}
			for i, w := range tt.alarms {
				a := run.Alarms[i]
				if a.Kind != w.kind || a.Fatal != w.fatal || a.Ranks != w.ranks || !strings.Contains(a.Headline, w.headline) {
					t.Errorf("alarm %d = kind %s fatal %v ranks %d headline %q; want %s %v %d %q", i, a.Kind, a.Fatal, a.Ranks, a.Headline, w.kind, w.fatal, w.ranks, w.headline)
				}
				if w.headSeq != 0 && a.HeadlineSeq != w.headSeq {
					t.Errorf("alarm %d headline line %d, want %d", i, a.HeadlineSeq, w.headSeq)
				}
				if a.Cause != w.cause {
					t.Errorf("alarm %d is a consequence of %d, want %d", i, a.Cause, w.cause)
				}
				if w.first != 0 && a.FirstSeq != w.first {
					t.Errorf("alarm %d first line %d, want %d", i, a.FirstSeq, w.first)
				}
				if a.Template == "" || a.Fingerprint == "" {
					t.Errorf("alarm %d has no template or fingerprint", i)
				}
			}
			if got := eval.Outcome(run.Alarms, run.Ready); got != tt.outcome {
				t.Errorf("outcome %s, want %s", got, tt.outcome)
			}
			var ready int64
			if run.Ready != nil {
				ready = run.Ready.Seq
			}
			if ready != tt.ready {
				t.Errorf("ready at %d, want %d", ready, tt.ready)
			}
			// Every line of an alarm points at a live alarm; no line points at a withdrawn one.
			live := map[int]bool{}
			for _, a := range run.Alarms {
				live[a.ID] = true
			}
			for _, v := range run.Verdicts {
				if v.Alarm != 0 && !live[v.Alarm] {
					t.Errorf("line %d points at alarm %d, which is not live", v.Seq, v.Alarm)
				}
				if (v.Alarm != 0) != (v.Kind == classify.KindError) {
					t.Errorf("line %d: kind %s with alarm %d", v.Seq, v.Kind, v.Alarm)
				}
			}
		})
	}
}

func TestLineKindsPrefixesAndConfig(t *testing.T) {
	t.Parallel()
	lines := []string{
		"[2025-07-19 23:01:09] server_args=ServerArgs(model_path='m', tp_size=8, mem_fraction_static=0.85, json_model_override_args='{\"a\": 1}')",
		"[2026-01-12 05:01:28 DP13 TP13 EP13] Load weight begin. avail mem=60.96 GB",
		"\rLoading safetensors checkpoint shards:   0% Completed | 0/64 [00:00<?, ?it/s]\rLoading safetensors checkpoint shards:  19% Completed | 12/64 [00:10<00:40,  1.2it/s]",
		"(EngineCore_DP0 pid=4671) WARNING 10-14 19:22:48 [topk_topp_sampler.py:66] FlashInfer is not available.",
		"[2025-07-19 23:01:29] The server is fired up and ready to roll!",
	}
	st := classify.New("sglang")
	var in []classify.Line
	for i, l := range lines {
		in = append(in, classify.Line{Seq: int64(i + 1), Text: l})
	}
	res := st.Feed(in)
	wantKinds := []classify.LineKind{classify.KindConfig, classify.KindProgress, classify.KindProgress, classify.KindWarning, classify.KindReady}
	for i, v := range res.Lines {
		if v.Kind != wantKinds[i] {
			t.Errorf("line %d kind %s, want %s", i+1, v.Kind, wantKinds[i])
		}
	}
	if v := res.Lines[1]; v.Rank != "DP13 TP13 EP13" || v.Time.IsZero() {
		t.Errorf("line 2 prefix: rank %q time %v", v.Rank, v.Time)
	}
	if v := res.Lines[3]; v.Level != "WARNING" || v.Rank != "DP0" {
		t.Errorf("line 4 prefix: level %q rank %q", v.Level, v.Rank)
	}
	if res.Config["tp_size"] != "8" || res.Config["model_path"] != "m" || res.Config["mem_fraction_static"] != "0.85" {
		t.Errorf("config = %v", res.Config)
	}
	var weights *classify.Phase
	for i := range res.Phases {
		if res.Phases[i].Name == "weights" {
			weights = &res.Phases[i]
		}
	}
	if weights == nil || weights.Done != 12 || weights.Total != 64 || weights.BeginSeq != 2 || weights.EndSeq != 5 {
		t.Errorf("weights phase = %+v", weights)
	}
	if res.Ready == nil || res.Ready.Seq != 5 {
		t.Errorf("ready = %+v", res.Ready)
	}
	sum := st.Summary()
	if sum.Ready == nil || sum.LastSeq != 5 || sum.Alarms != 0 {
		t.Errorf("summary = %+v", sum)
	}
}

func TestDetectsServerFamily(t *testing.T) {
	t.Parallel()
	tests := []struct{ line, want string }{
		{"[2025-05-22 20:31:03] server_args=ServerArgs(model_path='m')", "sglang"},
		{"INFO 05-12 02:45:15 [api_server.py:1043] vLLM API server version 0.8.5.post1", "vllm"},
		{"2024-12-11T10:03:53.865482Z  INFO text_generation_launcher: Using prefix caching = False", "tgi"},
		{"[TensorRT-LLM][INFO] MPI size: 4, rank: 0", "trtllm"},
		{"nothing to see here", ""},
	}
	for _, tt := range tests {
		st := classify.New("")
		st.Feed([]classify.Line{{Seq: 1, Text: tt.line}})
		if got := st.Server(); got != tt.want {
			t.Errorf("%q: server %q, want %q", tt.line, got, tt.want)
		}
	}
}
