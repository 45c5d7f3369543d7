package classify_test

import (
	"strings"
	"testing"

	"launchwatch/internal/classify"
)

// The rules the blind sets da- to dh- asked for (round 3, session 10), each
// on lines written from the format it reads; every value is made up.

// A serverless handler that caught its engine's failure still starts its
// job loop and answers every job with the stored error: the loop's banner
// is no readiness, and the engine's failure is the launch's death.
func TestJobLoopAnsweringAStartupErrorIsNoReadiness(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `{"requestId": null, "message": "CUDA check passed: 2 GPU(s) available", "level": "INFO"}
{"requestId": null, "message": "Failed to initialize vLLM engine: 403 Forbidden for url https://example.invalid/model/config.json", "level": "ERROR"}
--- Starting Serverless Worker |  Version 1.9.2 ---
{"requestId": null, "message": "Jobs in queue: 1", "level": "INFO"}
{"requestId": "job-0001", "message": "Started.", "level": "INFO"}
{"requestId": null, "message": "Returning startup error to user: Failed to initialize vLLM engine: 403 Forbidden", "level": "ERROR"}
{"requestId": "job-0001", "message": "Finished.", "level": "INFO"}`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready at %d, want no readiness: the job loop only returns the startup error", r.Seq)
	}
	var fatal int
	for _, a := range alarms {
		if a.Fatal {
			fatal++
			if a.HeadlineSeq != 2 {
				t.Errorf("fatal alarm %+v, want it headed by the engine's failure (line 2)", a)
			}
		}
	}
	if fatal != 1 {
		t.Errorf("%d fatal alarms in %+v, want the engine's failure", fatal, alarms)
	}

	// The same job loop after an engine that was built is ready.
	st, alarms = feedSettledState("", `{"requestId": null, "message": "Engine built in 41.2 s", "level": "INFO"}
--- Starting Serverless Worker |  Version 1.9.2 ---
{"requestId": "job-0002", "message": "Started.", "level": "INFO"}
{"requestId": "job-0002", "message": "Finished.", "level": "INFO"}`)
	if st.Summary().Ready == nil || len(alarms) != 0 {
		t.Errorf("ready=%v alarms=%+v, want ready without alarms", st.Summary().Ready, alarms)
	}
}

// A Java model server that closes its listeners is being stopped: the
// interrupted worker threads' stacks after it are teardown, and a served
// launch stays ready.
func TestJavaModelServerStopIsTeardown(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `2031-02-03T04:05:00,100 [INFO ] main org.pytorch.serve.ModelServer - Model server started.
2031-02-03T04:05:09,200 [INFO ] W-9000-acme_2.1 TS_METRICS - WorkerLoadTime.Milliseconds:9100.0|#WorkerName:W-9000-acme_2.1,Level:Host|#hostname:box-4,timestamp:1927170309
2031-02-03T04:07:00,300 [INFO ] W-9000-acme_2.1 org.pytorch.serve.wlm.WorkerThread - Backend response time: 12
2031-02-03T04:30:00,400 [INFO ] epollEventLoopGroup-2-1 org.pytorch.serve.ModelServer - Inference model server stopped.
2031-02-03T04:30:00,401 [INFO ] epollEventLoopGroup-2-2 org.pytorch.serve.ModelServer - Management model server stopped.
2031-02-03T04:30:00,700 [INFO ] W-9000-acme_2.1 org.pytorch.serve.wlm.WorkerThread - Backend worker monitoring thread interrupted or backend worker process died., responseTimeout:60sec
java.lang.InterruptedException: null
	at java.base/java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject.await(AbstractQueuedSynchronizer.java:1700) ~[?:?]
	at org.pytorch.serve.wlm.WorkerThread.run(WorkerThread.java:190) [model-server.jar:?]
	at java.base/java.lang.Thread.run(Thread.java:833) [?:?]
2031-02-03T04:30:00,702 [INFO ] W-9000-acme_2.1 org.pytorch.serve.wlm.WorkerThread - W-9000-acme_2.1 State change WORKER_MODEL_LOADED -> WORKER_STOPPED`)
	if st.Summary().Ready == nil {
		t.Error("no readiness, want the worker's load metric (line 2)")
	}
	for _, a := range alarms {
		if a.Fatal {
			t.Errorf("fatal alarm %+v after the listeners were stopped, want teardown", a)
		}
	}

	// The same stack with no stop before it is the worker's death.
	_, alarms = feedSettledState("", `2031-02-03T04:05:00,100 [INFO ] main org.pytorch.serve.ModelServer - Model server started.
2031-02-03T04:05:09,200 [INFO ] W-9000-acme_2.1 TS_METRICS - WorkerLoadTime.Milliseconds:9100.0|#WorkerName:W-9000-acme_2.1,Level:Host|#hostname:box-4,timestamp:1927170309
2031-02-03T04:30:00,700 [ERROR] W-9000-acme_2.1 org.pytorch.serve.wlm.WorkerThread - Backend worker error
org.pytorch.serve.wlm.WorkerInitializationException: Backend worker did not respond in given time
	at org.pytorch.serve.wlm.WorkerThread.run(WorkerThread.java:242) [model-server.jar:?]
	at java.base/java.lang.Thread.run(Thread.java:833) [?:?]`)
	if len(alarms) == 0 {
		t.Error("no alarm for a worker that failed with no stop before it")
	}
}

// llama-server's router runs each model in a child llama-server whose
// lines it forwards under the child's port. A child that cannot load its
// model is one error the router outlives: it reports the child's exit and
// answers that model's requests with an error.
func TestRouterChildLoadFailureIsNotTheRoutersDeath(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `2031-02-03T04:05:00.000000001Z srv  llama_server: starting router server, no model will be loaded in this process
2031-02-03T04:05:00.000000002Z srv  llama_server: router server is listening on http://0.0.0.0:8080
2031-02-03T04:05:01.000000003Z srv  log_server_r: request: GET /health 10.0.0.1 200
2031-02-03T04:06:00.000000004Z srv          load: spawning server instance with name=acme-13b-Q4_K_M on port 40111
2031-02-03T04:06:00.000000005Z [40111] srv  llama_server: loading model
2031-02-03T04:06:00.000000006Z [40111] srv    load_model: loading model '/models/acme-13b-Q4_K_M.gguf'
2031-02-03T04:06:02.000000007Z [40111] llama_model_load: error loading model: tensor 'blk.7.attn_q.weight' data is not within the file bounds, model is corrupted or incomplete
2031-02-03T04:06:02.000000008Z [40111] llama_model_load_from_file_impl: failed to load model
2031-02-03T04:06:02.000000009Z [40111] srv    load_model: failed to load model, '/models/acme-13b-Q4_K_M.gguf'
2031-02-03T04:06:02.000000010Z [40111] srv  llama_server: exiting due to model loading error
2031-02-03T04:06:02.000000011Z srv     operator(): instance name=acme-13b-Q4_K_M exited with status 1
2031-02-03T04:06:02.000000012Z srv  log_server_r: request: POST /v1/chat/completions 10.0.0.7 500
2031-02-03T04:06:05.000000013Z srv  log_server_r: request: GET /health 10.0.0.1 200`)
	if st.Summary().Ready == nil {
		t.Error("no readiness, want the router's listening line")
	}
	if len(alarms) != 1 {
		t.Fatalf("alarms %+v, want one for the child's failed load", alarms)
	}
	a := alarms[0]
	if a.Fatal || a.FirstSeq != 7 || a.LastSeq != 10 || a.HeadlineSeq != 7 {
		t.Errorf("alarm %+v, want lines 7-10, headed by 'error loading model', not fatal", a)
	}

	// The child's tag names its source, and a time before it is no syslog
	// host and ident.
	p := classify.ParsePrefix("2031-02-03T04:06:02.000000007Z [40111] llama_model_load: error loading model", 2031)
	if p.Source != "[40111]" || p.Origin != "" || p.Body != "llama_model_load: error loading model" {
		t.Errorf("parsed %+v, want source [40111], no origin, the function left in the body", p)
	}
	// gunicorn's pid field after its time is no child's tag.
	p = classify.ParsePrefix("[2031-02-03 04:05:06 +0000] [7] [ERROR] Exception in worker process", 2031)
	if p.Source != "" || p.Level != "ERROR" || p.Body != "Exception in worker process" {
		t.Errorf("parsed %+v, want gunicorn's level and message, no source", p)
	}
}

