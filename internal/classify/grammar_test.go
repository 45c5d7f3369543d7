package classify_test

import (
	"strings"
	"testing"

	"launchwatch/internal/classify"
	"launchwatch/internal/eval"
)

// grammarCase is one dump a recogniser must read as exactly one fatal alarm.
type grammarCase struct {
	name     string
	log      string
	headline string // the headline quotes this (the envelope stage may strip more prefix)
	headSeq  int64
	kind     classify.AlarmKind
	first    int64
	last     int64
}

// Every line below is made up; the formats follow each runtime's source.
var grammarCases = []grammarCase{
	{
		// ggml_cuda_error's three lines, GGML_ABORT's own line and the
		// backtrace are one event headed by the error's message.
		name: "GGMLBackendErrorAbortDump",
		log: `load_tensors: offloaded 41/41 layers to GPU
ROCm error: out of memory
  current device: 0, in function ggml_backend_cuda_buffer_set_tensor at /src/ggml/src/ggml-cuda/ggml-cuda.cu:612
  hipMemcpyAsync((char *)tensor->data + offset, data, size, hipMemcpyHostToDevice, stream)
/src/ggml/src/ggml-cuda/ggml-cuda.cu:80: ROCm error
/opt/app/libggml-base.so(ggml_print_backtrace+0x1a1) [0x7f00aa001a11]
/opt/app/libggml-base.so(ggml_abort+0x11f) [0x7f00aa001b2f]
#4  0x00007f00aa2b1e10 in llama_context::decode(llama_batch const&) () from /opt/app/libllama.so
[Inferior 1 (process 4242) detached]`,
		headline: "ROCm error: out of memory",
		headSeq:  2, kind: classify.AlarmOOM, first: 2, last: 9,
	},
	{
		// torch elastic's failure table is ChildFailedError's message:
		// its "exitcode : N" field is not a second event.
		name: "ElasticChildFailedErrorTable",
		log: `Traceback (most recent call last):
  File "/usr/local/bin/torchrun", line 8, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
serve.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2030-01-01_00:00:01
  host      : box-1
  rank      : 0 (local_rank: 0)
  exitcode  : -9 (pid: 1211)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 1211
============================================================`,
		headline: "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
		headSeq:  4, kind: classify.AlarmTraceback, first: 1, last: 19,
	},
	{
		name: "GoPanicWithGoroutines",
		log: `time=2026-03-01T10:00:00.000Z level=INFO source=server.go:80 msg="starting runner"
panic: runtime error: index out of range [7] with length 4

goroutine 12 [running]:
example.com/runner/llm.(*Batch).Add(0xc0001a2000, {0xc000230000, 0x7, 0x8})
	/src/llm/batch.go:88 +0x1f4
example.com/runner/llm.process(...)
	/src/llm/process.go:41
created by example.com/runner/llm.Start in goroutine 1
	/src/llm/start.go:19 +0x9a
exit status 2
time=2026-03-01T10:00:01.000Z level=INFO source=server.go:99 msg="waiting for runner"`,
		headline: "panic: runtime error: index out of range [7] with length 4",
		headSeq:  2, kind: classify.AlarmTraceback, first: 2, last: 11,
	},
	{
		name: "GoFatalErrorWithRuntimeStack",
		log: `fatal error: concurrent map writes

goroutine 33 [running]:
main.(*cache).put(...)
	/app/cache.go:21
main.worker()
	/app/worker.go:9 +0x55
created by main.main in goroutine 1
	/app/main.go:14 +0x2e

goroutine 1 [chan receive, 2 minutes]:
main.main()
	/app/main.go:30 +0x8c
starting the next thing`,
		headline: "fatal error: concurrent map writes",
		headSeq:  1, kind: classify.AlarmTraceback, first: 1, last: 13,
	},
	{
		name: "CgoAbortEndsInGoSignalDump",
		log: `terminate called after throwing an instance of 'std::length_error'
  what():  vector::_M_default_append
SIGABRT: abort
PC=0x7f11d3a969fc m=5 sigcode=18446744073709551610
signal arrived during cgo execution

goroutine 7 gp=0xc000102a80 m=5 mp=0xc000100008 [syscall]:
runtime.cgocall(0x5d10a0, 0xc00004bbb8)
	/usr/local/go/src/runtime/cgocall.go:167 +0x4b fp=0xc00004bb90 sp=0xc00004bb58 pc=0x40c2ab

rax    0x0
rbx    0x7f11a2ffd640
rip    0x7f11d3a969fc
rflags 0x246
the supervisor restarts the runner`,
		headline: "what():  vector::_M_default_append",
		headSeq:  2, kind: classify.AlarmOther, first: 1, last: 14,
	},
	{
		name: "RustPanicNewFormat",
		log: `2026-03-01T10:00:00.000000Z  INFO router: Warming up model
thread 'main' panicked at router/src/main.rs:212:39:
called ` + "`Result::unwrap()`" + ` on an ` + "`Err`" + ` value: ConnectionRefused
note: run with ` + "`RUST_BACKTRACE=1`" + ` environment variable to display a backtrace
after the panic`,
		headline: "called `Result::unwrap()` on an `Err` value: ConnectionRefused",
		headSeq:  3, kind: classify.AlarmTraceback, first: 2, last: 4,
	},
	{
		name: "RustPanicWithThreadIDAndBacktrace",
		log: `thread 'tokio-runtime-worker' (31337) panicked at src/engine/scheduler.rs:77:13:
no free KV blocks left for sequence 12
stack backtrace:
   0: rust_begin_unwind
             at /rustc/0123abcd/library/std/src/panicking.rs:665:5
   1: core::panicking::panic_fmt
             at /rustc/0123abcd/library/core/src/panicking.rs:74:14
   2: engine::scheduler::Scheduler::step
note: Some details are omitted, run with ` + "`RUST_BACKTRACE=full`" + ` for a verbose backtrace.
thread 'main' panicked at src/main.rs:40:10:
called ` + "`Result::unwrap()`" + ` on an ` + "`Err`" + ` value: Any { .. }
next`,
		headline: "no free KV blocks left for sequence 12",
		headSeq:  2, kind: classify.AlarmTraceback, first: 1, last: 11,
	},
	{
		name: "RustPanicOldFormat",
		log: `loading weights
thread '<unnamed>' panicked at 'shard 3 is missing', src/loader.rs:55:9
note: run with ` + "`RUST_BACKTRACE=1`" + ` environment variable to display a backtrace
loading more`,
		headline: "thread '<unnamed>' panicked at 'shard 3 is missing', src/loader.rs:55:9",
		headSeq:  2, kind: classify.AlarmTraceback, first: 2, last: 3,
	},
	{
		name: "JavaExceptionRootCause",
		log: `Exception in thread "main" java.lang.IllegalStateException: model server failed to start
	at com.example.serve.Server.start(Server.java:118)
	at com.example.serve.Main.main(Main.java:22)
Caused by: java.io.UncheckedIOException: cannot read model card
	at com.example.serve.Card.load(Card.java:40)
	... 2 more
Caused by: java.nio.file.NoSuchFileException: /models/demo/card.json
	at java.base/sun.nio.fs.UnixException.translateToIOException(UnixException.java:92)
	... 4 more
INFO shutting down the JVM`,
		headline: "Caused by: java.nio.file.NoSuchFileException: /models/demo/card.json",
		headSeq:  7, kind: classify.AlarmTraceback, first: 1, last: 9,
	},
	{
		// .NET's runtime prints an unhandled exception as Java does, its
		// inner exceptions after " ---> " (the innermost last) and marks
		// between frame lists.
		name: "DotnetUnhandledExceptionInnermost",
		log: `info: Infer.Startup[0]
      Loading /models/demo.onnx
Unhandled exception. System.InvalidOperationException: The inference session could not be created.
 ---> System.IO.FileNotFoundException: Could not find file '/models/demo.onnx'.
File name: '/models/demo.onnx'
   at Microsoft.Win32.SafeHandles.SafeFileHandle.Open(String fullPath, FileMode mode)
   at Infer.Session.Create(String path) in /src/Infer/Session.cs:line 31
   --- End of inner exception stack trace ---
   at Infer.Session.Create(String path) in /src/Infer/Session.cs:line 40
--- End of stack trace from previous location ---
   at Infer.Program.Main(String[] args) in /src/Infer/Program.cs:line 12
   at Infer.Program.<Main>(String[] args)
info: host exiting`,
		headline: "---> System.IO.FileNotFoundException: Could not find file '/models/demo.onnx'.",
		headSeq:  4, kind: classify.AlarmTraceback, first: 3, last: 12,
	},
	{
		// Mix's report of an application that could not start: the
		// exception under (EXIT) heads it, its stack entries follow.
		name: "ElixirApplicationStartFailed",
		log: `12:00:01.001 [info] Loading model: Demo.LLM
** (Mix) Could not start application demo: Demo.Application.start(:normal, []) returned an error: shutdown: failed to start child: Demo.LLM
    ** (EXIT) an exception was raised:
        ** (ArgumentError) no weights found under /models/demo
            (demo 0.1.0) lib/demo/llm.ex:14: Demo.LLM.init/1
            (stdlib 6.1.2) gen_server.erl:2229: :gen_server.init_it/2
12:00:02.001 [info] shutting down`,
		headline: "** (ArgumentError) no weights found under /models/demo",
		headSeq:  4, kind: classify.AlarmTraceback, first: 2, last: 6,
	},
	{
		// klog's Fatal prints the goroutines' stacks under its F record:
		// one event headed by the record.
		name: "KlogFatalWithGoroutineStacks",
		log: `I0102 03:04:05.000001       1 main.go:20] connecting to the store at store:6379
F0102 03:04:10.000002       1 main.go:31] cannot reach the store: dial tcp 10.0.0.9:6379: i/o timeout
goroutine 1 [running]:
k8s.io/klog/v2.(*loggingT).output(0x1, 0x3)
	/go/pkg/mod/k8s.io/klog/v2@v2.130.1/klog.go:965 +0x1bb
main.main()
	/src/main.go:31 +0x2a5
I0102 03:04:11.000003       1 main.go:9] unrelated line`,
		headline: "cannot reach the store: dial tcp 10.0.0.9:6379: i/o timeout",
		headSeq:  2, kind: classify.AlarmOther, first: 2, last: 7,
	},
	{
		name: "LoggedJavaExceptionStartsAtClassLine",
		log: `2026-03-01 10:00:00,120 - launcher - ERROR - worker crashed
java.lang.IllegalArgumentException: batch size must be positive
	at com.example.Batch.<init>(Batch.java:12)
	at com.example.Launcher.run(Launcher.java:77)
plain line`,
		headline: "java.lang.IllegalArgumentException: batch size must be positive",
		headSeq:  2, kind: classify.AlarmTraceback, first: 1, last: 4,
	},
	{
		name: "PythonExceptionGroup",
		log: `ERROR:    Exception in lifespan startup
  + Exception Group Traceback (most recent call last):
  |   File "/app/server.py", line 30, in lifespan
  |     async with asyncio.TaskGroup() as tg:
  | ExceptionGroup: unhandled errors in a TaskGroup (2 sub-exceptions)
  +-+---------------- 1 ----------------
    | Traceback (most recent call last):
    |   File "/app/engine.py", line 12, in warm
    |     raise RuntimeError("tokenizer files are missing")
    | RuntimeError: tokenizer files are missing
    +---------------- 2 ----------------
    | Traceback (most recent call last):
    |   File "/app/engine.py", line 20, in probe
    | TimeoutError: probe did not answer
    +------------------------------------
INFO:     next`,
		headline: "RuntimeError: tokenizer files are missing",
		headSeq:  10, kind: classify.AlarmTraceback, first: 1, last: 15,
	},
	{
		name: "FatalPythonErrorThreadDump",
		log: `Fatal Python error: Aborted

Thread 0x00007f00aa11b640 (most recent call first):
  File "/usr/lib/python3.12/threading.py", line 355 in wait
  File "/usr/lib/python3.12/threading.py", line 655 in wait

Current thread 0x00007f00bb22c740 (most recent call first):
  Garbage-collecting
  File "/app/engine.py", line 90 in step

Extension modules: numpy._core._multiarray_umath, torch._C (total: 2)
after`,
		headline: "Fatal Python error: Aborted",
		headSeq:  1, kind: classify.AlarmSignal, first: 1, last: 11,
	},
	{
		name: "CppTerminateWhatAborted",
		log: `loading engine
terminate called after throwing an instance of 'std::runtime_error'
  what():  failed to deserialize engine plan: version mismatch
Aborted (core dumped)
$ `,
		headline: "what():  failed to deserialize engine plan: version mismatch",
		headSeq:  3, kind: classify.AlarmOther, first: 2, last: 4,
	},
	{
		name: "LibcxxTerminating",
		log: `libc++abi: terminating due to uncaught exception of type std::out_of_range: unknown tensor name blk.3.ffn
Abort trap: 6`,
		headline: "libc++abi: terminating due to uncaught exception of type std::out_of_range: unknown tensor name blk.3.ffn",
		headSeq:  1, kind: classify.AlarmOther, first: 1, last: 2,
	},
	{
		name: "CobraLastWordsWithUsage",
		log: `Error: unknown flag: --gpu-layerz
Usage:
  runner serve [flags]

Flags:
  -h, --help   help for serve
next thing`,
		headline: "Error: unknown flag: --gpu-layerz",
		headSeq:  1, kind: classify.AlarmOther, first: 1, last: 6,
	},
	{
		name: "AnyhowCausedBy",
		log: `Error: could not start the router

Caused by:
    0: reading tokenizer from /data/tok.json
    1: No such file or directory (os error 2)
`,
		headline: "Error: could not start the router",
		headSeq:  1, kind: classify.AlarmOther, first: 1, last: 5,
	},
	{
		name: "ArgparseUsageError",
		log: `usage: serve.py [-h] [--model MODEL] [--port PORT]
                [--max-batch MAX_BATCH]
serve.py: error: argument --port: invalid int value: 'eighty'`,
		headline: "serve.py: error: argument --port: invalid int value: 'eighty'",
		headSeq:  3, kind: classify.AlarmOther, first: 3, last: 3,
	},
	{
		name: "CriticalRunIsOneAlarm",
		log: `INFO:     127.0.0.1:1 - "POST /v1/completions HTTP/1.1" 200 OK
CRITICAL 03-01 10:00:00 launcher.py:50] Engine loop has stopped, terminating server process
CRITICAL 03-01 10:00:00 launcher.py:50] Engine loop has stopped, terminating server process
CRITICAL 03-01 10:00:00 launcher.py:50] Engine loop has stopped, terminating server process
`,
		headline: "Engine loop has stopped, terminating server process",
		headSeq:  2, kind: classify.AlarmOther, first: 2, last: 4,
	},
	{
		name: "ErrorRunThenExitingIsFatal",
		log: `INFO 03-01 10:00:00 [loader.py:10] Loading weights
ERROR 03-01 10:00:01 [loader.py:40] Checkpoint shard 2 is truncated (read 10 of 64 MiB)
ERROR 03-01 10:00:01 [loader.py:41] Cannot continue without all shards
INFO:     Shutting down`,
		headline: "Checkpoint shard 2 is truncated (read 10 of 64 MiB)",
		headSeq:  2, kind: classify.AlarmOther, first: 2, last: 4,
	},
	{
		name: "RustTracingErrorWithBacktraceThenLastWords",
		log: `2026-03-01T10:00:00.000000Z  INFO router: Connecting to shards
2026-03-01T10:00:01.000000Z ERROR router: router/src/server.rs:90: Failed to connect to shard 0: transport error
   0: router::server::connect
             at ./router/src/server.rs:88:9
   1: tokio::runtime::task::harness::poll
Error: Webserver Failed`,
		headline: "Failed to connect to shard 0: transport error",
		headSeq:  2, kind: classify.AlarmOther, first: 2, last: 6,
	},
	{
		name: "TrtllmErrorRunThenMPIAbort",
		log: `[03/01/2026-10:00:00] [TRT-LLM] [I] Loading engine
[03/01/2026-10:00:01] [TRT-LLM] [E] Engine plan was built for SM 90, this GPU is SM 80
--------------------------------------------------------------------------
MPI_ABORT was invoked on rank 0 in communicator MPI_COMM_WORLD
with errorcode 1.`,
		headline: "[TRT-LLM] [E] Engine plan was built for SM 90, this GPU is SM 80",
		headSeq:  2, kind: classify.AlarmOther, first: 2, last: 4,
	},
}

