package classify_test

import (
	"strings"
	"testing"

	"launchwatch/internal/classify"
)

// The rules the blind sets p- and q- asked for (round 3, session 5), each
// on lines written from the format it reads; every value is made up.

// oneAlarm returns the only alarm, failing the test when there is not
// exactly one.
func oneAlarm(t *testing.T, alarms []classify.Alarm) classify.Alarm {
	t.Helper()
	if len(alarms) != 1 {
		t.Fatalf("%d alarms %+v, want one", len(alarms), alarms)
	}
	return alarms[0]
}

// A request's failure that the server reports and survives is one
// non-fatal alarm, whatever runtime prints it.
func TestRequestFailuresSurvived(t *testing.T) {
	t.Parallel()
	t.Run("GoHTTPPanicServing", func(t *testing.T) {
		_, alarms := feedSettledState("", `2031/01/02 03:04:05 listening on :8080
2031/01/02 03:04:09 http: panic serving 10.0.0.1:51234: runtime error: index out of range [3] with length 3
goroutine 33 [running]:
net/http.(*conn).serve.func1()
	/usr/local/go/src/net/http/server.go:1898 +0xbe
main.predict(...)
	/src/main.go:88 +0x1f
2031/01/02 03:04:10 POST /v1/predict 200 12ms`)
		a := oneAlarm(t, alarms)
		if a.Fatal || a.FirstSeq != 2 || a.LastSeq != 7 || a.HeadlineSeq != 2 {
			t.Errorf("alarm %+v, want one survived alarm of lines 2-7 headed by line 2", a)
		}
	})
	t.Run("ServletExceptionAfterABlankLine", func(t *testing.T) {
		st, alarms := feedSettledState("", `2031-01-02T03:04:04.000Z  INFO 1 --- [           main] demo.ModelLoader                         : model loaded in 12.3 s
2031-01-02T03:04:05.000Z  INFO 1 --- [           main] o.s.b.w.embedded.tomcat.TomcatWebServer  : Tomcat started on port 8080 (http) with context path '/'
2031-01-02T03:04:09.000Z ERROR 1 --- [nio-8080-exec-1] o.a.c.c.C.[.[.[/].[dispatcherServlet]    : Servlet.service() for servlet [dispatcherServlet] in context with path [] threw exception [Request processing failed: java.lang.IllegalStateException: no prompt] with root cause

java.lang.IllegalStateException: no prompt
	at demo.Controller.generate(Controller.java:41)
	at java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103)
2031-01-02T03:04:10.000Z  INFO 1 --- [nio-8080-exec-2] demo.Controller                          : generated 64 tokens in 0.4s`)
		a := oneAlarm(t, alarms)
		if a.Fatal || a.FirstSeq != 3 || a.LastSeq != 7 || a.HeadlineSeq != 5 {
			t.Errorf("alarm %+v, want one survived alarm of lines 3-7 headed by the exception (line 5)", a)
		}
		if st.Summary().Ready == nil {
			t.Error("not ready")
		}
	})
	t.Run("GRPCExceptionCallingApplicationQuotingAnOOM", func(t *testing.T) {
		_, alarms := feedSettledState("", `2031-01-02 03:04:05,000 - INFO - Server started, listening on 50051
ERROR:grpc._server:Exception calling application: CUDA out of memory. Tried to allocate 1.50 GiB
Traceback (most recent call last):
  File "/srv/grpc/_server.py", line 552, in _call_behavior
    response_or_iterator = behavior(argument, context)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB
2031-01-02 03:04:07,000 - INFO - Generate done in 0.4s`)
		if a := oneAlarm(t, alarms); a.Fatal || a.Kind != classify.AlarmOOM {
			t.Errorf("alarm %+v, want one survived OOM", a)
		}
	})
	t.Run("InferenceRequestFailedThenTokensGenerated", func(t *testing.T) {
		st, alarms := feedSettledState("", `I0102 03:04:05.000000 1 http_server.cc:4704] "Started HTTPService at 0.0.0.0:8000"
2031-01-02 03:04:09,000 - ERROR - demo.proxy: Failed to process inference request due to error ValueError('empty prompt')
Traceback (most recent call last):
  File "/srv/demo/proxy.py", line 31, in handle
    raise ValueError("empty prompt")
ValueError: empty prompt
2031-01-02 03:04:10,000 - INFO - server: generated 128 tokens in 3.18s for batch of 2`)
		if a := oneAlarm(t, alarms); a.Fatal {
			t.Errorf("alarm %+v, want it survived", a)
		}
		if st.Summary().Ready == nil {
			t.Error("not ready")
		}
	})
}