// Loki's logcli prints each line's stream labels after its time: they are
// an envelope, and a traceback pasted from it is one event.
func TestLokiLabelsAreAnEnvelope(t *testing.T) {
	t.Parallel()
	p := classify.ParsePrefix(`2031-02-03T04:05:06Z {app="acme-llm", stream="stderr"}   File "/srv/acme/engine.py", line 12, in step`, 2031)
	if p.Origin != `app="acme-llm"` || p.Body != `  File "/srv/acme/engine.py", line 12, in step` {
		t.Errorf("parsed %+v, want origin app=\"acme-llm\" and the indented frame", p)
	}
	_, alarms := feedSettledState("", `2031-02-03T04:05:06Z {stream="stdout"} INFO:     Application startup complete.
2031-02-03T04:05:07Z {stream="stderr"} ERROR:    Exception in ASGI application
2031-02-03T04:05:07Z {stream="stderr"} Traceback (most recent call last):
2031-02-03T04:05:07Z {stream="stderr"}   File "/srv/acme/api.py", line 40, in handle
2031-02-03T04:05:07Z {stream="stderr"}     assert request.n > 0
2031-02-03T04:05:07Z {stream="stderr"} AssertionError
2031-02-03T04:05:08Z {stream="stdout"} INFO:     10.0.0.3:4100 - "GET /health HTTP/1.1" 200 OK`)
	if len(alarms) != 1 || alarms[0].HeadlineSeq != 6 || alarms[0].FirstSeq != 2 {
		t.Errorf("alarms %+v, want one from line 2 headed by the AssertionError (line 6)", alarms)
	}
}

// Truss loads the user's model in a thread beside uvicorn: uvicorn's
// startup lines are no readiness, the completed model.load() is.
func TestTrussIsReadyWhenItsModelLoaded(t *testing.T) {
	t.Parallel()
	const head = `{"asctime": "2031-02-03 04:05:00,100", "levelname": "INFO", "message": "Executing model.load()..."}
{"asctime": "2031-02-03 04:05:00,300", "levelname": "INFO", "message": "Started server process [1]"}
{"asctime": "2031-02-03 04:05:00,301", "levelname": "INFO", "message": "Waiting for application startup."}
{"asctime": "2031-02-03 04:05:00,302", "levelname": "INFO", "message": "Application startup complete."}
{"asctime": "2031-02-03 04:05:00,303", "levelname": "INFO", "message": "Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)"}
`
	st, alarms := feedSettledState("", head+`{"asctime": "2031-02-03 04:06:10,000", "levelname": "INFO", "message": "Completed model.load() execution in 69700 ms"}
{"asctime": "2031-02-03 04:06:20,000", "levelname": "INFO", "message": "10.0.0.4:5100 - \"POST /v1/models/model:predict HTTP/1.1\" 200"}`)
	if r := st.Summary().Ready; r == nil || r.Seq != 6 || len(alarms) != 0 {
		t.Errorf("ready %+v alarms %+v, want ready at the completed load (line 6) without alarms", r, alarms)
	}
	st, alarms = feedSettledState("", head+`{"asctime": "2031-02-03 04:06:10,000", "levelname": "ERROR", "message": "Exception while loading model", "exc_info": "Traceback (most recent call last):\n  File \"/app/model/model.py\", line 20, in load\n    self.m = build()\nRuntimeError: weights file is truncated"}
{"asctime": "2031-02-03 04:06:20,000", "levelname": "INFO", "message": "10.0.0.4:5100 - \"GET /v1/models/model HTTP/1.1\" 503"}`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready at %d, want none: the model never loaded", r.Seq)
	}
	if len(alarms) != 1 || !alarms[0].Fatal {
		t.Errorf("alarms %+v, want the failed load, fatal", alarms)
	}
}

// Ctrl-C pressed on a progress bar: the terminal echoes "^C" where the
// bar stopped, and the interrupted API server's traceback goes on on the
// same line. The traceback is teardown from its first frame: no alarm is
// ever shown, not even while its frames are read.
func TestCtrlCInTheMiddleOfALineIsAStop(t *testing.T) {
	t.Parallel()
	run := feedLines(t, "", strings.Split(`(ApiServer pid=300) INFO 02-03 04:05:00 [api_server.py:100] vLLM API server version 0.10.9
(Worker pid=301) INFO 02-03 04:05:10 [model_runner.py:50] Starting to load model /data/acme-70b...
(Worker pid=301) Loading safetensors checkpoint shards:  20% Completed | 6/30 [00:21<01:25,  3.55s/it]^C^C(ApiServer pid=300) Traceback (most recent call last):
(ApiServer pid=300)   File "/opt/venv/bin/vllm", line 8, in <module>
(ApiServer pid=300)     sys.exit(main())
(ApiServer pid=300)   File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/utils.py", line 700, in wait_for_engine_startup
(ApiServer pid=300)     events = poller.poll(timeout)
(ApiServer pid=300) KeyboardInterrupt`, "\n"))
	if len(run.Alarms) != 0 || run.Withdrawn != 0 {
		t.Errorf("alarms %+v (%d withdrawn), want none ever: the operator stopped the launch", run.Alarms, run.Withdrawn)
	}
}

