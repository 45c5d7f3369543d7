package classify_test

import (
	"fmt"
	"strings"
	"testing"

	"launchwatch/internal/classify"
)

// Round 3 session 13's rules: a JVM throwable under a WARN record is that
// record's (Logback prints it under the message) and its frames carry
// packaging data; a fatal-looking event after readiness waits for survival
// evidence however long the traceback after it runs; job-queue and
// status-first access lines are such evidence.
func TestSession13Rules(t *testing.T) {
	t.Parallel()
	t.Run("JVMThrowableUnderAWarnRecordIsTheWarning", func(t *testing.T) {
		_, alarms := feedSettledState("", `2031-01-02T03:04:05.100Z  INFO 1 --- [main] c.a.gw.Application : Starting Application v0.3 using Java 21
2031-01-02T03:04:06.200Z  WARN 1 --- [probe-1] c.a.gw.UpstreamCheck : upstream not reachable yet (try 1/30), trying again in 2s
org.springframework.web.client.ResourceAccessException: I/O error on GET request for "http://backend:9000/health": Connection refused
	at org.springframework.web.client.DefaultRestClient.createResourceAccessException(DefaultRestClient.java:534) ~[spring-web-6.1.5.jar!/:6.1.5]
	at com.acme.gw.UpstreamCheck.run(UpstreamCheck.java:58) ~[!/:0.3.0]
	at java.base/java.lang.Thread.run(Thread.java:1583) [na:na]
Caused by: java.net.ConnectException: Connection refused
	at java.base/sun.nio.ch.Net.pollConnect(Native Method) ~[na:na]
	... 2 common frames omitted
2031-01-02T03:04:07.300Z  INFO 1 --- [main] c.a.gw.Application : Started Application in 2.2 seconds`)
		if len(alarms) != 0 {
			t.Errorf("alarms %+v, want none: the WARN record logged a retried exception", alarms)
		}
	})
	t.Run("JVMStackWithPackagingDataIsOneEvent", func(t *testing.T) {
		_, alarms := feedSettledState("", `2031-01-02 03:04:05 ERROR ModelServer Failed to register the model
java.util.concurrent.CompletionException: ai.acme.EngineException: cannot load model: weights missing
	at java.base/java.util.concurrent.CompletableFuture.encodeThrowable(CompletableFuture.java:315) ~[?:?]
	at java.base/java.lang.Thread.run(Thread.java:1583) [?:?]
Caused by: ai.acme.EngineException: cannot load model: weights missing
	at ai.acme.Engine.load(Engine.java:112) ~[engine-0.9.jar:?]
	... 3 more`)
		if len(alarms) != 1 || alarms[0].FirstSeq > 2 || alarms[0].LastSeq != 7 || alarms[0].HeadlineSeq != 5 {
			t.Errorf("%d alarms %+v, want one alarm over lines 1/2-7 headed by the last cause (line 5)", len(alarms), alarms)
		}
	})
	t.Run("StatusFirstAccessLinesAreServing", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("Running on local URL:  http://0.0.0.0:7860\n")
		b.WriteString("Model loaded in 3.1s (load weights from disk: 0.5s)\n")
		b.WriteString("API error: POST: http://10.1.2.3:7860/sdapi/v1/txt2img {'error': 'OutOfMemoryError', 'errors': 'CUDA out of memory. Tried to allocate 6.00 GiB.'}\n")
		b.WriteString("ERROR:    Exception in ASGI application\nTraceback (most recent call last):\n")
		// A long traceback: the line-41 alarm above it must still hear
		// of the requests answered after it.
		for i := range 60 {
			fmt.Fprintf(&b, "  File \"/srv/app/mod%d.py\", line %d, in f%d\n    g%d()\n", i, i+10, i, i)
		}
		b.WriteString("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 6.00 GiB.\n")
		b.WriteString("API 2031-01-02 03:05:00.100000 200 http/1.1 GET /sdapi/v1/progress 10.1.2.3 0.0041\n")
		b.WriteString("API 2031-01-02 03:05:09.100000 200 http/1.1 POST /sdapi/v1/txt2img 10.1.2.3 4.6107")
		st, alarms := feedSettledState("", b.String())
		if st.Summary().Ready == nil {
			t.Fatal("not ready")
		}
		noneFatal(t, alarms, "no alarm: the request's OOM is one", "two requests were answered after it")
	})
	t.Run("QueueItemsAfterAFailedSessionAreServing", func(t *testing.T) {
		st, alarms := feedSettledState("", `[2031-01-02 03:04:05,100]::[InvokeAI]::INFO --> Invoke running on http://127.0.0.1:9090 (Press CTRL+C to quit)
[2031-01-02 03:05:05,100]::[InvokeAI]::INFO --> Executing queue item 3, session 0a1b2c3d-0000-4000-8000-000000000003
[2031-01-02 03:05:09,100]::[InvokeAI]::ERROR --> Error while invoking session 0a1b2c3d-0000-4000-8000-000000000003, invocation 5 (l2i): CUDA out of memory. Tried to allocate 2.00 GiB.
[2031-01-02 03:05:09,102]::[InvokeAI]::ERROR --> Traceback (most recent call last):
  File "/srv/invokeai/app/services/session_processor/session_processor_default.py", line 129, in run_node
    output = invocation.invoke_internal(context=context, services=self._services)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.

TOTAL GRAPH EXECUTION TIME:  20.100s
[2031-01-02 03:06:00,100]::[InvokeAI]::INFO --> Executing queue item 4, session 0a1b2c3d-0000-4000-8000-000000000004
TOTAL GRAPH EXECUTION TIME:  11.300s`)
		if st.Summary().Ready == nil {
			t.Fatal("not ready")
		}
		noneFatal(t, alarms, "no alarm: the session's OOM is one", "the queue went on after it")
	})
	t.Run("SupervisedSidecarsUvicornIsNotTheServers", func(t *testing.T) {
		for _, server := range []string{"lmdeploy", ""} {
			st, _ := feedSettledState(server, `2031-01-02 03:04:05,100 INFO supervisord started with pid 1
2031-01-02 03:04:06,100 INFO spawned: 'authproxy' with pid 7
2031-01-02 03:04:06,102 INFO spawned: 'lmdeploy-api' with pid 8
INFO:     Started server process [7]
INFO:     Waiting for application startup.
INFO:     Application startup complete.
INFO:     Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)
2031-01-02 03:04:07,100 INFO success: authproxy entered RUNNING state, process has stayed up for > than 1 seconds (startsecs)
2031-01-02 03:04:12,000 - lmdeploy - INFO - async_engine.py:260 - input backend=turbomind
Convert to turbomind format: 100%|##########| 40/40 [00:10<00:00,  3.90it/s]`)
			if r := st.Summary().Ready; r != nil {
				t.Errorf("server %q: ready at %+v: that uvicorn is pid 7, the authproxy's", server, r)
			}
			st, _ = feedSettledState(server, `2031-01-02 03:04:06,100 INFO spawned: 'authproxy' with pid 7
2031-01-02 03:04:06,102 INFO spawned: 'lmdeploy-api' with pid 8
INFO:     Started server process [8]
INFO:     Waiting for application startup.
INFO:     Application startup complete.`)
			if r := st.Summary().Ready; r == nil || r.Seq != 5 {
				t.Errorf("server %q: ready %+v, want line 5: pid 8 is lmdeploy's", server, r)
			}
		}
	})
	t.Run("ATasksDeathOutlivedByItsReplicas", func(t *testing.T) {
		head := `0: INFO 01-02 03:04:05 [api_server.py:1000] Starting vLLM API server on http://0.0.0.0:8000
0: INFO:     Application startup complete.
1: INFO 01-02 03:05:00 [loggers.py:120] Engine 000: Avg prompt throughput: 900.0 tokens/s, Avg generation throughput: 300.0 tokens/s, Running: 4 reqs, Waiting: 0 reqs
2: INFO 01-02 03:05:01 [loggers.py:120] Engine 000: Avg prompt throughput: 910.0 tokens/s, Avg generation throughput: 310.0 tokens/s, Running: 4 reqs, Waiting: 0 reqs
2: ERROR 01-02 03:05:05 [core.py:700] EngineCore encountered a fatal error.
2: Traceback (most recent call last):
2:   File "/srv/vllm/v1/engine/core.py", line 701, in run_engine_core
2:     engine_core.run_busy_loop()
2: torch.AcceleratorError: CUDA error: an illegal memory access was encountered
srun: error: node-3: task 2: Exited with exit code 1
`
		stats := "1: INFO 01-02 03:05:%02d [loggers.py:120] Engine 000: Avg prompt throughput: 1800.0 tokens/s, Avg generation throughput: 600.0 tokens/s, Running: 9 reqs, Waiting: 0 reqs\n"
		var served strings.Builder
		for i := range 3 {
			fmt.Fprintf(&served, stats, 10+10*i)
		}
		_, alarms := feedSettledState("", head+served.String())
		noneFatal(t, alarms, "no alarm: task 2's engine died", "task 1 served on after task 2 died")
		_, alarms = feedSettledState("", head+fmt.Sprintf(stats, 10))
		fatal := false
		for _, a := range alarms {
			fatal = fatal || a.Fatal
		}
		if !fatal {
			t.Errorf("alarms %+v, want a fatal one: one request finishing on another task is no proof", alarms)
		}
	})
	t.Run("CloudWatchStreamIsNoSyslogHost", func(t *testing.T) {
		_, alarms := feedSettledState("", `2031-01-02T03:04:05.100000+00:00 AllTraffic/i-0123456789abcdef0 [INFO ] ModelServer - Starting model server ...
2031-01-02T03:04:09.200000+00:00 AllTraffic/i-0123456789abcdef0 [ERROR] ModelServer - Unexpected error
2031-01-02T03:04:09.201000+00:00 AllTraffic/i-0123456789abcdef0 ai.acme.EngineException: Failed to load the native library
2031-01-02T03:04:09.202000+00:00 AllTraffic/i-0123456789abcdef0 	at ai.acme.Engine.newInstance(Engine.java:90) ~[engine-0.9.jar:?]
2031-01-02T03:04:09.203000+00:00 AllTraffic/i-0123456789abcdef0 Caused by: java.lang.UnsatisfiedLinkError: /tmp/libacme.so: libfoo.so.8: cannot open shared object file: No such file or directory
2031-01-02T03:04:09.204000+00:00 AllTraffic/i-0123456789abcdef0 	at jdk.internal.loader.NativeLibraries.load(Native Method) ~[?:?]`)
		if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].HeadlineSeq != 5 {
			t.Errorf("%d alarms %+v, want one fatal alarm headed by the UnsatisfiedLinkError (line 5)", len(alarms), alarms)
		}
	})
	t.Run("LlamaCppEarlyListenerIsNoReadinessInAnEmbedder", func(t *testing.T) {
		st, alarms := feedSettledState("", `note: if you have an AMD or NVIDIA GPU then you need to pass -ngl 9999 to enable GPU offloading
load_backend: loaded CUDA backend from /home/u/.llamafile/v/0.10.0/ggml-cuda.so
main: HTTP server is listening, hostname: 0.0.0.0, port: 8080, http threads: 15
main: loading model
llama_model_loader: loaded meta data with 30 key-value pairs and 400 tensors from /models/acme-8b.gguf (version GGUF V3 (latest))
llama_model_load: error loading model: missing tensor 'blk.0.attn_q_norm.weight'
llama_model_load_from_file_impl: failed to load model
main: exiting due to model loading error`)
		if r := st.Summary().Ready; r != nil {
			t.Errorf("ready %+v: the early listener binds before the model loads", r)
		}
		if len(alarms) == 0 || !alarms[0].Fatal {
			t.Errorf("alarms %+v, want the load failure, fatal", alarms)
		}
	})
	t.Run("ABlankLineInsideAWarningThatIntroducesATraceback", func(t *testing.T) {
		_, alarms := feedSettledState("", `10:20:41-118273 INFO     Loading "acme-24b-exl2"
10:20:41-905551 WARNING  Could not import the fused kernels due to the following error:

Traceback (most recent call last):
  File "/srv/app/modules/kernels.py", line 29, in <module>
    import fused_kernels
ImportError: /srv/env/fused_kernels.so: undefined symbol: _ZN3c105Error
10:21:19-402817 INFO     Loaded "acme-24b-exl2" in 38.26 seconds.`)
		if len(alarms) != 0 {
			t.Errorf("alarms %+v, want none: the WARNING record logged the import failure", alarms)
		}
	})
}

// noneFatal requires at least one alarm (what: the failure when there is
// none) and no fatal one (why: what shows the server survived).
func noneFatal(t *testing.T, alarms []classify.Alarm, what, why string) {
	t.Helper()
	if len(alarms) == 0 {
		t.Fatal(what)
	}
	for _, a := range alarms {
		if a.Fatal {
			t.Errorf("fatal alarm %+v: %s", a, why)
		}
	}
}