// A request's body logged as a JSON document over lines of its own is user
// data up to its closing bracket; the next record counts again.
func TestPayloadDocumentIsData(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `[2031-01-02 03:04:05][INFO] Server started at http://127.0.0.1:1234
[2031-01-02 03:04:09][INFO] Received POST request to /v1/chat/completions with body: {
  "messages": [
    {
      "role": "user",
      "content": "why does it print torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB?"
    }
  ]
}
[2031-01-02 03:04:10][ERROR] CUDA error: an illegal memory access was encountered`)
	if a := oneAlarm(t, alarms); a.HeadlineSeq != 10 || !a.Fatal {
		t.Errorf("alarm %+v, want only the record after the document (line 10), fatal", a)
	}
	// A traceback in the first column ends a document that never closed.
	_, alarms = feedSettledState("", `[2031-01-02 03:04:09][INFO] Received POST request to /v1/completions with body: {
  "prompt": "hello",
Traceback (most recent call last):
  File "/srv/app/serve.py", line 9, in handle
    out = model(x)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB`)
	if a := oneAlarm(t, alarms); a.HeadlineSeq != 6 {
		t.Errorf("alarm %+v, want the traceback after the unclosed document (headline line 6)", a)
	}
}

// Readiness said by a server that is up but not ready is taken back by its
// own 503 answers and given by its first 2xx one; a Common Log Format line
// of any path answered 2xx is such an answer.
func TestReadinessByAnswers(t *testing.T) {
	t.Parallel()
	t.Run("UnavailableThenAnswered", func(t *testing.T) {
		st, _ := feedSettledState("", `INFO:     Application startup complete.
INFO:     Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)
INFO:     10.0.0.1:40000 - "GET /v1/models/demo HTTP/1.1" 503 Service Unavailable
2031-01-02 03:04:09,000 INFO demo: model loaded in 31.2 s
INFO:     10.0.0.1:40002 - "GET /healthz HTTP/1.1" 200 OK`)
		if r := st.Summary().Ready; r == nil || r.Seq != 5 {
			t.Errorf("ready %+v, want line 5 (the first probe answered)", r)
		}
	})
	t.Run("UnavailableAndNeverAnswered", func(t *testing.T) {
		st, _ := feedSettledState("", `INFO:     Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)
2031-01-02 03:04:05,000 method=GET path=/readyz status=503 took=1ms
2031-01-02 03:04:15,000 method=GET path=/readyz status=503 took=1ms`)
		if r := st.Summary().Ready; r != nil {
			t.Errorf("ready %+v, want none: every probe was answered 503", r)
		}
	})
	t.Run("UnavailableAfterADeathKeepsTheReadiness", func(t *testing.T) {
		st, _ := feedSettledState("", `INFO:     Application startup complete.
INFO:     Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)
RuntimeError: CUDA error: an illegal memory access was encountered
INFO:     10.0.0.1:40000 - "GET /health HTTP/1.1" 503 Service Unavailable`)
		if r := st.Summary().Ready; r == nil || r.Seq != 2 {
			t.Errorf("ready %+v, want line 2 (uvicorn bound): the 503 follows the death", r)
		}
	})
	t.Run("CommonLogFormatProbe", func(t *testing.T) {
		st, _ := feedSettledState("", `2031-01-02 03:04:05,000 I [118] demo.user_script - init completed
2031-01-02 03:04:06,000 I [118] gunicorn.access - 10.0.0.1 - - [02/Jan/2031:03:04:06 +0000] "GET / HTTP/1.0" 200 7 "-" "kube-probe/1.29"`)
		if r := st.Summary().Ready; r == nil || r.Seq != 2 {
			t.Errorf("ready %+v, want line 2", r)
		}
	})
}