// A LiteLLM gateway in the same compose project comes up long before the
// model server it fronts: its uvicorn is no readiness of the launch, and a
// request it fails to pass on to the server still loading (a network
// failure) is the neighbour's handled error, no alarm of the launch's
// (round 3 session 12: it was a survived alarm before; the dv- blind set
// and the corpus README's caught-traceback rule say bait).
func TestGatewayBesideTheServerIsNotTheLaunch(t *testing.T) {
	t.Parallel()
	const gateway = `vllm-1     | (APIServer pid=1) INFO 02-03 04:05:06 [api_server.py:1800] vLLM API server version 0.10.9
litellm-1  | INFO:     Started server process [1]
litellm-1  | INFO:     Waiting for application startup.
litellm-1  | INFO:     Application startup complete.
litellm-1  | INFO:     Uvicorn running on http://0.0.0.0:4000 (Press CTRL+C to quit)
vllm-1     | (APIServer pid=1) INFO 02-03 04:05:20 [gpu_model_runner.py:2000] Model loading took 18.2 GiB and 12.3 seconds
litellm-1  | Traceback (most recent call last):
litellm-1  |   File "/app/litellm/llms/openai.py", line 90, in acompletion
litellm-1  |     raise APIConnectionError(message=str(e))
litellm-1  | litellm.exceptions.APIConnectionError: Connection error.
litellm-1  | INFO:     10.0.0.5:40000 - "POST /chat/completions HTTP/1.1" 500 Internal Server Error
`
	run := feedLines(t, "vllm", strings.Split(strings.TrimSuffix(gateway, "\n"), "\n"))
	for i, v := range run.Verdicts {
		if v.Kind == classify.KindReady {
			t.Errorf("line %d is readiness, want none: only the gateway is up", i+1)
		}
	}
	if len(run.Alarms) != 0 || run.Withdrawn != 1 {
		t.Errorf("alarms %+v (%d withdrawn), want the gateway's failed request withdrawn", run.Alarms, run.Withdrawn)
	}
	// The server's own readiness still counts.
	st, _ := feedSettledState("vllm", gateway+`vllm-1     | (APIServer pid=1) INFO:     Application startup complete.`)
	if r := st.Summary().Ready; r == nil || r.Seq != 12 {
		t.Errorf("ready %+v, want vLLM's own line 12", r)
	}
}

// llama.cpp's rpc-server accepting a client is a worker's readiness: in a
// Slurm step that also runs the llama-server that connected to it, the
// launch is ready only when llama-server is.
func TestRPCWorkerAcceptIsNotTheLaunchsReadiness(t *testing.T) {
	t.Parallel()
	const rpc = `1: Starting RPC server v3.0.0
1:   endpoint       : 0.0.0.0:50052
`
	st, alarms := feedSettledState("llamacpp", rpc+`0: main: HTTP server is listening, hostname: 0.0.0.0, port: 8080, http threads: 15
0: main: loading model
0: srv    load_model: loading model '/models/acme-70b-Q4_K_M.gguf'
1: Accepted client connection
0: load_tensors: loading model tensors, this can take a while... (mmap = true)
0: /src/ggml/src/ggml-rpc/ggml-rpc.cpp:600: Remote RPC server crashed or returned malformed response
srun: error: node-a: task 0: Aborted (core dumped)`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready at %d, want none: llama-server never loaded its model", r.Seq)
	}
	if st.Summary().FatalAlarms == 0 {
		t.Errorf("alarms %+v, want llama-server's abort fatal", alarms)
	}
	// An rpc-server launched on its own is ready when its client connects.
	st, _ = feedSettledState("llamacpp", rpc+"1: Accepted client connection")
	if r := st.Summary().Ready; r == nil || r.Seq != 3 {
		t.Errorf("ready %+v, want the accepted connection (line 3)", r)
	}
}

// A log explorer's CSV export puts the time and chosen columns before each
// message, quoted: an envelope. A traceback exported row by row is one
// event, and a status column that says "error" for every stderr row does
// not make a line an error.
func TestCSVExportRowsAreAnEnvelope(t *testing.T) {
	t.Parallel()
	p := classify.ParsePrefix(`2031-02-03 04:05:06.789,acme/i-0123,"  File ""/srv/acme/model.py"", line 7, in load"`, 2031)
	if p.Origin != "acme/i-0123" || p.Body != `  File "/srv/acme/model.py", line 7, in load` || p.Time.IsZero() {
		t.Errorf("parsed %+v, want origin acme/i-0123, the unquoted frame and the row's time", p)
	}
	p = classify.ParsePrefix(`"2031-02-03T04:05:06.789Z","host-1","acme-llm","error","INFO:     Application startup complete."`, 2031)
	if p.Origin != "host-1,acme-llm" || p.Level != "INFO" || p.Body != "Application startup complete." {
		t.Errorf("parsed %+v, want origin host-1,acme-llm and the message's own INFO", p)
	}
	// Python logging's comma before the milliseconds is no CSV.
	p = classify.ParsePrefix("2031-02-03 04:05:06,789 - acme - INFO - loading", 2031)
	if p.Origin != "" || p.Level != "INFO" || p.Body != "loading" {
		t.Errorf("parsed %+v, want Python logging's prefix", p)
	}

	_, alarms := feedSettledState("", `@timestamp,@message
2031-02-03 04:05:06.100,"Traceback (most recent call last):"
2031-02-03 04:05:06.100,"  File ""/srv/acme/model.py"", line 7, in load"
2031-02-03 04:05:06.100,"    self.w = torch.load(path)"
2031-02-03 04:05:06.100,"RuntimeError: checkpoint /models/acme.pt is truncated"`)
	if len(alarms) != 1 || alarms[0].FirstSeq != 2 || alarms[0].HeadlineSeq != 5 {
		t.Errorf("alarms %+v, want one traceback from row 2 headed by row 5", alarms)
	}

	// A Java model server wrapping vLLM is ready where its API binds.
	st, _ := feedSettledState("", `2031-02-03 04:05:06.100,"[INFO ] PyProcess - W-100-model-stdout: INFO 02-03 04:05:06 model_runner.py:1000] Loading model weights took 6.1 GB"
2031-02-03 04:05:09.100,"[INFO ] PyProcess - Model [model] initialized."
2031-02-03 04:05:09.200,"[INFO ] ModelServer - BOTH API bind to: http://0.0.0.0:8080"`)
	if r := st.Summary().Ready; r == nil || r.Seq != 3 {
		t.Errorf("ready %+v, want the API's bind (row 3)", r)
	}
}

// An embedding server started first in the same compose project is ready
// long before the LLM server: its readiness is not the launch's, even as
// the log's first service.
func TestEmbeddingServerBesideIsNoReadiness(t *testing.T) {
	t.Parallel()
	st, _ := feedSettledState("vllm", `tei-1        | 2031-02-03T04:05:00.100000Z  INFO text_embeddings_router: router/src/lib.rs:230: Starting model backend
open-webui-1 | INFO:     Started server process [1]
tei-1        | 2031-02-03T04:05:02.100000Z  INFO text_embeddings_router::http::server: router/src/http/server.rs:1800: Starting HTTP server: 0.0.0.0:80
tei-1        | 2031-02-03T04:05:02.200000Z  INFO text_embeddings_router::http::server: router/src/http/server.rs:1801: Ready
vllm-1       | (APIServer pid=1) INFO 02-03 04:05:06 [api_server.py:1800] vLLM API server version 0.10.9`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready at %d, want none: only the embedding server is up", r.Seq)
	}
}