func TestGrammarsReadOneFatalEvent(t *testing.T) {
	t.Parallel()
	for _, c := range grammarCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			lines := strings.Split(c.log, "\n")
			one, err := eval.Feed(lines, "", eval.LineByLine, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(one.Alarms) != 1 {
				t.Fatalf("got %d alarms, want 1: %+v", len(one.Alarms), one.Alarms)
			}
			a := one.Alarms[0]
			if !strings.HasSuffix(a.Headline, c.headline) || a.HeadlineSeq != c.headSeq || a.Kind != c.kind || !a.Fatal {
				t.Errorf("alarm = %s fatal %v headline@%d %q; want %s fatal headline@%d %q", a.Kind, a.Fatal, a.HeadlineSeq, a.Headline, c.kind, c.headSeq, c.headline)
			}
			if a.FirstSeq != c.first || a.LastSeq != c.last {
				t.Errorf("alarm spans %d-%d, want %d-%d", a.FirstSeq, a.LastSeq, c.first, c.last)
			}
			for _, v := range one.Verdicts {
				in := v.Seq >= c.first && v.Seq <= c.last
				if v.Alarm != 0 && !in {
					t.Errorf("line %d outside the dump belongs to alarm %d", v.Seq, v.Alarm)
				}
			}
			for seed := uint64(1); seed <= 12; seed++ {
				batched, err := eval.Feed(lines, "", eval.RandomBatches(seed), true)
				if err != nil {
					t.Fatal(err)
				}
				if d := eval.Diff(one, batched); d != "" {
					t.Errorf("seed %d: line by line vs random batches with restore: %s", seed, d)
				}
			}
		})
	}
}