// Reports that name an error but are none, and a systemd report that is
// the cause of what follows.
func TestBlindSetLookAlikes(t *testing.T) {
	t.Parallel()
	t.Run("NetworkPluginInitializationFailedWarning", func(t *testing.T) {
		_, alarms := feedSettledState("", `2031-Jan-02 03:04:05.0419 88:88 [0] nccl_net_ofi_create_plugin:311 CCOM WARN NET/OFI aws-ofi-nccl initialization failed
2031-01-02T03:04:06.000000Z  INFO text_generation_launcher: Waiting for shard to be ready... rank=0`)
		if len(alarms) != 0 {
			t.Errorf("alarms %+v, want none", alarms)
		}
	})
	t.Run("WebUIScriptLoadErrorIsSkipped", func(t *testing.T) {
		_, alarms := feedSettledState("", `*** Error loading script: demo_tagger.py
    Traceback (most recent call last):
      File "/srv/webui/modules/scripts.py", line 525, in load_scripts
        script_module = script_loading.load_module(scriptfile.path)
    ModuleNotFoundError: No module named 'onnxruntime'

---
Running on local URL:  http://127.0.0.1:7860`)
		if len(alarms) != 0 {
			t.Errorf("alarms %+v, want none: the extension was skipped", alarms)
		}
	})
	t.Run("SystemdOOMKillHeadsWhatFollows", func(t *testing.T) {
		_, alarms := feedSettledState("", `Jan 02 03:04:05 box systemd[1]: demo.service: A process of this unit has been killed by the OOM killer.
Jan 02 03:04:05 box systemd[1]: demo.service: Killing process 4188 (python3) with signal SIGKILL.
Jan 02 03:04:05 box systemd[1]: demo.service: Main process exited, code=killed, status=9/KILL
Jan 02 03:04:05 box systemd[1]: demo.service: Failed with result 'oom-kill'.`)
		if a := oneAlarm(t, alarms); !a.Fatal || a.HeadlineSeq != 1 || a.Kind != classify.AlarmOOM || a.LastSeq != 4 {
			t.Errorf("alarm %+v, want one fatal OOM of lines 1-4 headed by line 1", a)
		}
	})
	t.Run("JSONRecordExcInfoWithAMultiLineMessage", func(t *testing.T) {
		_, alarms := feedSettledState("", strings.Join([]string{
			`{"asctime": "2031-01-02 03:04:05,000", "levelname": "INFO", "message": "Executing model.load()..."}`,
			`{"asctime": "2031-01-02 03:04:09,000", "levelname": "ERROR", "message": "Exception while loading model", "exc_info": "Traceback (most recent call last):\n  File \"/app/model.py\", line 9, in load\n    hub.get(repo)\nhub.errors.GatedRepoError: 403 Client Error.\n\nCannot access gated repo.\nAsk for access on the hub."}`,
		}, "\n"))
		if a := oneAlarm(t, alarms); !a.Fatal || !strings.Contains(a.Headline, "GatedRepoError: 403 Client Error.") {
			t.Errorf("alarm %+v, want one fatal alarm headed by the exception line", a)
		}
	})
}