// A launch script run with `set -x` echoes each command before it runs:
// the echoed command quotes what it is about to print and is no event,
// and the next command's output is not part of the event before it.
func TestShellTraceLinesAreCommands(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `loading blk.3.ffn_up.weight to cuda:0
serve.sh: line 9: 4242 Killed                  python -m acme.server --port 9000
+ rc=137
+ echo 'acme exited with code 137'
acme exited with code 137
+ dmesg -T
+ tail -n 2
[Tue Feb  3 04:05:06 2031] Out of memory: Killed process 4242 (python) total-vm:9000000kB, anon-rss:8000000kB
[Tue Feb  3 04:05:07 2031] oom_reaper: reaped process 4242 (python), now anon-rss:0kB`)
	for _, a := range alarms {
		if a.FirstSeq == 4 || a.HeadlineSeq == 4 {
			t.Errorf("alarm %+v on the echoed command (line 4)", a)
		}
		if a.FirstSeq <= 5 && a.LastSeq >= 8 {
			t.Errorf("alarm %+v runs from the script's report into dmesg's output", a)
		}
	}
	var dmesg bool
	for _, a := range alarms {
		dmesg = dmesg || a.HeadlineSeq == 8
	}
	if !dmesg {
		t.Errorf("alarms %+v, want one headed by the kernel's OOM kill (line 8)", alarms)
	}
}

// A service's name that is a dependency's word ("db-1") says it is beside
// the model server only in a log of several services: a log of one
// service is that service's, and a service that printed a model server's
// own wording runs one, whatever its name.
func TestDependencyNameAloneIsTheLaunch(t *testing.T) {
	t.Parallel()
	st, _ := feedSettledState("", `db-1  | INFO:     Started server process [1]
db-1  | INFO:     Waiting for application startup.
db-1  | INFO:     Application startup complete.
db-1  | INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)`)
	if st.Summary().Ready == nil {
		t.Error("no readiness for a log of one service named db-1")
	}
	st, _ = feedSettledState("", `web-1    | INFO:     Started server process [1]
redis-1  | 1:M 03 Feb 2031 04:05:06.000 * Server initialized
redis-1  | INFO:     Application startup complete.`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready at %d, want none: redis-1 beside web-1 is a dependency", r.Seq)
	}
}

// `kubectl logs --timestamps` before vLLM's own prefix: the level and the
// clock after the envelope's time are vLLM's prefix, read whole, so a
// traceback under it reads as frames and ends at its exception.
func TestTimestampBeforeVLLMPrefix(t *testing.T) {
	t.Parallel()
	p := classify.ParsePrefix("2031-05-06T07:08:09.123456789Z ERROR 05-06 07:08:09 [core.py:612] Invocation of reload method failed", 2031)
	if p.Level != "ERROR" || p.Body != "Invocation of reload method failed" {
		t.Errorf("level %q body %q, want ERROR and the message alone", p.Level, p.Body)
	}
	_, alarms := feedSettledState("vllm", `2031-05-06T07:08:00.000000001Z INFO:     Application startup complete.
2031-05-06T07:08:09.123456789Z ERROR 05-06 07:08:09 [core.py:612] Invocation of reload method failed
2031-05-06T07:08:09.123456789Z ERROR 05-06 07:08:09 [core.py:612] Traceback (most recent call last):
2031-05-06T07:08:09.123456789Z ERROR 05-06 07:08:09 [core.py:612]   File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 600, in _handle_client_request
2031-05-06T07:08:09.123456789Z ERROR 05-06 07:08:09 [core.py:612]     output.result = method(*args)
2031-05-06T07:08:09.123456789Z ERROR 05-06 07:08:09 [core.py:612]   File "/opt/venv/lib/python3.12/site-packages/vllm/v1/worker/gpu_worker.py", line 88, in reload
2031-05-06T07:08:09.123456789Z ERROR 05-06 07:08:09 [core.py:612]     raise ValueError("adapter rank 128 exceeds the configured 32")
2031-05-06T07:08:09.123456789Z ERROR 05-06 07:08:09 [core.py:612] ValueError: adapter rank 128 exceeds the configured 32
2031-05-06T07:08:10.000000001Z INFO:     10.0.0.9:5512 - "POST /v1/chat/completions HTTP/1.1" 200 OK`)
	if len(alarms) != 1 || alarms[0].HeadlineSeq != 8 || alarms[0].LastSeq != 8 {
		t.Fatalf("alarms %+v, want one alarm over lines 2-8 headed by the ValueError (8)", alarms)
	}
}

// srun's report that a task died is the launcher's: an event of its own
// after the task's dump, never the dump's last line; a root cause the
// step daemon reports with it (the cgroup OOM kill) heads that event.
func TestSrunTaskDeathIsItsOwnEvent(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `0: F0102 03:04:05.600000 4242 engine.cpp:77] Check failed: blocks > 0 (0 vs. 0)
0: *** Check failure stack trace: ***
0:     @     0x7f0000001000  google::LogMessage::Fail()
0:     @     0x7f0000002000  engine::Engine::init()
srun: error: node-17: task 0: Aborted (core dumped)`)
	if len(alarms) != 2 || alarms[0].LastSeq != 4 || alarms[1].FirstSeq != 5 || alarms[1].HeadlineSeq != 5 || !alarms[1].Fatal {
		t.Fatalf("alarms %+v, want the check failure (1-4) and srun's report (5)", alarms)
	}

	_, alarms = feedSettledState("", `1: RuntimeError: device 3 could not join the communicator
srun: error: node-18: task 1: Killed
slurmstepd: error: Detected 1 oom_kill event in StepId=7.0. Some of the step tasks have been OOM Killed.`)
	var last classify.Alarm
	for _, a := range alarms {
		if a.FirstSeq <= 2 && a.LastSeq >= 2 {
			last = a
		}
	}
	if last.HeadlineSeq != 3 {
		t.Fatalf("alarms %+v, want srun's report in an event headed by the OOM kill (3)", alarms)
	}
}

// systemd ending a unit that never reported ready in time is the launch's
// failure, headed by systemd's own words, whatever the server printed.
func TestSystemdStartTimeoutIsAFailure(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `Mar 04 05:06:07 box systemd[1]: Starting heron.service - Heron model server...
Mar 04 05:06:09 box heron[811]: INFO loading weights 3/8
Mar 04 05:21:07 box systemd[1]: heron.service: start operation timed out. Terminating.
Mar 04 05:21:07 box heron[811]: INFO received SIGTERM, exiting
Mar 04 05:21:08 box systemd[1]: heron.service: Failed with result 'timeout'.`)
	if len(alarms) == 0 || alarms[0].HeadlineSeq != 3 || !alarms[0].Fatal {
		t.Fatalf("alarms %+v, want a fatal alarm headed by systemd's timeout (3)", alarms)
	}
}