// TestGrammarsInterleaveWithAnotherSource feeds each dump with another
// process's tagged lines between its lines: still one alarm, same headline.
func TestGrammarsInterleaveWithAnotherSource(t *testing.T) {
	t.Parallel()
	for _, c := range grammarCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var lines []string
			for i, l := range strings.Split(c.log, "\n") {
				lines = append(lines, l)
				if int64(i+1) >= c.first && int64(i+1) < c.last && i%3 == 0 {
					lines = append(lines, "(APIServer pid=4242) INFO 03-01 10:00:00 [api.py:1] heartbeat ok")
				}
			}
			one, err := eval.Feed(lines, "", eval.LineByLine, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(one.Alarms) != 1 || !strings.HasSuffix(one.Alarms[0].Headline, c.headline) || !one.Alarms[0].Fatal {
				t.Fatalf("alarms = %+v", one.Alarms)
			}
			for seed := uint64(1); seed <= 6; seed++ {
				batched, err := eval.Feed(lines, "", eval.RandomBatches(seed), true)
				if err != nil {
					t.Fatal(err)
				}
				if d := eval.Diff(one, batched); d != "" {
					t.Errorf("seed %d: %s", seed, d)
				}
			}
		})
	}
}

// TestGrammarLookAlikesAreNoAlarm: words of the grammars inside ordinary
// lines, configuration and handled errors.
func TestGrammarLookAlikesAreNoAlarm(t *testing.T) {
	t.Parallel()
	logs := map[string]string{
		"QuotedPanic": `INFO 03-01 10:00:00 [worker.py:9] the sidecar said "panic: out of cheese" and recovered
time=2026-03-01T10:00:00.000Z level=INFO source=runner.go:40 msg="recovered from panic: retrying request"
WARNING 03-01 10:00:00 [x.py:1] panic: this is only a drill`,
		"InfoErrorWord": `INFO:     Error: none of the optional plugins were found
INFO 03-01 10:00:00 [x.py:1] Error: 0 shards skipped
2026-03-01T10:00:00.000000Z  INFO router: thread 'main' is waiting`,
		"ConfigDumpError": `error: false
panic: false
on_error: raise
  error: null
[2026-03-01 10:00:00] server_args=ServerArgs(model_path='m', error_on_oom='raise', panic_mode=None)`,
		"ErrorRunFollowedByOrdinaryLines": `ERROR 03-01 10:00:00 [kernels.py:12] Triton autotuner could not find a config for shape 7x3
ERROR 03-01 10:00:00 [kernels.py:12] Triton autotuner could not find a config for shape 9x3
INFO 03-01 10:00:01 [loader.py:10] Loading weights took 3.1 s
INFO 03-01 10:00:02 [loader.py:10] KV cache: 1200 blocks
INFO 03-01 10:00:03 [loader.py:10] Capturing graphs
INFO 03-01 10:00:04 [loader.py:10] Exiting capture mode`,
		"BenignCritical": `CRITICAL 03-01 10:00:00 [telemetry.py:3] metrics endpoint unreachable, continuing without metrics
FATAL 03-01 10:00:00 [health.py:3] self-check finished with 0 errors`,
		"UsageWithoutError": `usage: serve.py [-h] [--model MODEL]

A demo server.

options:
  -h, --help     show this help message and exit`,
		"LastWordsRetried": `Error: registry answered 503 for manifest
Retrying in 2 seconds (attempt 2/5)`,
	}
	for name, log := range logs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := classify.New("")
			var in []classify.Line
			for i, l := range strings.Split(log, "\n") {
				in = append(in, classify.Line{Seq: int64(i + 1), Text: l})
			}
			res := st.Feed(in)
			for _, a := range res.Alarms {
				if !a.Withdrawn {
					t.Errorf("alarm %q (%s)", a.Headline, a.Kind)
				}
			}
			if sum := st.Summary(); sum.LiveAlarms != 0 {
				t.Errorf("summary = %+v", sum)
			}
		})
	}
}