// An operator's stop, in the words of the wrapper that carried it out, is
// never a crash, not even for a moment: each log is fed line by line.
func TestOperatorStopsNeverShowCrashed(t *testing.T) {
	t.Parallel()
	for name, log := range map[string]string{
		"ComposeExit143": `web-1  | 2031-01-02 03:04:05,000 - demo - INFO - loading shard 2/4
web-1 exited with code 143`,
		"ShellExit130": `2031-01-02 03:04:05,000 - demo - INFO - loading shard 2/4
demo-serve exited with status 130`,
		"SystemdStopTimedOut": `Jan 02 03:04:05 box systemd[1]: Stopping demo.service - Demo model server...
Jan 02 03:05:35 box systemd[1]: demo.service: State 'stop-sigterm' timed out. Killing.
Jan 02 03:05:35 box systemd[1]: demo.service: Killing process 4242 (python3) with signal SIGKILL.
Jan 02 03:05:35 box systemd[1]: demo.service: Main process exited, code=killed, status=9/KILL
Jan 02 03:05:35 box systemd[1]: demo.service: Failed with result 'timeout'.`,
		"SystemdTerm": `Jan 02 03:04:05 box demo[4242]: loading weights
Jan 02 03:04:06 box systemd[1]: demo.service: Main process exited, code=killed, status=15/TERM`,
	} {
		st := classify.New("")
		for i, l := range strings.Split(log, "\n") {
			for _, a := range st.Feed([]classify.Line{{Seq: int64(i + 1), Text: l}}).Alarms {
				if a.Fatal && !a.Withdrawn {
					t.Errorf("%s: line %d: fatal alarm %+v", name, i+1, a)
				}
			}
		}
		for _, a := range st.Settle(classify.SettleStreamEnd).Alarms {
			if a.Fatal && !a.Withdrawn {
				t.Errorf("%s: at the end: fatal alarm %+v", name, a)
			}
		}
	}
}

// llama.cpp's rpc-server: its banner comes before it binds, a client
// accepted is readiness, and a client's buffer it cannot allocate is that
// client's failure when it accepts the next one; a socket it cannot create
// is its death, though it exits 0. (Two clients served after a failure say
// the server outlived it, as for any serving evidence: verdict.go.)
func TestRPCServer(t *testing.T) {
	t.Parallel()
	t.Run("ReadyAndAClientsAllocationSurvived", func(t *testing.T) {
		st, alarms := feedSettledState("", `Starting RPC server v3.6.0
  endpoint       : 0.0.0.0:50052
Devices:
  CUDA0: NVIDIA RTX A4000 (16108 MiB, 15733 MiB free)
Accepted client connection
ggml_backend_cuda_buffer_type_alloc_buffer: allocating 9216.00 MiB on device 0: cudaMalloc failed: out of memory
Client connection closed
Accepted client connection
Client connection closed
Accepted client connection`)
		if r := st.Summary().Ready; r == nil || r.Seq != 5 {
			t.Errorf("ready %+v, want line 5", r)
		}
		if a := oneAlarm(t, alarms); a.Fatal || a.HeadlineSeq != 6 {
			t.Errorf("alarm %+v, want line 6 survived", a)
		}
	})
	t.Run("CannotCreateItsSocket", func(t *testing.T) {
		st, alarms := feedSettledState("", `Failed to create server socket
Starting RPC server v3.6.0
  endpoint       : 0.0.0.0:50052`)
		if a := oneAlarm(t, alarms); !a.Fatal || a.HeadlineSeq != 1 {
			t.Errorf("alarm %+v, want line 1 fatal", a)
		}
		if r := st.Summary().Ready; r != nil {
			t.Errorf("ready %+v", r)
		}
	})
}