// A served vLLM whose engine dies: the front end's "already dead,
// terminating" record at the traceback's level is its own event, and
// uvicorn's bare "Shutting down" right after the failure is the crash's
// teardown, not an operator's stop, so systemd's exit report still counts.
func TestCrashTeardownIsNoOperatorStop(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("vllm", `INFO:     Application startup complete.
INFO:     10.0.0.5:4100 - "POST /v1/completions HTTP/1.1" 200 OK
ERROR 04-05 06:07:08 engine.py:140] Traceback (most recent call last):
ERROR 04-05 06:07:08 engine.py:140]   File "/opt/vllm/engine/multiprocessing/engine.py", line 138, in run_engine_loop
ERROR 04-05 06:07:08 engine.py:140]     outputs = self.engine_step()
ERROR 04-05 06:07:08 engine.py:140] RuntimeError: device lost while stepping the model
ERROR 04-05 06:07:09 launcher.py:101] MQLLMEngine is already dead, terminating server process
INFO:     10.0.0.5:4102 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error
INFO:     Shutting down
INFO:     Application shutdown complete.
INFO:     Finished server process [77]
systemd[1]: heron.service: Main process exited, code=exited, status=1/FAILURE`)
	heads := map[int64]bool{}
	for _, a := range alarms {
		heads[a.HeadlineSeq] = a.Fatal
	}
	if len(alarms) != 3 || !heads[6] || !heads[7] || !heads[12] {
		t.Fatalf("alarms %+v, want fatal alarms headed by the RuntimeError (6), the front end's report (7) and systemd's (12)", alarms)
	}

	// The same bare "Shutting down" with no failure before it is a stop.
	_, alarms = feedSettledState("vllm", `INFO:     Application startup complete.
INFO:     Shutting down
INFO:     Finished server process [77]
systemd[1]: heron.service: Main process exited, code=exited, status=1/FAILURE`)
	if len(alarms) != 0 {
		t.Fatalf("alarms %+v after an operator's stop, want none", alarms)
	}
}

// A row copied from Kibana's Discover table: the human time column and its
// tab are an envelope, and the record after it is read as the line.
func TestExplorerDateColumnIsAnEnvelope(t *testing.T) {
	t.Parallel()
	p := classify.ParsePrefix("Feb 3, 2031 @ 04:05:06.789\t{\"timestamp\":\"2031-02-03T04:05:06.789Z\",\"level\":\"ERROR\",\"fields\":{\"message\":\"Webserver Crashed\"},\"target\":\"text_generation_launcher\"}", 2031)
	if p.Level != "ERROR" || !strings.Contains(p.Body, "Webserver Crashed") {
		t.Errorf("level %q body %q, want the record's ERROR and message", p.Level, p.Body)
	}
	if p.Time.Day() != 3 || p.Time.Hour() != 4 {
		t.Errorf("time %v, want the record's or the column's time", p.Time)
	}
	if p := classify.ParsePrefix("Feb 3, 2031 was the day the model shipped", 2031); p.Body != "Feb 3, 2031 was the day the model shipped" {
		t.Errorf("body %q, want a sentence starting with a date left alone", p.Body)
	}
}

// TGI's router that fails its warmup returns the error from main: those
// last words name why it exits, head its report, and make it fatal.
func TestTGIRouterExitErrorHeadsItsReport(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("tgi", `2031-02-03T04:05:06.000000Z ERROR warmup{max_input_length=Some(4000) max_prefill_tokens=8192 max_total_tokens=Some(8192) max_batch_size=None}:warmup: text_generation_router_v3::client: backends/v3/src/client/mod.rs:45: Server error: Not enough memory to handle 8192 prefill tokens.
Error: Backend(Warmup(Generation("Not enough memory to handle 8192 prefill tokens.")))`)
	if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].HeadlineSeq != 2 {
		t.Fatalf("alarms %+v, want one fatal alarm headed by the router's exit error (2)", alarms)
	}
}

// A socket table the operator printed (netstat, ss, lsof) shows who holds
// a port: no announcement. Windows' words for a port in use are a bind
// failure like "address already in use".
func TestSocketTableIsNoAnnouncementAndWindowsBindFails(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `2031/02/03 04:05:06 INFO docs on http://127.0.0.1:9000/docs
2031/02/03 04:05:06 ERROR HTTP Server Error err="listen tcp 127.0.0.1:9000: bind: Only one usage of each socket address (protocol/network address/port) is normally permitted."
PS C:\work> netstat -ano | findstr :9000
  TCP    127.0.0.1:9000         0.0.0.0:0              LISTENING       4242
tcp        0      0 0.0.0.0:9000            0.0.0.0:*               LISTEN      4242/serve
LISTEN 0      4096         0.0.0.0:9000       0.0.0.0:*    users:(("serve",pid=4242,fd=7))
serve   4242 ops    7u  IPv4 0x1a2b      0t0  TCP *:9000 (LISTEN)`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready at %d, want none: the socket table is the operator's, the server failed to bind", r.Seq)
	}
	if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].HeadlineSeq != 2 {
		t.Errorf("alarms %+v, want the bind failure (2)", alarms)
	}
}

// A CLI that starts the server as a service returns to the prompt at
// once: its "running on port" then holds. A command the operator types
// after that which fails is that command's failure, not the server's.
func TestPromptAfterDetachedStartAndAFailedCommand(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `ops@box:~$ acme server start --port 7070
Starting server...
Success! Server is now running on port 7070
ops@box:~$ acme load big-model --context 65536
Loading model "big-model"...
Error: Failed to load model "big-model".
ops@box:~$ acme status
The server is running on port 7070.`)
	if r := st.Summary().Ready; r == nil || r.Seq != 3 {
		t.Errorf("ready %+v, want the announcement the prompt confirmed (3)", r)
	}
	if len(alarms) != 1 || alarms[0].Fatal || alarms[0].HeadlineSeq != 6 {
		t.Errorf("alarms %+v, want the load command's failure (6), not fatal", alarms)
	}

	// A server run in the foreground that dies says so before the
	// prompt comes back: that is the launch's failure.
	_, alarms = feedSettledState("", `ops@box:~$ acme-server --port 7070
loading weights
Error: model file is truncated
ops@box:~$ ls`)
	if len(alarms) != 1 || !alarms[0].Fatal {
		t.Errorf("alarms %+v, want the server's last words, fatal", alarms)
	}
}

// uvicorn run with --reload (or --workers) prints "Uvicorn running on"
// from its supervisor before the worker's application starts: no
// readiness until the application says it started, and none when its
// startup fails.
func TestUvicornSupervisorSocketIsNoReadiness(t *testing.T) {
	t.Parallel()
	st, _ := feedSettledState("", `INFO:     Will watch for changes in these directories: ['/srv/app']
INFO:     Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)
INFO:     Started reloader process [501] using WatchFiles
/srv/app/server.py:12: DeprecationWarning: on_event is deprecated
  @app.on_event("startup")
INFO:     Started server process [503]
INFO:     Waiting for application startup.
Pre-loading model: acme/vision-7b
ERROR:    Traceback (most recent call last):
  File "/srv/app/server.py", line 40, in startup
    load_model()
OSError: [Errno 28] No space left on device
ERROR:    Application startup failed. Exiting.`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready at %d, want none: the application never started", r.Seq)
	}
}