// TestErrorRunSettles: an ERROR run that is the last thing a launch printed
// before going silent becomes one fatal alarm when the stream is settled,
// unless the launch is ready; Summary.PendingFatal asks for that Settle.
func TestErrorRunSettles(t *testing.T) {
	t.Parallel()
	run := []string{
		"INFO 03-01 10:00:00 [loader.py:10] Loading weights",
		"ERROR 03-01 10:00:01 [engine.py:80] Worker 1 lost its device: NVLink reported an uncorrectable error",
		"ERROR 03-01 10:00:01 [engine.py:81] Cannot schedule without worker 1",
		"",
	}
	feed := func(st *classify.State, lines []string, from int64) classify.Result {
		var in []classify.Line
		for i, l := range lines {
			in = append(in, classify.Line{Seq: from + int64(i), Text: l})
		}
		return st.Feed(in)
	}

	t.Run("NotReady", func(t *testing.T) {
		t.Parallel()
		st := classify.New("vllm")
		res := feed(st, run, 1)
		if len(res.Alarms) != 0 {
			t.Fatalf("alarm before the stream settled: %+v", res.Alarms)
		}
		if sum := st.Summary(); sum.PendingRuns != 1 || sum.PendingFatal != 0 {
			t.Fatalf("PendingRuns = %d PendingFatal = %d, want 1 and 0", sum.PendingRuns, sum.PendingFatal)
		}
		b, err := st.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if st, err = classify.Restore(b); err != nil {
			t.Fatal(err)
		}
		res = st.Settle(classify.SettleStreamEnd)
		if len(res.Alarms) != 1 {
			t.Fatalf("settle alarms = %+v", res.Alarms)
		}
		a := res.Alarms[0]
		if !a.Fatal || !a.Settled || a.FirstSeq != 2 || a.LastSeq != 3 || a.HeadlineSeq != 2 {
			t.Errorf("alarm = %+v", a)
		}
		if len(res.Lines) != 2 || res.Lines[0].Seq != 2 || res.Lines[1].Alarm != a.ID || res.Lines[1].Kind != classify.KindError {
			t.Errorf("revised lines = %+v", res.Lines)
		}
		if sum := st.Summary(); sum.PendingFatal != 0 || sum.FatalAlarms != 1 {
			t.Errorf("summary after settle = %+v", sum)
		}
	})

	t.Run("Ready", func(t *testing.T) {
		t.Parallel()
		st := classify.New("vllm")
		feed(st, []string{"INFO:     Application startup complete."}, 1)
		feed(st, run, 2)
		if sum := st.Summary(); sum.PendingFatal != 0 || sum.PendingRuns != 0 {
			t.Errorf("PendingFatal = %d PendingRuns = %d after readiness", sum.PendingFatal, sum.PendingRuns)
		}
		if res := st.Settle(classify.SettleStreamEnd); len(res.Alarms) != 0 {
			t.Errorf("settle alarms = %+v", res.Alarms)
		}
	})

	t.Run("LyingLevels", func(t *testing.T) {
		t.Parallel()
		st := classify.New("")
		feed(st, []string{
			"2026-03-01 10:00:00 | ERROR | stderr | Loading checkpoint shards:  50%|#####     | 1/2 [00:01<00:01,  1.00s/it]",
			"2026-03-01 10:00:01 | ERROR | stderr | some library printed a line",
		}, 1)
		if res := st.Settle(classify.SettleStreamEnd); len(res.Alarms) != 0 {
			t.Errorf("a wrapper's ERROR-level stderr became an alarm: %+v", res.Alarms)
		}
	})
}

// TestLongErrorRunStaysBounded feeds 20,000 ERROR lines with save/restore
// between batches: the pending run keeps a bounded state, and settling it
// makes one alarm.
func TestLongErrorRunStaysBounded(t *testing.T) {
	t.Parallel()
	st := classify.New("")
	seq := int64(1)
	for b := 0; b < 100; b++ {
		var in []classify.Line
		for i := 0; i < 200; i++ {
			in = append(in, classify.Line{Seq: seq, Text: "2026-03-01 10:00:00,001 - engine - ERROR - request queue overflowed, dropping work item"})
			seq++
		}
		st.Feed(in)
		data, err := st.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 16<<10 {
			t.Fatalf("state is %d bytes inside a long ERROR run", len(data))
		}
		if st, err = classify.Restore(data); err != nil {
			t.Fatal(err)
		}
	}
	res := st.Settle(classify.SettleStreamEnd)
	if len(res.Alarms) != 1 || !res.Alarms[0].Fatal || res.Alarms[0].FirstSeq != 1 || res.Alarms[0].LastSeq != seq-1 {
		t.Fatalf("alarms = %+v", res.Alarms)
	}
}