// A traceback through a web server's request dispatch (uvicorn's run_asgi,
// Flask's full_dispatch_request) is one request's, even with its intro cut
// off; one through the server's startup is not.
func TestRequestDispatchFrames(t *testing.T) {
	t.Parallel()
	t.Run("ASGIRequestWithoutItsIntro", func(t *testing.T) {
		_, alarms := feedSettledState("", `Traceback (most recent call last):
  File "/srv/venv/lib/python3.11/site-packages/uvicorn/protocols/http/httptools_impl.py", line 409, in run_asgi
    result = await app(  # type: ignore[func-returns-value]
  File "/srv/app/api.py", line 40, in generate
    raise ValueError("prompt is empty")
ValueError: prompt is empty`)
		if a := oneAlarm(t, alarms); a.Fatal {
			t.Errorf("alarm %+v, want it survived", a)
		}
	})
	t.Run("StartupThroughLifespan", func(t *testing.T) {
		_, alarms := feedSettledState("", `Traceback (most recent call last):
  File "/srv/venv/lib/python3.11/site-packages/starlette/routing.py", line 693, in lifespan
    async with self.lifespan_context(app) as maybe_state:
  File "/srv/app/api.py", line 12, in lifespan
    model = load("/models/demo")
FileNotFoundError: [Errno 2] No such file or directory: '/models/demo'`)
		if a := oneAlarm(t, alarms); !a.Fatal {
			t.Errorf("alarm %+v, want it fatal", a)
		}
	})
	t.Run("ACUDAErrorInARequestStillKills", func(t *testing.T) {
		_, alarms := feedSettledState("", `Traceback (most recent call last):
  File "/srv/venv/lib/python3.11/site-packages/uvicorn/protocols/http/httptools_impl.py", line 409, in run_asgi
    result = await app(  # type: ignore[func-returns-value]
  File "/srv/app/api.py", line 40, in generate
    out = model(x)
RuntimeError: CUDA error: an illegal memory access was encountered`)
		if a := oneAlarm(t, alarms); !a.Fatal {
			t.Errorf("alarm %+v, want it fatal", a)
		}
	})
}

// Node.js: a stack a ready server's logger prints is one request's; Node's
// own uncaught report, which ends with its version, is the process's death.
func TestNodeStacks(t *testing.T) {
	t.Parallel()
	t.Run("LoggedWhileServing", func(t *testing.T) {
		_, alarms := feedSettledState("", `Server listening on port 3000
GET /health 200 0.412 ms - 2
2031-01-02 03:04:05 [ERROR]: [server]: Error: 401 invalid key
Error: 401 invalid key
    at APIError.generate (/srv/node_modules/demo/error.js:45:20)
    at async /srv/app/routes.js:12:9
2031-01-02 03:04:06 [INFO]: POST /api/v1/prediction 200`)
		if a := oneAlarm(t, alarms); a.Fatal {
			t.Errorf("alarm %+v, want it survived", a)
		}
	})
	t.Run("UncaughtAtStartup", func(t *testing.T) {
		_, alarms := feedSettledState("", `/srv/app/server.js:42
    throw new Error('model file not found');
    ^

Error: model file not found
    at loadModel (/srv/app/server.js:42:11)
    at Object.<anonymous> (/srv/app/server.js:80:1)

Node.js v20.11.0`)
		if a := oneAlarm(t, alarms); !a.Fatal || a.HeadlineSeq != 5 {
			t.Errorf("alarm %+v, want one fatal alarm headed by line 5", a)
		}
	})
}

// gin's Recovery middleware: the handler's panic is one request's, its
// dump one event headed by the panic value.
func TestGinRecovery(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `[GIN] 2031/01/02 - 03:04:05 | 200 |     512.307µs |       127.0.0.1 | GET      "/api/status"
2031/01/02 03:04:09 [Recovery] 2031/01/02 - 03:04:09 panic recovered:
runtime error: invalid memory address or nil pointer dereference
/usr/local/go/src/runtime/panic.go:261 (0x44ed38)
	panicmem: panic(memoryError)
/src/relay/main.go:58 (0xc3a5d1)
	StreamHandler: text += resp.Choices[0].Delta.Content

[GIN] 2031/01/02 - 03:04:09 | 500 |  3.118207466s |     10.0.0.14 | POST     "/v1/chat/completions"`)
	if a := oneAlarm(t, alarms); a.Fatal || a.FirstSeq != 2 || a.HeadlineSeq != 3 {
		t.Errorf("alarm %+v, want one survived alarm from line 2 headed by line 3", a)
	}
	if r := st.Summary().Ready; r == nil || r.Seq != 1 {
		t.Errorf("ready %+v, want line 1 (a status probe answered)", r)
	}
}