// A supervisor restarts a server that died; the new attempt becomes ready
// (long after the first death retired): the launch is ready, and the first
// attempt's alarms stay listed, no longer fatal. Without the restart a
// death before a readiness line stays fatal.
func TestRestartedAttemptThatBecomesReady(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`Mar 04 05:06:07 box heron[811]: Error: listen tcp 0.0.0.0:7070: bind: address already in use
Mar 04 05:06:07 box systemd[1]: heron.service: Main process exited, code=exited, status=1/FAILURE
Mar 04 05:06:07 box systemd[1]: heron.service: Failed with result 'exit-code'.
Mar 04 05:06:12 box systemd[1]: heron.service: Scheduled restart job, restart counter is at 1.
Mar 04 05:06:12 box systemd[1]: Started heron.service - Heron model server.
`)
	for i := range 100 {
		b.WriteString("Mar 04 05:06:13 box heron[902]: loading tensor block " + strings.Repeat("x", i%7) + "\n")
	}
	b.WriteString("Mar 04 05:06:40 box heron[902]: Listening on 0.0.0.0:7070 (version 1.2.3)")
	st, alarms := feedSettledState("", b.String())
	if st.Summary().Ready == nil {
		t.Fatal("no readiness, want the restarted attempt's listening line")
	}
	if len(alarms) == 0 {
		t.Fatal("no alarms, want the first attempt's failure listed")
	}
	for _, a := range alarms {
		if a.Fatal {
			t.Errorf("alarm %+v is fatal, want the first attempt's failure survived by the restart", a)
		}
	}
	if st.Summary().FatalAlarms != 0 {
		t.Errorf("summary %+v, want no fatal alarm counted", st.Summary())
	}

	// The same death with no restart before the readiness stays fatal.
	_, alarms = feedSettledState("", `Mar 04 05:06:07 box systemd[1]: heron.service: Main process exited, code=killed, status=9/KILL
Mar 04 05:06:40 box heron[902]: Listening on 0.0.0.0:7070 (version 1.2.3)`)
	if len(alarms) != 1 || !alarms[0].Fatal {
		t.Errorf("alarms %+v, want the unrestarted death fatal", alarms)
	}
}

// A monitor beside the model server (Prometheus, in Go's slog with its
// source, as Ollama logs) neither names the launch's family nor loads its
// model: the model server's readiness is the launch's.
func TestMonitorBesideTheServerIsNoFamilyNorLoading(t *testing.T) {
	t.Parallel()
	st, _ := feedSettledState("", `prometheus-1 | time=2031-02-03T04:05:00.100Z level=INFO source=main.go:700 msg="Starting Prometheus Server" mode=server
prometheus-1 | time=2031-02-03T04:05:00.200Z level=INFO source=main.go:1500 msg="Completed loading of configuration file" db_storage=1.1µs
prometheus-1 | time=2031-02-03T04:05:00.300Z level=INFO source=main.go:1180 msg="Server is ready to receive web requests."
scorer-1     | INFO:     Started server process [1]
scorer-1     | INFO:     Waiting for application startup.
scorer-1     | 2031-02-03 04:05:02,000 [scorer] INFO - Loaded model 'ranker' successfully.
scorer-1     | INFO:     Application startup complete.
scorer-1     | INFO:     Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)
scorer-1     | INFO:     172.19.0.1:40112 - "GET /v2/health/ready HTTP/1.1" 200 OK`)
	if st.Server() == "ollama" {
		t.Error("family ollama, want none: Prometheus's slog lines are not Ollama's")
	}
	if r := st.Summary().Ready; r == nil || r.Seq < 7 {
		t.Errorf("ready %+v, want the scorer's readiness (7 or later)", r)
	}
}

// gunicorn's master binds before its worker loads the application, and a
// logging configuration is no model: no readiness before the worker
// booted the app. The master's reason for halting heads its report, at
// INFO as older gunicorn logs it.
func TestGunicornMasterBindIsNoReadiness(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `2031-02-03 04:05:00,100 I [11] acmesrv - Loaded logging config from /opt/acme/logging.json
2031-02-03 04:05:00,200 I [11] gunicorn.error - Starting gunicorn 23.0.0
2031-02-03 04:05:00,201 I [11] gunicorn.error - Listening at: http://0.0.0.0:5001 (11)
2031-02-03 04:05:00,202 I [11] gunicorn.error - Using worker: sync
2031-02-03 04:05:00,203 I [68] gunicorn.error - Booting worker with pid: 68
2031-02-03 04:05:03,000 E [68] acmesrv - Encountered exception while loading the model
2031-02-03 04:05:03,001 I [68] gunicorn.error - Worker exiting (pid: 68)
2031-02-03 04:05:03,400 E [11] gunicorn.error - Worker (pid:68) exited with code 3
2031-02-03 04:05:03,401 I [11] gunicorn.error - Shutting down: Master
2031-02-03 04:05:03,402 I [11] gunicorn.error - Reason: Worker failed to boot.`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready at %d, want none: the worker never booted the app", r.Seq)
	}
	found := false
	for _, a := range alarms {
		found = found || a.HeadlineSeq == 10 && a.Fatal
	}
	if !found {
		t.Errorf("alarms %+v, want the master's reason (10) heading a fatal alarm", alarms)
	}
}

// pm2's log prefixes are an envelope: the app's "ID|NAME | " names the
// origin, the daemon's "PM2 | " is the launch's supervisor; its verdict
// that it stopped restarting is the launch's failure, heading its report.
func TestPM2PrefixesAndSupervisorGivingUp(t *testing.T) {
	t.Parallel()
	p := classify.ParsePrefix("0|heron-api  | ERROR 04-05 06:07:08 engine.py:160] ValueError: bad dtype", 2031)
	if p.Origin != "heron-api" || p.Level != "ERROR" || p.Body != "ValueError: bad dtype" {
		t.Errorf("origin %q level %q body %q, want the app, vLLM's level and the message", p.Origin, p.Level, p.Body)
	}
	if p := classify.ParsePrefix("PM2        | App [heron-api:0] online", 2031); p.Body != "App [heron-api:0] online" || p.Origin != "" {
		t.Errorf("origin %q body %q, want the daemon's message with no origin", p.Origin, p.Body)
	}
	_, alarms := feedSettledState("", `PM2        | App [heron:0] exited with code [1] via signal [SIGINT]
PM2        | Script /opt/venv/bin/heron had too many unstable restarts (3). Stopped. "errored"`)
	found := false
	for _, a := range alarms {
		found = found || a.Fatal && a.HeadlineSeq == 2
	}
	if !found {
		t.Errorf("alarms %+v, want pm2's giving up (2) heading a fatal alarm", alarms)
	}
}

// A log explorer's row with a name column between the time and the line,
// and `aws logs tail`'s stream before it: both are an envelope whose
// column is the origin, and the line is read as the server wrote it.
func TestExplorerNameColumnAndLogStreamAreEnvelopes(t *testing.T) {
	t.Parallel()
	p := classify.ParsePrefix("2031-02-03 04:05:06.789\tr-acme-ner-6f8d9c7b5-2k7qp\t  File \"/app/handler.py\", line 12, in __init__", 2031)
	if p.Origin != "r-acme-ner-6f8d9c7b5-2k7qp" || p.Body != "  File \"/app/handler.py\", line 12, in __init__" {
		t.Errorf("origin %q body %q, want the replica and the frame", p.Origin, p.Body)
	}
	p = classify.ParsePrefix("2031-02-03T04:05:06.789000+00:00 AllTraffic/i-0a1b2c3d4e5f 2031-02-03T04:05:06,789 [ERROR] W-9000-acme com.amazonaws.ml.mms.wlm.WorkerThread - Backend worker error", 2031)
	if p.Origin != "AllTraffic/i-0a1b2c3d4e5f" || p.Level != "ERROR" || !strings.HasPrefix(p.Body, "Backend worker error") {
		t.Errorf("origin %q level %q body %q, want the stream, the record's level and its message", p.Origin, p.Level, p.Body)
	}
	if p := classify.ParsePrefix("2031-02-03T04:05:06Z /opt/venv/lib/x.py:12: UserWarning: old API", 2031); p.Origin != "" {
		t.Errorf("origin %q, want none: a path after docker's time is the line", p.Origin)
	}
}

// The terminal's "^C" glued to the program's next line: that line's own
// prefix is read (FastChat's stream relay: its ERROR level says nothing),
// and the stop makes the traceback after it teardown, never a crash.
func TestCtrlCEchoBeforeAPrefixedLine(t *testing.T) {
	t.Parallel()
	p := classify.ParsePrefix("^C2031-02-03 04:05:06 | ERROR | stderr | Traceback (most recent call last):", 2031)
	if p.Body != "Traceback (most recent call last):" || p.Level != "" {
		t.Errorf("level %q body %q, want the relayed line with no level", p.Level, p.Body)
	}
	st, alarms := feedSettledState("", `2031-02-03 04:05:00 | INFO | model_worker | Loading the model ['acme-13b'] on worker 7c2e ...
2031-02-03 04:05:01 | ERROR | stderr | Loading checkpoint shards:  33%|###3      | 1/3 [00:26<00:52, 26.14s/it]
^C2031-02-03 04:05:06 | ERROR | stderr | Traceback (most recent call last):
2031-02-03 04:05:06 | ERROR | stderr |   File "/opt/venv/lib/python3.10/site-packages/acme/loader.py", line 88, in load_shards
2031-02-03 04:05:06 | ERROR | stderr |     state = torch.load(path)
2031-02-03 04:05:06 | ERROR | stderr | KeyboardInterrupt`)
	for _, a := range alarms {
		if a.Fatal {
			t.Errorf("fatal alarm %+v after the operator's Ctrl-C", a)
		}
	}
	if st.Summary().FatalAlarms != 0 {
		t.Errorf("summary %+v, want no fatal alarm", st.Summary())
	}
}

// bash's report that a script's command died by a signal ("./run.sh: line
// 9: 811 Aborted (core dumped) cmd") is the script's own event after the
// child's abort, not the abort's last line.
func TestScriptJobStatusIsItsOwnEvent(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `CUDA error: an illegal memory access was encountered
  current device: 0, in function ggml_backend_cuda_synchronize at ggml-cuda.cu:2300
  cudaStreamSynchronize(cuda_ctx->stream())
ggml-cuda.cu:73: CUDA error
./run.sh: line 9:   811 Aborted                 (core dumped) python serve.py`)
	if len(alarms) != 2 || alarms[1].HeadlineSeq != 5 || alarms[0].LastSeq != 4 {
		t.Fatalf("alarms %+v, want the CUDA error (1-4) and the script's report (5)", alarms)
	}
}

// LocalAI relays its gRPC backends' output at DEBUG: the backend's line
// is read without the relay's level, so a runner's CUDA failure is seen.
func TestLocalAIBackendStreamIsRelayed(t *testing.T) {
	t.Parallel()
	p := classify.ParsePrefix("12:08PM DBG GRPC(acme-7b-127.0.0.1:37415): stderr CUDA error: an illegal memory access was encountered", 2031)
	if p.Level != "" || p.Body != "CUDA error: an illegal memory access was encountered" {
		t.Errorf("level %q body %q, want the backend's line with no level", p.Level, p.Body)
	}
	if p := classify.ParsePrefix("12:08PM DBG GRPC Process is not responding: acme-7b", 2031); p.Level != "DEBUG" {
		t.Errorf("level %q, want LocalAI's own DEBUG line kept", p.Level)
	}
}

// A request error the serving layer caught, logged with its traceback and
// answered 4xx is a handled rejection, no alarm; an unhandled exception
// answered 500 stays a non-fatal alarm.
func TestHandledRequestErrorAnswered4xxIsNoAlarm(t *testing.T) {
	t.Parallel()
	const trace = `ERROR 04-05 06:07:08 [serving_chat.py:222] Error in preprocessing prompt inputs
ERROR 04-05 06:07:08 [serving_chat.py:222] Traceback (most recent call last):
ERROR 04-05 06:07:08 [serving_chat.py:222]   File "/opt/vllm/entrypoints/openai/serving_chat.py", line 200, in create_chat_completion
ERROR 04-05 06:07:08 [serving_chat.py:222]     prompt = self._render(request)
ERROR 04-05 06:07:08 [serving_chat.py:222] ValueError: the prompt is 9000 tokens, more than the 8192 allowed
`
	_, alarms := feedSettledState("vllm", "INFO:     Application startup complete.\n"+trace+
		`INFO:     10.0.0.5:4100 - "POST /v1/chat/completions HTTP/1.1" 400 Bad Request`)
	for _, a := range alarms {
		if !a.Withdrawn {
			t.Errorf("alarm %+v, want the handled rejection withdrawn", a)
		}
	}
	_, alarms = feedSettledState("vllm", "INFO:     Application startup complete.\n"+trace+
		`INFO:     10.0.0.5:4100 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error`)
	live := 0
	for _, a := range alarms {
		if !a.Withdrawn {
			live++
		}
	}
	if live != 1 {
		t.Errorf("alarms %+v, want the error answered 500 kept", alarms)
	}
}

// Colour codes whose ESC a copy dropped ("[32m INFO[0m") are stripped
// when the line has a reset and another code; brackets of text stay.
func TestBareColourCodesAreStripped(t *testing.T) {
	t.Parallel()
	p := classify.ParsePrefix("[2m2031-02-03T04:05:06.000000Z[0m [32m INFO[0m [2mtext_generation_router::server[0m[2m:[0m Connected", 2031)
	if p.Level != "INFO" || !strings.HasSuffix(p.Body, "Connected") || strings.Contains(p.Body, "[0m") {
		t.Errorf("level %q body %q, want TGI's INFO line without the codes", p.Level, p.Body)
	}
	if p := classify.ParsePrefix("[0m is a reset and [1] a footnote", 2031); p.Body != "[0m is a reset and [1] a footnote" {
		t.Errorf("body %q, want a line with one code left alone", p.Body)
	}
}

// A web framework's log of one request's exception (Quart, Flask, Django)
// is survived once the server answers more requests, also when its access
// log writes the protocol as a bare version (Hypercorn's "POST /x 1.1").
func TestWebFrameworkRequestExceptionIsSurvived(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `[2031-02-03 04:05:00 +0000] [7] [INFO] Running on http://0.0.0.0:8000 (CTRL + C to quit)
[2031-02-03 04:05:06 +0000] [7] [ERROR] Exception on request POST /v1/transcribe
Traceback (most recent call last):
  File "/srv/app.py", line 40, in transcribe
    text = model.run(audio)
ValueError: audio is empty
[2031-02-03 04:05:06 +0000] [7] [INFO] 10.0.0.5:5100 - - [03/Feb/2031:04:05:06 +0000] "POST /v1/transcribe 1.1" 500 265 "-" "curl/8.5"
[2031-02-03 04:05:09 +0000] [7] [INFO] 10.0.0.5:5102 - - [03/Feb/2031:04:05:09 +0000] "POST /v1/transcribe 1.1" 200 512 "-" "curl/8.5"
[2031-02-03 04:05:12 +0000] [7] [INFO] 10.0.0.5:5104 - - [03/Feb/2031:04:05:12 +0000] "POST /v1/transcribe 1.1" 200 498 "-" "curl/8.5"`)
	if len(alarms) != 1 || alarms[0].Fatal || alarms[0].HeadlineSeq != 6 {
		t.Fatalf("alarms %+v, want the request's traceback (headed by its exception, 6), not fatal", alarms)
	}
}

// gin's access line answering 499 (the client closed the request) after a
// load failure the client's leaving caused: the failure was handled.
func TestLoadCancelledByTheClientIsHandled(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `time=2031-02-03T04:05:00.000Z level=INFO source=routes.go:1300 msg="Listening on [::]:11434 (version 0.12.3)"
time=2031-02-03T04:05:05.312Z level=WARN source=sched.go:443 msg="client connection closed before server finished loading, aborting load"
time=2031-02-03T04:05:05.312Z level=ERROR source=sched.go:449 msg="error loading llama server" error="timed out waiting for llama runner to start: context canceled"
[GIN] 2031/02/03 - 04:05:05 | 499 |       1.702s |       10.0.0.5 | POST     "/api/chat"`)
	for _, a := range alarms {
		if !a.Withdrawn {
			t.Errorf("alarm %+v, want the cancelled load withdrawn", a)
		}
	}
}

// A model server's frontend that restarts its dead backend worker serves
// on: the worker's failure before it is the worker's, not the launch's.
func TestFrontendRestartingItsWorkerSurvives(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `I0203 04:05:00.100000 1 grpc_server.cc:2466] "Started GRPCInferenceService at 0.0.0.0:8001"
I0203 04:05:00.200000 1 http_server.cc:4636] "Started HTTPService at 0.0.0.0:8000"
Fatal Python error: Segmentation fault

Current thread 0x00007f0000000001 (most recent call first):
  File "/models/ranker/1/model.py", line 88 in execute
E0203 04:05:06.502339 1 python_be.cc:2322] Stub process is unhealthy and it will be restarted.`)
	if st.Summary().Ready == nil {
		t.Fatal("no readiness, want Triton's HTTP service")
	}
	for _, a := range alarms {
		if a.Fatal {
			t.Errorf("alarm %+v fatal, want the stub's death survived by the server", a)
		}
	}
}

// The kernel's OOM-killer line counts where the kernel writes it (the
// line's start, after "kernel: " or dmesg's time), never quoted inside
// another message (a model's answer logged by a handler).
func TestOOMKillerLineQuotedInAMessageIsNoDeath(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `2031-02-03T04:05:06,100 [INFO ] W-9000-acme-stdout MODEL_LOG - answer: the log said Out of memory: Killed process 4242 (python3), so the pod restarted`)
	if len(alarms) != 0 {
		t.Errorf("alarms %+v, want none: the kernel's words are quoted in an answer", alarms)
	}
	_, alarms = feedSettledState("", `Feb 03 04:05:06 box kernel: Out of memory: Killed process 4242 (python3) total-vm:61433872kB, anon-rss:28117404kB`)
	if len(alarms) != 1 || !alarms[0].Fatal {
		t.Errorf("alarms %+v, want the kernel's OOM kill", alarms)
	}
}

// The kernel's OOM report pasted after a server's log names the victim's
// pid: when the server already reported that pid's death and served on,
// the report is the same death, not a second one.
func TestKernelReportOfAWorkerDeathTheServerOutlived(t *testing.T) {
	t.Parallel()
	const serving = `[2031-02-03 04:00:00 +0000] [700] [INFO] Starting gunicorn 23.0.0
[2031-02-03 04:00:00 +0000] [700] [INFO] Listening at: http://0.0.0.0:9100 (700)
[2031-02-03 04:00:00 +0000] [711] [INFO] Booting worker with pid: 711
[2031-02-03 04:00:00 +0000] [712] [INFO] Booting worker with pid: 712
[2031-02-03 04:00:05 +0000] [711] [INFO] Application startup complete.
[2031-02-03 04:00:05 +0000] [712] [INFO] Application startup complete.
[2031-02-03 04:10:00 +0000] [711] [INFO] 10.9.0.2:40100 - "POST /v1/embed HTTP/1.1" 200
[2031-02-03 04:20:00 +0000] [700] [ERROR] Worker (pid:712) was sent SIGKILL! Perhaps out of memory?
[2031-02-03 04:20:00 +0000] [905] [INFO] Booting worker with pid: 905
[2031-02-03 04:20:06 +0000] [905] [INFO] Application startup complete.
[2031-02-03 04:21:00 +0000] [711] [INFO] 10.9.0.2:40188 - "POST /v1/embed HTTP/1.1" 200
$ dmesg -T | grep -i 'killed process'
`
	for _, tc := range []struct {
		victim string
		fatal  bool
	}{
		{"712", false}, // the worker gunicorn reported and replaced
		{"7120", true}, // another process: a death of its own
	} {
		st, alarms := feedSettledState("", serving+"[Sat Feb  3 04:20:00 2031] Out of memory: Killed process "+tc.victim+" (gunicorn) total-vm:9433872kB, anon-rss:8117404kB")
		fatal := 0
		for _, a := range alarms {
			if a.Fatal {
				fatal++
			}
		}
		if len(alarms) != 2 || (fatal == 1) != tc.fatal || st.Summary().Ready == nil {
			t.Errorf("victim %s: ready=%v alarms %+v, want the arbiter's report and the kernel's, fatal=%v", tc.victim, st.Summary().Ready, alarms, tc.fatal)
		}
	}
}
