package classify_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"launchwatch/internal/classify"
)

// A sixth red team's finds: FastChat's stderr traceback is one alarm (its
// logger name no longer hides the frames' indentation); LocalAI's, Ray
// Serve's, TorchServe's, OpenVINO Model Server's and RunPod's readiness lines; a
// TorchServe handler's failure (log4j's thread and logger read as prefix)
// is one request's; a request LocalAI answered 500 while later ones
// succeed (key=value access lines, two of them as verdict.go asks) is no
// crash.
func TestSixthRedTeamFinds(t *testing.T) {
	t.Parallel()
	t.Run("FastChatStderrTraceback", func(t *testing.T) {
		st, alarms := feedSettledState("", `2031-01-02 03:04:05 | INFO | model_worker | Loading the model ['acme-13b'] on worker 5f0c ...
2031-01-02 03:04:09 | ERROR | stderr | 
2031-01-02 03:04:09 | ERROR | stderr | Traceback (most recent call last):
2031-01-02 03:04:09 | ERROR | stderr |   File "/srv/fastchat/serve/model_worker.py", line 40, in <module>
2031-01-02 03:04:09 | ERROR | stderr |     worker = create_model_worker()
2031-01-02 03:04:09 | ERROR | stderr |   File "/srv/torch/nn/modules/module.py", line 900, in _apply
2031-01-02 03:04:09 | ERROR | stderr |     param_applied = fn(param)
2031-01-02 03:04:09 | ERROR | stderr | torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB.`)
		if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].HeadlineSeq != 8 || alarms[0].FirstSeq > 3 || alarms[0].LastSeq != 8 {
			t.Errorf("%d alarms %+v, want one fatal alarm of the traceback (lines 3-8) headed by line 8", len(alarms), alarms)
		}
		if st.Summary().Ready != nil {
			t.Errorf("ready %+v", st.Summary().Ready)
		}
	})
	t.Run("LocalAIReadyAndARequestsFailure", func(t *testing.T) {
		st, alarms := feedSettledState("", `3:04PM INF Starting LocalAI using 8 threads, with models path: /models
3:04PM INF LocalAI API is listening! Please connect to the endpoint for API documentation. endpoint=http://0.0.0.0:8080
3:05PM DBG GRPC(acme-8b-127.0.0.1:40001): stderr llama_model_load: error loading model: tensor 'blk.3.attn_q.weight' data is not within the file bounds
3:05PM DBG GRPC(acme-8b-127.0.0.1:40001): stderr llama_model_load_from_file_impl: failed to load model
3:05PM ERR Server error error="could not load model: rpc error: code = Canceled desc = " ip=10.0.0.7 latency=3.2s method=POST status=500 url=/v1/chat/completions
3:05PM INF Success ip=10.0.0.7 latency=210ms method=POST status=200 url=/v1/embeddings
3:05PM INF Success ip=10.0.0.9 latency=1.2ms method=GET status=200 url=/readyz`)
		if st.Summary().Ready == nil || st.Summary().Ready.Seq != 2 {
			t.Errorf("ready %+v, want line 2", st.Summary().Ready)
		}
		for _, a := range alarms {
			if a.Fatal {
				t.Errorf("fatal alarm %+v: the server answered the next request", a)
			}
		}
	})
	t.Run("TorchServeReadyAndAHandlersFailure", func(t *testing.T) {
		st, alarms := feedSettledState("", `2031-01-02T03:04:05,100 [INFO ] main org.pytorch.serve.ModelServer - Model server started.
2031-01-02T03:04:25,200 [DEBUG] W-9000-acme_1.0 org.pytorch.serve.wlm.WorkerThread - W-9000-acme_1.0 State change WORKER_STARTED -> WORKER_MODEL_LOADED
2031-01-02T03:05:00,300 [INFO ] W-9000-acme_1.0-stdout MODEL_LOG - Invoking custom service failed.
2031-01-02T03:05:00,300 [INFO ] W-9000-acme_1.0-stdout MODEL_LOG - Traceback (most recent call last):
2031-01-02T03:05:00,300 [INFO ] W-9000-acme_1.0-stdout MODEL_LOG -   File "/srv/ts/service.py", line 130, in predict
2031-01-02T03:05:00,300 [INFO ] W-9000-acme_1.0-stdout MODEL_LOG -     ret = self._entry_point(input_batch, self.context)
2031-01-02T03:05:00,301 [INFO ] W-9000-acme_1.0-stdout MODEL_LOG - KeyError: 'text'
2031-01-02T03:05:00,302 [INFO ] W-9000-acme_1.0 ACCESS_LOG - /10.0.0.7:40000 "POST /predictions/acme HTTP/1.1" 503 3`)
		if st.Summary().Ready == nil || st.Summary().Ready.Seq != 2 {
			t.Errorf("ready %+v, want line 2", st.Summary().Ready)
		}
		if len(alarms) != 1 || alarms[0].Fatal || alarms[0].HeadlineSeq != 7 {
			t.Errorf("%d alarms %+v, want one non-fatal alarm headed by the KeyError", len(alarms), alarms)
		}
	})
	t.Run("OpenVINOModelServerReady", func(t *testing.T) {
		st, _ := feedSettledState("", `[2031-01-02 03:04:05.100][1][serving][info][grpcservermodule.cpp:180] GRPCServerModule started
[2031-01-02 03:04:35.200][1][serving][info][servablemanagermodule.cpp:55] ServableManagerModule started`)
		if st.Summary().Ready == nil || st.Summary().Ready.Seq != 2 {
			t.Errorf("ready %+v, want line 2", st.Summary().Ready)
		}
	})
	t.Run("RunPodWorkerReady", func(t *testing.T) {
		st, _ := feedSettledState("", `INFO 01-02 03:04:05 [engine.py:80] Engine initialized in 41.20 s
--- Starting Serverless Worker |  Version 1.7.0 ---`)
		if st.Summary().Ready == nil || st.Summary().Ready.Seq != 2 {
			t.Errorf("ready %+v, want line 2", st.Summary().Ready)
		}
	})
	t.Run("RayServeReady", func(t *testing.T) {
		st, _ := feedSettledState("", `(ServeController pid=4300) INFO 2031-01-02 03:04:05,100 controller 4300 -- Deploying new version of Deployment(name='LLMServer', app='chat') (initial target replicas: 1).
(ServeController pid=4300) INFO 2031-01-02 03:05:05,100 controller 4300 -- Deployed app 'chat' successfully.
INFO 2031-01-02 03:05:05,300 serve 4100 -- Application 'chat' is ready at http://127.0.0.1:8000/.`)
		if st.Summary().Ready == nil || st.Summary().Ready.Seq != 2 {
			t.Errorf("ready %+v, want line 2", st.Summary().Ready)
		}
	})
}

// A runtime's own signal handler (TVM's, under MLC-LLM) prints a banner and
// its stack: one fatal alarm headed by the banner, the frames its lines.
func TestSignalHandlerBannerAndItsStack(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `[10:00:01] /src/serve/engine.cc:140: Loading model weights
!!!!!!! TVM encountered a Segfault !!!!!!!
Stack trace:
  0: tvm::runtime::CUDADeviceAPI::AllocDataSpace(DLDevice, unsigned long)
  1: heron::serve::EngineImpl::CreateCache(long)
  2: start_thread
        at ./nptl/pthread_create.c:447
  3: 0xffffffffffffffff`)
	if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].HeadlineSeq != 2 || alarms[0].FirstSeq != 2 || alarms[0].LastSeq != 8 {
		t.Errorf("%d alarms %+v, want one fatal alarm of lines 2-8 headed by the banner", len(alarms), alarms)
	}
}

// A controller's ERROR line right before another process's traceback (Ray
// Serve's "Failed to update the deployments", then the driver's
// RuntimeError) is the controller's report of the failure: an alarm of its
// own, not a warning.
func TestReporterBeforeAnotherProcesssTraceback(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `(ServeController pid=4410) INFO 2031-01-02 03:04:05,100 controller 4410 -- Deploying new version of Deployment(name='Acme').
(ServeController pid=4410) ERROR 2031-01-02 03:04:09,100 controller 4410 -- Failed to update the deployments ['Acme'].
Traceback (most recent call last):
  File "/srv/app/serve_app.py", line 20, in <module>
    serve.run(app, blocking=True)
RuntimeError: Deploying application default failed: the deployment Acme failed to start.`)
	if len(alarms) != 2 || alarms[0].HeadlineSeq != 2 || alarms[1].HeadlineSeq != 6 {
		t.Errorf("%d alarms %+v, want the controller's line 2 and the traceback headed by line 6", len(alarms), alarms)
	}
}

// A serverless worker's SDK reports a job handler's exception as a JSON
// record whose message is itself a JSON document with the traceback in a
// field, and the record names the job's request: one non-fatal alarm
// headed by the exception, after which the worker takes the next job.
func TestRequestRecordWithNestedTraceback(t *testing.T) {
	t.Parallel()
	rec := func(req, msg, level string) string {
		b, _ := json.Marshal(map[string]any{"requestId": req, "message": msg, "level": level})
		return string(b)
	}
	report, _ := json.Marshal(map[string]any{
		"error_type":      "<class 'KeyError'>",
		"error_traceback": "Traceback (most recent call last):\n  File \"/srv/handler.py\", line 9, in handler\n    prompt = job[\"input\"][\"prompt\"]\nKeyError: 'prompt'\n",
	})
	log := strings.Join([]string{
		"--- Starting Serverless Worker |  Version 1.7.9 ---",
		rec("job-1", "Started.", "INFO"),
		rec("job-1", string(report), "ERROR"),
		rec("job-1", "Finished.", "INFO"),
		rec("job-2", "Started.", "INFO"),
	}, "\n")
	st, alarms := feedSettledState("", log)
	if st.Summary().Ready == nil {
		t.Fatalf("not ready")
	}
	if len(alarms) != 1 || alarms[0].Fatal || alarms[0].HeadlineSeq != 3 || !strings.HasPrefix(alarms[0].Headline, "KeyError: 'prompt'") {
		t.Errorf("%d alarms %+v, want one non-fatal alarm at line 3 headed by the KeyError", len(alarms), alarms)
	}
}

// A wrapper restarts a server that fails the same way: the failure's
// headline printed again is that failure again, an alarm of its own, even
// where nothing after it (the stream ends) would make a line alone one.
func TestRepeatedFatalHeadlineIsTheFailureAgain(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `heron-serve 2.1 starting
Model file not readable: /models/heron-13b.gguf (permission denied)
[entrypoint] heron-serve exited with status 2, restarting in 5s (attempt 1/3)
heron-serve 2.1 starting
Model file not readable: /models/heron-13b.gguf (permission denied)`)
	if len(alarms) != 2 || !alarms[1].Fatal || alarms[1].HeadlineSeq != 5 || alarms[0].HeadlineSeq != 2 {
		t.Errorf("%d alarms %+v, want the failure at line 2 and its repeat at line 5", len(alarms), alarms)
	}
}

// kubectl describe pasted under a log: a container's last state with a
// non-zero exit code is its death, and the Killing event that says a
// liveness probe failed heads the probe failures before it.
func TestDescribedPodDeaths(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `    State:          Running
    Last State:     Terminated
      Reason:       Error
      Exit Code:    137
    Ready:          False
Events:
  Type     Reason     Age                  From     Message
  ----     ------     ----                 ----     -------
  Warning  Unhealthy  40s (x3 over 60s)    kubelet  Liveness probe failed: Get "http://10.1.2.3:8000/health": connect: connection refused
  Normal   Killing    40s                  kubelet  Container heron failed liveness probe, will be restarted
  Normal   Started    10s (x2 over 5m)     kubelet  Started container heron`)
	if len(alarms) != 2 || alarms[0].HeadlineSeq != 4 || alarms[1].HeadlineSeq != 10 || alarms[1].FirstSeq != 9 {
		t.Errorf("%d alarms %+v, want the exit code (line 4) and the probe failures headed by the Killing event (line 10)", len(alarms), alarms)
	}
	_, alarms = feedSettledState("", `    Last State:     Terminated
      Reason:       Completed
      Exit Code:    0`)
	if len(alarms) != 0 {
		t.Errorf("a container that completed: %+v", alarms)
	}
}

// An ERROR line whose details follow on lines of their own (a heading in
// capitals, list items), and then the process ends: one fatal alarm of the
// line and its details when the stream ends.
func TestErrorDetailsThenTheEnd(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `INFO 2031-03-04 15:00:04.118 profile.py:360] Looking for a runnable profile
ERROR 2031-03-04 15:00:04.122 utils.py:21] Could not find a profile that is runnable on this hardware. See the system information below.
SYSTEM INFO
- Free GPUs:
  -  (0) NVIDIA L40S
- Non-free GPUs:
  -  (1) NVIDIA L40S [current utilization: 91%]`)
	if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].FirstSeq != 2 || alarms[0].LastSeq != 7 || alarms[0].HeadlineSeq != 2 {
		t.Errorf("%d alarms %+v, want one fatal alarm of lines 2-7 headed by the ERROR line", len(alarms), alarms)
	}
}

// A lower-case "error: ..." that reads as last words, after which the
// server takes and answers requests, was one request's handled failure:
// no alarm, as a client's rejected request is none.
func TestLastWordsTheServerServesOnAfterAreNoAlarm(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `audio server listening at http://0.0.0.0:8080
Received request: memo.m4a
error: failed to read audio data
Received request: standup.wav
Received request: beep.wav`)
	if st.Summary().Ready == nil || len(alarms) != 0 {
		t.Errorf("ready %v, alarms %+v: want ready and no alarm", st.Summary().Ready, alarms)
	}
}

// docker compose's report that a service's container ended is the
// runtime's report of the death, an alarm of its own linked to the failure
// the process printed, not a line of that failure.
func TestContainerExitIsItsOwnConsequence(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `Launching heron with arguments: --port 7860
./run.sh: line 12:    87 Segmentation fault      (core dumped) python -u launch.py
heron-1 exited with code 139`)
	if len(alarms) != 2 || alarms[0].HeadlineSeq != 2 || alarms[1].HeadlineSeq != 3 || alarms[1].Cause != alarms[0].ID {
		t.Errorf("%d alarms %+v, want the segfault and the container's exit linked to it", len(alarms), alarms)
	}
}

// A wrapper script's report that the program it ran exited, in its own
// words and prefix, is that consequence too: after a Go-style "fatal
// error:" line it is not the rest of the message.
func TestWrapperExitReportAfterFatalError(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `[boot] 2031-05-06T07:08:09Z starting heron on 0.0.0.0:9000
fatal error: the accelerator requested with --device was not found
[boot] 2031-05-06T07:08:10Z heron exited with status 1`)
	if len(alarms) != 2 || alarms[0].HeadlineSeq != 2 || alarms[1].HeadlineSeq != 3 || alarms[1].Cause != alarms[0].ID {
		t.Errorf("%d alarms %+v, want the fatal error and the wrapper's exit report linked to it", len(alarms), alarms)
	}
}

// A Go program's ERROR record right before its runtime's panic is a failure
// of its own (a logger cannot introduce the runtime's dump); with a blank
// line between them it is decided as any ERROR line (here: the panic
// explains the death, and the handled error stays a warning). A fallback
// that the line says is not supported is no fallback.
func TestErrorRecordRightBeforeAPanic(t *testing.T) {
	t.Parallel()
	const record = `{"level":"error","ts":1800000000.5,"logger":"setup","caller":"scorer/cache.go:104","msg":"index config is not set, falling back to defaults is not supported for this backend","stacktrace":"main.setup\n\t/src/main.go:40"}`
	const dump = `panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x23c5f1e]

goroutine 1 [running]:
main.setup(0x0)
	/src/main.go:44 +0x3e
main.main()
	/src/main.go:12 +0x25`
	_, alarms := feedSettledState("", record+"\n"+dump)
	if len(alarms) != 2 || alarms[0].HeadlineSeq != 1 || alarms[1].HeadlineSeq != 2 || !alarms[0].Fatal || !alarms[1].Fatal {
		t.Errorf("%d alarms %+v, want the ERROR record and the panic, both fatal", len(alarms), alarms)
	}
	_, alarms = feedSettledState("", `{"level":"error","ts":1800000000.5,"msg":"cannot read notes.yaml: yaml: line 3: mapping values are not allowed"}`+"\n\n"+dump)
	if len(alarms) != 1 || alarms[0].HeadlineSeq != 3 {
		t.Errorf("%d alarms %+v, want the panic alone", len(alarms), alarms)
	}
}

// A supervisor's report, in its own logger's format, that the child which
// just printed its failure exited is a consequence alarm of its own linked
// to that failure, not a line of the child's event; a bare shell report
// without a prefix still ends the child's event.
func TestSupervisorReportInItsOwnFormat(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `0.00.052.118 I loader: loaded meta data from /models/wren.gguf
0.00.288.512 E main: failed to load model '/models/wren.gguf'
2031-04-21T10:15:03+00:00 - acme.worker.backends.box - ERROR - Failed to run the box server: exit status 1`)
	if len(alarms) != 2 || alarms[0].HeadlineSeq != 2 || alarms[1].HeadlineSeq != 3 || alarms[1].Cause != alarms[0].ID {
		t.Errorf("%d alarms %+v, want the child's failure and the supervisor's report linked to it", len(alarms), alarms)
	}
}

// An application's banner with the address it will serve (framed, no
// listening phrase) waits: a bind failure right after it means the server
// never listened, and the server's own listening line is readiness at that
// line. A runner's death that the server reports and outlives is an
// error, not a crash.
func TestBannerBeforeBindAndRunnerDeath(t *testing.T) {
	t.Parallel()
	banner := `[ 09:14:02.1000AM | INFO    ] Starting API
╔══════════════════════════════════╗
║  Dashboard & API Ready           ║
║  http://localhost:52415          ║
╚══════════════════════════════════╝
`
	st, alarms := feedSettledState("", banner+`[ 09:14:02.2000AM | CRITICAL] heron terminated due to unhandled exception
Traceback (most recent call last):
  File "/srv/heron/api.py", line 40, in run
    await serve(app, config)
OSError: [Errno 48] Address already in use`)
	if st.Summary().Ready != nil || len(alarms) != 1 || !alarms[0].Fatal {
		t.Errorf("ready %v, alarms %+v: want never ready and one fatal alarm", st.Summary().Ready, alarms)
	}
	st, alarms = feedSettledState("", banner+`[ 09:14:03.0566AM | INFO    ] Running on http://0.0.0.0:52415 (CTRL + C to quit)
[ 09:16:41.7702AM | INFO    ] Starting task generate(task_id='a81f')
[ 09:17:55.6410AM | INFO    ] Runner exited with exit code -9
[ 09:17:55.6423AM | ERROR   ] Runner terminated with signal=9 (Killed: 9)
RuntimeError: Runner found to be dead
[ 09:17:55.6511AM | INFO    ] Runner supervisor shutting down
[ 09:19:10.2288AM | INFO    ] Starting task generate(task_id='5c0e')`)
	if r := st.Summary().Ready; r == nil || r.Seq != 6 {
		t.Errorf("ready %+v, want ready at the listening line 6", r)
	}
	if len(alarms) != 1 || alarms[0].Fatal || alarms[0].HeadlineSeq != 9 {
		t.Errorf("alarms %+v, want one non-fatal alarm headed by the runner's death", alarms)
	}
	// A loaded server that logs on without a failure after its banner
	// serves, though it never says so in other words.
	chatty := "[ 09:14:01.0000AM | INFO    ] model loaded in 12.0 s\n" + banner
	for i := range 16 {
		chatty += fmt.Sprintf("[ 09:15:%02d.0000AM | INFO    ] node heartbeat %d\n", i, i)
	}
	st, _ = feedSettledState("", strings.TrimSuffix(chatty, "\n"))
	if r := st.Summary().Ready; r == nil || r.Seq != 5 {
		t.Errorf("ready %+v, want ready at the banner's address line 5", r)
	}
}

// A launcher's report that its child died introduces no traceback: the
// client's traceback on the next line is an alarm of its own, headed by
// its final exception line.
func TestDeathReportThenAnotherProcesssTraceback(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `[2031-03-11 14:20:35,772] [ERROR] [launch.py:325:sigkill_handler] ['python', '-m', 'heron.server'] exits with return code = -11
Traceback (most recent call last):
  File "/home/dana/serve.py", line 3, in <module>
    client = heron.serve("acme-7b")
RuntimeError: server crashed for some reason, unable to proceed`)
	if len(alarms) != 2 || alarms[0].HeadlineSeq != 1 || alarms[1].HeadlineSeq != 5 {
		t.Errorf("%d alarms %+v, want the death report and the client's traceback headed by its RuntimeError", len(alarms), alarms)
	}
}

// A pre-fork server's master listens before its workers load the app: its
// "Listening at:" is followed by the workers booting, which cancels it; a
// worker killed for a timeout that the master replaces is a survived
// error, headed by the timeout; a worker that cannot boot halts it.
func TestPreforkMasterAndItsWorkers(t *testing.T) {
	t.Parallel()
	head := `[2031-06-02 13:00:04 +0000] [1] [INFO] Starting gunicorn 23.0.0
[2031-06-02 13:00:04 +0000] [1] [INFO] Listening at: http://0.0.0.0:8000 (1)
[2031-06-02 13:00:04 +0000] [1] [INFO] Using worker: uvicorn.workers.UvicornWorker
[2031-06-02 13:00:04 +0000] [57] [INFO] Booting worker with pid: 57
`
	st, alarms := feedSettledState("", head+`[2031-06-02 13:00:09 +0000] [57] [ERROR] Exception in worker process
Traceback (most recent call last):
  File "/srv/app.py", line 12, in <module>
    model = load()
MemoryError
[2031-06-02 13:00:09 +0000] [57] [INFO] Worker exiting (pid: 57)
[2031-06-02 13:00:10 +0000] [1] [ERROR] Worker (pid:57) exited with code 3
[2031-06-02 13:00:10 +0000] [1] [ERROR] Shutting down: Master
[2031-06-02 13:00:10 +0000] [1] [ERROR] Reason: Worker failed to boot.`)
	if st.Summary().Ready != nil || len(alarms) == 0 || !alarms[len(alarms)-1].Fatal || alarms[len(alarms)-1].HeadlineSeq != 13 {
		t.Errorf("ready %v, alarms %+v: want never ready, the last alarm fatal and headed by the halt's reason", st.Summary().Ready, alarms)
	}
	st, alarms = feedSettledState("", head+`[2031-06-02 13:00:20 +0000] [57] [INFO] Application startup complete.
[2031-06-02 13:01:20 +0000] [57] [INFO] 10.0.0.9:40204 - "POST /generate HTTP/1.1" 200
[2031-06-02 13:03:31 +0000] [1] [CRITICAL] WORKER TIMEOUT (pid:57)
[2031-06-02 13:03:32 +0000] [1] [ERROR] Worker (pid:57) was sent SIGKILL! Perhaps out of memory?
[2031-06-02 13:03:32 +0000] [96] [INFO] Booting worker with pid: 96
[2031-06-02 13:03:40 +0000] [96] [INFO] Application startup complete.
[2031-06-02 13:04:20 +0000] [96] [INFO] 10.0.0.9:40210 - "POST /generate HTTP/1.1" 200`)
	if st.Summary().Ready == nil || len(alarms) != 1 || alarms[0].Fatal || alarms[0].HeadlineSeq != 7 {
		t.Errorf("ready %v, alarms %+v: want ready and one non-fatal alarm headed by WORKER TIMEOUT", st.Summary().Ready, alarms)
	}
}

// TorchServe's frontend binds its APIs and says "Model server started."
// while its workers still load the model: for TorchServe (its logger names
// tell it) that is no readiness; a worker's model loaded is, in the DEBUG
// state change or in the INFO WorkerLoadTime metric logged with it.
func TestTorchServeFrontendStartIsNoReadiness(t *testing.T) {
	t.Parallel()
	const frontend = `2031-01-02T03:04:05,100 [INFO ] main org.pytorch.serve.ModelServer - Loading initial models: acme.mar
2031-01-02T03:04:09,200 [INFO ] main org.pytorch.serve.wlm.ModelManager - Model acme loaded.
2031-01-02T03:04:09,300 [INFO ] main org.pytorch.serve.ModelServer - Inference API bind to: http://0.0.0.0:8080
2031-01-02T03:04:09,301 [INFO ] main org.pytorch.serve.ModelServer - Management API bind to: http://0.0.0.0:8081
Model server started.
2031-01-02T03:04:09,900 [WARN ] pool-3-thread-1 org.pytorch.serve.metrics.MetricCollector - worker pid is not available yet.
2031-01-02T03:04:10,100 [INFO ] pool-3-thread-1 TS_METRICS - MemoryUsed.Megabytes:3402.9|#Level:Host|#hostname:box-1,timestamp:1927170250
2031-01-02T03:04:10,200 [INFO ] W-9000-acme_1.0-stdout MODEL_LOG - Loading pipeline components...:  43%|####      | 3/7 [00:08<00:10,  2.6s/it]
2031-01-02T03:04:11,200 [INFO ] W-9000-acme_1.0-stdout MODEL_LOG - Loading pipeline components...:  57%|#####     | 4/7 [00:10<00:07,  2.6s/it]`
	st, alarms := feedSettledState("", frontend)
	if r := st.Summary().Ready; r != nil || len(alarms) != 0 {
		t.Errorf("ready %+v, alarms %+v: the workers still load", r, alarms)
	}
	for _, loaded := range []string{
		"2031-01-02T03:04:19,400 [DEBUG] W-9000-acme_1.0 org.pytorch.serve.wlm.WorkerThread - W-9000-acme_1.0 State change WORKER_STARTED -> WORKER_MODEL_LOADED",
		"2031-01-02T03:04:19,401 [INFO ] W-9000-acme_1.0 TS_METRICS - WorkerLoadTime.Milliseconds:10201.0|#WorkerName:W-9000-acme_1.0,Level:Host|#hostname:box-1,timestamp:1927170259",
	} {
		st, _ := feedSettledState("", frontend+"\n"+loaded)
		if r := st.Summary().Ready; r == nil || r.Seq != 10 {
			t.Errorf("ready %+v, want line 10: %s", r, loaded)
		}
	}
}

// A twenty-second red team's finds (round 3 session 6): a model-load
// failure a server answers a request for and outlives; a program's last
// words under other heads than "Error:" and behind an emoji; a banner's
// title "<program> v<version> ready" and its "Listen : URL" row; docker
// compose's exit report inside another collector's envelope.
func TestTwentySecondRedTeamFinds(t *testing.T) {
	t.Parallel()
	t.Run("LoadFailureAnsweredThenServing", func(t *testing.T) {
		st, alarms := feedSettledState("", `20310203 04:05:00.000001 UTC 4242 INFO  Loaded engine: llama-cpp - engine_service.cc:851
20310203 04:05:01.000001 UTC 4242 INFO  Server started, API server listening at: http://127.0.0.1:39281 - main.cc:120
20310203 04:05:09.000001 UTC 4243 INFO  Loading model: /srv/models/acme.gguf - llama_engine.cc:618
20310203 04:05:09.000002 UTC 4243 ERROR llama_model_load: error loading model: unknown model architecture: 'acme9' - llama_server_context.cc:117
20310203 04:05:09.000003 UTC 4243 ERROR Model failed to start: {"message":"Failed to load model"} - models.cc:682
20310203 04:05:09.000004 UTC 4243 INFO  Response status: 400 for POST /v1/models/start - main.cc:160
20310203 04:05:30.000001 UTC 4244 INFO  Response status: 200 for GET /v1/models - main.cc:160
20310203 04:05:31.000001 UTC 4245 INFO  Response status: 200 for GET /healthz - main.cc:160`)
		if st.Summary().Ready == nil {
			t.Fatal("not ready")
		}
		if len(alarms) == 0 {
			t.Fatal("the failed load is no alarm")
		}
		for _, a := range alarms {
			if a.Fatal {
				t.Errorf("fatal alarm %+v: the server answered the requests after it", a)
			}
		}
	})
	t.Run("LastWordsHeads", func(t *testing.T) {
		for _, last := range []string{
			"Critical error: Socket closed",
			"🚨 Critical error: Error writing to socket",
			"Fatal error: cannot map /srv/models/acme.bin",
			"Fatal: cannot open model file /srv/models/acme.bin",
			"❌ Error: the weights file is truncated",
		} {
			st, alarms := feedSettledState("", "Loading weights...\n"+last)
			if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].HeadlineSeq != 2 || st.Summary().FatalAlarms != 1 {
				t.Errorf("%q: %d alarms %+v, want one fatal alarm headed by it", last, len(alarms), alarms)
			}
		}
		for _, benign := range []string{"- Error: a list item in help text", "Fatal: false", "🚨Critical error: glued",
			"fatal: not a git repository (or any of the parent directories): .git"} {
			if _, alarms := feedSettledState("", "Loading weights...\n"+benign); len(alarms) != 0 {
				t.Errorf("%q: alarms %+v", benign, alarms)
			}
		}
	})
	t.Run("BannerTitleAndListenRow", func(t *testing.T) {
		for _, banner := range []string{
			"  ══════════════════\n  🚀  acme-serve  v1.4.2  ready\n  ══════════════════",
			"  ──────────────────\n  Model   : acme-8b\n  Listen  : http://0.0.0.0:8080\n  ──────────────────",
		} {
			st, _ := feedSettledState("", "2031-01-02T03:04:05Z  INFO acme: Model loaded successfully\n"+banner)
			if st.Summary().Ready == nil {
				t.Errorf("not ready after\n%s", banner)
			}
		}
		for _, not := range []string{"  Tracking server: http://10.0.0.5:5000", "  Listen  : http://0.0.0.0:8080 (after warmup)", "numpy 1.26.4 not ready"} {
			st, _ := feedSettledState("", "2031-01-02T03:04:05Z  INFO acme: Model loaded successfully\n"+not)
			if r := st.Summary().Ready; r != nil && r.Seq == 2 {
				t.Errorf("ready at %q", not)
			}
		}
	})
	t.Run("ComposeExitReportInsideJournald", func(t *testing.T) {
		_, alarms := feedSettledState("", `Jan 28 10:04:05 gpu-7 run[4242]: $ docker compose up sd
Jan 28 10:04:06 gpu-7 run[4242]: sd-1  | [INFO ] model.cpp:1064 - loading /models/acme.safetensors
Jan 28 10:04:06 gpu-7 run[4242]: sd-1  | [ERROR] model.cpp:298  - get version from file failed: ''
Jan 28 10:04:06 gpu-7 run[4242]: sd-1  | [ERROR] main.cpp:282  - new_ctx failed
Jan 28 10:04:06 gpu-7 run[4242]: sd-1 exited with code 1`)
		if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].FirstSeq != 3 || alarms[0].HeadlineSeq != 3 {
			t.Errorf("%d alarms %+v, want one fatal alarm of lines 3-5 headed by line 3", len(alarms), alarms)
		}
	})
}

// Round 3 session 7's finds. An application that starts uvicorn before
// it loads its model (Cog runs the predictor's setup() once uvicorn
// serves): uvicorn's lines at once are readiness only if no model loading
// comes right after them; a paste that ends at the bind, or loading after
// a request was served, keeps it.
func TestLoadingRightAfterAnUnloadedBindTakesReadinessBack(t *testing.T) {
	t.Parallel()
	const started = `{"logger": "acme.server", "timestamp": "2031-02-03T04:05:01.100000Z", "severity": "INFO", "message": "probe helpers off"}
{"logger": "uvicorn.error", "timestamp": "2031-02-03T04:05:02.100000Z", "severity": "INFO", "message": "Started server process [7]"}
{"logger": "uvicorn.error", "timestamp": "2031-02-03T04:05:03.100000Z", "severity": "INFO", "message": "Waiting for application startup."}
{"logger": "uvicorn.error", "timestamp": "2031-02-03T04:05:04.100000Z", "severity": "INFO", "message": "Application startup complete."}
{"logger": "uvicorn.error", "timestamp": "2031-02-03T04:05:05.100000Z", "severity": "INFO", "message": "Uvicorn running on http://0.0.0.0:5000 (Press CTRL+C to quit)"}`
	st, _ := feedSettledState("", started)
	if r := st.Summary().Ready; r == nil || r.Seq != 5 {
		t.Fatalf("ready %+v, want line 5: the paste ends at the bind", r)
	}
	const setupFails = `
Loading acme weights from /srv/weights/acme-xl ...
Moving the pipeline to cuda ...
Traceback (most recent call last):
  File "/srv/predict.py", line 12, in setup
    self.pipe.to("cuda")
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB.`
	st, alarms := feedSettledState("", started+setupFails)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready %+v: the model loaded after the bind and failed", r)
	}
	if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].HeadlineSeq != 11 {
		t.Errorf("alarms %+v, want one fatal with the OutOfMemoryError headline (line 11)", alarms)
	}
	const servedThenLoads = `
INFO:     10.0.0.9:40112 - "POST /predictions HTTP/1.1" 200 OK
Loading adapter acme-style from /srv/adapters ...`
	st, _ = feedSettledState("", started+servedThenLoads)
	if r := st.Summary().Ready; r == nil || r.Seq != 5 {
		t.Errorf("ready %+v, want line 5: a request was served before the load", r)
	}
}

// A settings dump's "checkpoint" (a period, a switch, a directory) is no
// model loading: a server that opens its port before it restores its
// parameters is not ready at the port.
func TestCheckpointSettingsAreNoModelWork(t *testing.T) {
	t.Parallel()
	st, _ := feedSettledState("", `Running model: acme-7b
Not using the emergency checkpoint, so ignoring its directory
Config param checkpoint_period: 5000
Config param enable_checkpointing: True
I0203 04:05:06.000001 4242 server_lib.py:200] Starting server on port 9100 with 32 threads
I0203 04:05:06.000002 4242 engine.py:171] Loading parameters from gs://acme-bucket/acme-7b/items
I0203 04:05:07.000001 4242 checkpointing.py:400] restoring params from gs://acme-bucket/acme-7b/items`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready %+v: the parameters are still being restored", r)
	}
}

// Under `srun --label`, tasks other than task 0 are a job's workers: the
// sockets they listen on are for task 0 to connect to, no readiness; task
// 0's own announcement still is.
func TestWorkerTasksAnnounceNoReadiness(t *testing.T) {
	t.Parallel()
	const workers = `1: + exec ./acme-node worker --port 9400
2: + exec ./acme-node worker --port 9400
1: Listening on 0.0.0.0:9400...
2: Listening on 0.0.0.0:9400...
0: + exec ./acme-api --port 9300 --model /srv/acme.m
0: Arch: Acme
0: Dim: 4096
0: Socket[0]: connecting to 10.1.2.3:9400 worker
1: The root node has connected
1: nNodes: 2
1: Socket[0]: accepted root node
0: Socket[0]: connected
0: Network is initialized`
	st, _ := feedSettledState("", workers)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready %+v: only the workers listen yet", r)
	}
	st, _ = feedSettledState("", workers+"\n0: Loading weights...\n0: Weights loaded\n0: Listening on 0.0.0.0:9300...")
	if r := st.Summary().Ready; r == nil || r.Seq != 16 {
		t.Errorf("ready %+v, want task 0's listening line (16)", r)
	}
}

// kubectl's Events rows and pod rows: an image that cannot be pulled is
// an alarm the launch can outlive (kubelet pulls again); a pod the scheduler cannot place, or whose volume cannot be
// mounted, waits (an alarm the launch outlives); a pod row in Error after
// a restart is an alarm, one in Error without restarts (an old job's) is
// not.
func TestKubernetesEventsAndPodRows(t *testing.T) {
	t.Parallel()
	const pull = `Events:
  Type     Reason     Age                From               Message
  ----     ------     ----               ----               -------
  Normal   Scheduled  2m                 default-scheduler  Successfully assigned llm/acme-0 to gpu-7
  Normal   Pulling    70s (x3 over 2m)   kubelet            Pulling image "registry.acme.test/llm:v9"
  Warning  Failed     68s (x3 over 2m)   kubelet            Failed to pull image "registry.acme.test/llm:v9": rpc error: code = NotFound desc = not found
  Warning  Failed     68s (x3 over 2m)   kubelet            Error: ErrImagePull
  Normal   BackOff    30s (x4 over 2m)   kubelet            Back-off pulling image "registry.acme.test/llm:v9"`
	_, alarms := feedSettledState("", pull)
	if len(alarms) != 1 || alarms[0].Fatal || alarms[0].HeadlineSeq != 6 {
		t.Errorf("alarms %+v, want one the launch can outlive, headed by the pull failure (line 6)", alarms)
	}
	const pending = `Events:
  Type     Reason            Age                 From               Message
  ----     ------            ----                ----               -------
  Warning  FailedScheduling  3m (x5 over 9m)     default-scheduler  0/4 nodes are available: 4 Insufficient nvidia.com/gpu.`
	_, alarms = feedSettledState("", pending)
	if len(alarms) != 1 || alarms[0].Fatal {
		t.Errorf("alarms %+v, want one alarm the launch outlives", alarms)
	}
	_, alarms = feedSettledState("", `NAME                    READY   STATUS    RESTARTS      AGE
acme-api-6c9f7d-x2k8p   0/1     Error     2 (20s ago)   3m
migrate-x7k2q           0/1     Error     0             3d`)
	if len(alarms) != 1 || alarms[0].HeadlineSeq != 2 {
		t.Errorf("alarms %+v, want one for the restarted pod's row (line 2)", alarms)
	}
}

// Slurm's accounting rows: a job that ended FAILED or OUT_OF_MEMORY is an
// alarm when its output showed no failure, and joins the failure its
// output showed without taking its headline; TIMEOUT (the time was up) is
// none.
func TestSlurmAccountingRows(t *testing.T) {
	t.Parallel()
	const table = `[ops@login2 ~]$ sacct -j 99120 --format=JobID,JobName,State,ExitCode
JobID           JobName      State ExitCode
------------ ---------- ---------- --------
99120        acme-serve     FAILED      1:0
99120.batch       batch  CANCELLED     0:15`
	_, alarms := feedSettledState("", `INFO 02-03 04:05:06 acme loading shards 3/8
`+table)
	if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].HeadlineSeq != 5 {
		t.Errorf("alarms %+v, want one fatal headed by the FAILED row (line 5)", alarms)
	}
	_, alarms = feedSettledState("", `slurmstepd: error: Detected 1 oom_kill event in StepId=99120.0. Some of the step tasks have been OOM Killed.
srun: error: gn-12: task 0: Out Of Memory
[ops@login2 ~]$ sacct -j 99120
JobID           JobName      State ExitCode
------------ ---------- ---------- --------
99120.0         python OUT_OF_ME+    0:125`)
	if len(alarms) != 1 || alarms[0].HeadlineSeq != 1 {
		t.Errorf("alarms %+v, want the step's OOM kill alone, headed by its line 1", alarms)
	}
	_, alarms = feedSettledState("", "99120  acme-serve  TIMEOUT  0:0")
	if len(alarms) != 0 {
		t.Errorf("alarms %+v: a job whose time was up did not fail", alarms)
	}
}

// A worker pool's report that a worker stopped unexpectedly and is
// replaced is an alarm the server survives, at WARNING too.
func TestPoolWorkerStoppedUnexpectedly(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `2031-02-03 04:05:01,100 [mlserver] INFO - Loaded model 'acme-clf' succesfully.
2031-02-03 04:05:01,200 [mlserver.rest] INFO - HTTP server running on http://0.0.0.0:8080
2031-02-03 04:05:01,300 [mlserver.grpc] INFO - gRPC server running on http://0.0.0.0:8081
2031-02-03 04:05:09,100 [mlserver.parallel] WARNING - Worker with PID 4242 on default inference pool stopped unexpectedly with exit code 9. Restarting...
2031-02-03 04:05:12,100 [mlserver] INFO - Loaded model 'acme-clf' succesfully.`)
	if r := st.Summary().Ready; r == nil || r.Seq != 2 {
		t.Errorf("ready %+v, want line 2", r)
	}
	if len(alarms) != 1 || alarms[0].Fatal || alarms[0].HeadlineSeq != 4 {
		t.Errorf("alarms %+v, want one the server survives at line 4", alarms)
	}
}

// A traceback header with no frame under it, followed by the same
// process's ordinary work, was a logger's stray line: withdrawn. One the
// paste ends at, or that an error follows, stays.
func TestTracebackHeaderAloneThenWorkIsNoFailure(t *testing.T) {
	t.Parallel()
	const header = `INFO:     Loading model: /srv/models/acme-exl2
ERROR:    Traceback (most recent call last):`
	st, alarms := feedSettledState("", header+`
INFO:     Model loaded in 12.4 seconds
INFO:     Uvicorn running on http://0.0.0.0:5000 (Press CTRL+C to quit)`)
	if r := st.Summary().Ready; r == nil || r.Seq != 4 || len(alarms) != 0 {
		t.Errorf("ready %+v, alarms %+v: want ready at line 4 and no alarm", r, alarms)
	}
	if _, alarms = feedSettledState("", header); len(alarms) != 1 {
		t.Errorf("alarms %+v, want the header the paste ends at", alarms)
	}
}

// A one-line error that says the program carries on ("..., using
// defaults"), followed by the same program's loading and bind, was no last
// words; one that does not say so stays (a supervisor's restart loads
// again after the same words).
func TestErrorThatCarriesOnIsNoLastWords(t *testing.T) {
	t.Parallel()
	const after = `
Loading model /srv/models/acme.gguf
model loaded in 3.2 s
server listening at http://0.0.0.0:8080`
	st, alarms := feedSettledState("", "acme-server v1.2 starting\nerror: cannot read optional config /etc/acme/extra.toml, using defaults"+after)
	if r := st.Summary().Ready; r == nil || r.Seq != 5 || len(alarms) != 0 {
		t.Errorf("ready %+v, alarms %+v: want ready at line 5 and no alarm", r, alarms)
	}
	st, alarms = feedSettledState("", "acme-server v1.2 starting\nerror: listen tcp :8080: bind: address already in use"+after)
	if r := st.Summary().Ready; r != nil || len(alarms) != 1 || !alarms[0].Fatal {
		t.Errorf("ready %+v, alarms %+v: want the bind failure to stay fatal", r, alarms)
	}
}

// Readiness is a service's own: in a compose log, a dependency's listener
// is not confirmed by other services' quiet lines, and another service's
// loading does not make a port opened before this service's own loading
// readiness.
func TestReadinessEvidenceIsPerService(t *testing.T) {
	t.Parallel()
	st, _ := feedSettledState("", `Attaching to db-1, api-1
db-1   | 2031-02-03 04:05:06.100 UTC [1] LOG:  listening on IPv4 address "0.0.0.0", port 5432
db-1   | 2031-02-03 04:05:06.200 UTC [1] LOG:  database system is ready to accept connections
api-1  | acme gateway v2.1
api-1  | reading config /etc/acme.yaml
api-1  | connecting to database at db:5432
api-1  | connected, 12 routes registered`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready %+v: only the database listens", r)
	}
	st, _ = feedSettledState("", `Attaching to ui-1, ovms-1
ui-1    | Loading UI assets from /srv/ui
ui-1    | Loaded 120 assets
ovms-1  | [2031-02-03 04:05:06.100][1][serving][info][server.cpp:90] gRPC server started on port 9000
ovms-1  | [2031-02-03 04:05:06.200][1][modelmanager][info][modelinstance.cpp:80] Loading model: acme, version: 1, from path: /models/acme/1
ovms-1  | [2031-02-03 04:05:36.200][1][modelmanager][info][modelinstance.cpp:99] Loaded model acme; version: 1
ovms-1  | [2031-02-03 04:05:36.300][1][serving][info][server.cpp:100] REST server listening on port 8000 with 8 threads`)
	if r := st.Summary().Ready; r == nil || r.Seq != 7 {
		t.Errorf("ready %+v, want the REST listener after the model loaded (line 7)", r)
	}
}

// A terminal's "^C" echoed at the end of the line that was being printed
// (a progress bar without its newline) is the operator's stop: the
// KeyboardInterrupt tracebacks after it are teardown, never a crash.
func TestCtrlCAtTheEndOfAProgressBar(t *testing.T) {
	t.Parallel()
	st, alarms := feedSettledState("", `[2031-02-03 04:05:06] INFO fetch.py:153: Downloading weights for 64 shards with 8 threads
  5%|███▍                       | 3/64 [00:16<05:42,  3.33s/it]^C^C
Traceback (most recent call last):
  File "/srv/acme/fetch.py", line 160, in fetch_all
    for f in as_completed(futures):
  File "/usr/lib/python3.11/threading.py", line 629, in wait
    signaled = self._cond.wait(timeout)
KeyboardInterrupt`)
	if r := st.Summary().Ready; r != nil || len(alarms) != 0 {
		t.Errorf("ready %+v, alarms %+v: an operator's stop while loading", r, alarms)
	}
}

// The same failure from a process its supervisor restarted after reporting
// its death is a second event, not another rank's copy of the first.
func TestRestartedFailureIsItsOwnEvent(t *testing.T) {
	t.Parallel()
	attempt := func(pid int) string {
		return fmt.Sprintf(`Mar 04 05:06:07 box acme-serve[%d]: Traceback (most recent call last):
Mar 04 05:06:07 box acme-serve[%d]:   File "/srv/acme/main.py", line 9, in <module>
Mar 04 05:06:07 box acme-serve[%d]:     join_swarm()
Mar 04 05:06:07 box acme-serve[%d]: acme.swarm.SwarmError: no bootstrap peer answered
Mar 04 05:06:08 box systemd[1]: acme-serve.service: Main process exited, code=exited, status=1/FAILURE
Mar 04 05:06:08 box systemd[1]: acme-serve.service: Failed with result 'exit-code'.`, pid, pid, pid, pid)
	}
	_, alarms := feedSettledState("", attempt(2314)+"\nMar 04 05:06:38 box systemd[1]: Started acme-serve.service.\n"+attempt(2398))
	tracebacks := 0
	for _, a := range alarms {
		if a.Kind == classify.AlarmTraceback {
			tracebacks++
			if a.Ranks != 1 {
				t.Errorf("alarm %+v merges the restarted process's traceback as a rank", a)
			}
		}
	}
	if tracebacks != 2 {
		t.Errorf("alarms %+v, want the two attempts' tracebacks as two alarms", alarms)
	}
}

// A Ctrl-C that ends a watch command (`kubectl get pods -w`) is followed
// by the operator's next command: its output is no teardown, and the
// traceback in it is a failure.
func TestCtrlCEndingAWatchIsNoStopOfWhatFollows(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `$ kubectl get pods -w
NAME          READY   STATUS    RESTARTS   AGE
acme-llm-0    0/1     Running   0          10s
^C
$ kubectl logs acme-llm-0 --previous
INFO 03-04 05:06:07 [api_server.py:100] acme API server version 1.2
Traceback (most recent call last):
  File "/usr/local/bin/acme", line 8, in <module>
    sys.exit(main())
ValueError: max_model_len 65536 is larger than the model's 32768`)
	if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].HeadlineSeq != 10 {
		t.Errorf("alarms %+v, want the ValueError after the new command", alarms)
	}
}

// A traceback one of whose frames blocks (a process waiting for its
// workers) may be a signal's KeyboardInterrupt: until its exception line
// comes, a reader mid-traceback is not shown a crash.
func TestBlockedTracebackWaitsForItsExceptionLine(t *testing.T) {
	t.Parallel()
	st := classify.New("")
	lines := []string{
		"INFO 03-04 05:06:07 [loader.py:40] Loading weights for acme-70b",
		"Traceback (most recent call last):",
		`  File "/srv/acme/api.py", line 90, in build_engine`,
		"    engine = EngineClient(config)",
		`  File "/srv/acme/engine.py", line 310, in wait_for_startup`,
		"    events = poller.poll(5000)",
	}
	feedAll(st, strings.Join(lines, "\n"))
	if sum := st.Summary(); sum.PendingFatal != 0 {
		t.Errorf("summary %+v: a blocked traceback in its frames counts as a pending fatal alarm", sum)
	}
	st.Feed([]classify.Line{{Seq: 7, Text: "KeyboardInterrupt: terminated"}})
	st.Settle(classify.SettleStreamEnd)
	if sum := st.Summary(); sum.FatalAlarms != 0 {
		t.Errorf("summary %+v: the operator's stop is no failure", sum)
	}
}

// A stack's dependencies (a database, a message bus) and its web front
// are up long before the model server: their readiness is not the
// launch's, by the service's name or by a dependency's own start-up line,
// and an origin that loaded nothing while another loads a model announces
// no readiness for it.
func TestReadinessOfServicesBesideTheModelServer(t *testing.T) {
	t.Parallel()
	for name, log := range map[string]string{
		"named": `[pod/acme-postgresql-0/postgresql] 2031-02-03 04:05:06.100 GMT [1] LOG:  listening on IPv4 address "0.0.0.0", port 5432
[pod/acme-postgresql-0/postgresql] 2031-02-03 04:05:06.200 GMT [1] LOG:  database system is ready to accept connections
[pod/acme-vllm-0/vllm] INFO 02-03 04:05:09 [loader.py:40] Loading weights took 31.2 seconds`,
		"by its line": `1: [2731] 2031/02/03 04:05:06.100 [INF] Listening for client connections on 0.0.0.0:4222
1: [2731] 2031/02/03 04:05:06.100 [INF] Server is ready
0: 2031-02-03T04:05:07.000Z INFO acme_worker: starting worker for acme-70b`,
		"a front before its model": `Attaching to llm-1, rag-1
llm-1  | INFO 2031-02-03 04:05:06.000 llm_engine.py:242] Initializing a V0 LLM engine (v0.8.4) with config: model='/srv/acme'
rag-1  | INFO:     Started server process [1]
rag-1  | INFO:     Waiting for application startup.
rag-1  | INFO:     Application startup complete.
rag-1  | INFO:     Uvicorn running on http://0.0.0.0:8081 (Press CTRL+C to quit)`,
	} {
		if st, _ := feedSettledState("", log); st.Summary().Ready != nil {
			t.Errorf("%s: ready %+v, want none: the model server has not said it serves", name, st.Summary().Ready)
		}
	}
}

// A request answered in a sentence with a dash before its status
// ("POST /x - 200 (13.27 s)") is a request served; a 500 is not.
func TestDashStatusIsServing(t *testing.T) {
	t.Parallel()
	st, _ := feedSettledState("", `2031-02-03 04:05:01.000 [Info] (Manager) Acme Server v2.0 started
2031-02-03 04:05:01.001 [Info] (Manager) Connect your apps to API endpoint: http://localhost:13305/api/v1
2031-02-03 04:05:09.000 [Info] (Server) POST /api/v1/chat/completions - 200 (3.10 s)`)
	if r := st.Summary().Ready; r == nil {
		t.Errorf("not ready: a request was answered 200")
	}
}

// A command-line tool's own "prog: error: msg" line is its last words
// (PostgreSQL's initdb).
func TestCommandErrorIsLastWords(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("", `The database cluster will be initialized with locale "en_US.utf8".
initdb: error: directory "/var/lib/acme/data" exists but is not empty
initdb: hint: Using a mount point directly as the data directory is not recommended.`)
	if len(alarms) != 1 || !alarms[0].Fatal || alarms[0].HeadlineSeq != 2 {
		t.Errorf("alarms %+v, want initdb's error as fatal last words", alarms)
	}
}

// A server that reports its on-demand child's death, loads the model again
// and serves requests outlived it; requests another service answers do
// not say so (nor do requests answered without a reload: in flight when
// a server's own engine died, TestAProcessDeathAfterAnErrorMakesItFatal).
func TestChildDeathOutlivedByItsServer(t *testing.T) {
	t.Parallel()
	const ready = `2031-02-03 04:05:01.000 [Info] (Manager) Acme Server v2.0 started
2031-02-03 04:05:01.001 [Info] (Manager) Server listening on http://localhost:13305
2031-02-03 04:05:09.000 [Info] (Server) POST /api/v1/chat/completions - 200 (3.10 s)
`
	const death = `2031-02-03 04:06:31.774 [Error] (Runner) llama-server exited with code 1 before becoming healthy
`
	const served = `2031-02-03 04:07:40.302 [Info] (Runner) Loading model: acme-32b
2031-02-03 04:07:58.412 [Info] (Server) POST /api/v1/load - 200 (18.11 s)
2031-02-03 04:08:16.980 [Info] (Server) POST /api/v1/chat/completions - 200 (13.27 s)`
	_, alarms := feedSettledState("", ready+death+served)
	if len(alarms) != 1 || alarms[0].Fatal {
		t.Errorf("alarms %+v, want the child's death as one alarm the server outlived", alarms)
	}
	_, alarms = feedSettledState("", ready+death)
	if len(alarms) != 1 || !alarms[0].Fatal {
		t.Errorf("alarms %+v, want the death fatal while nothing was served after it", alarms)
	}
	_, alarms = feedSettledState("", `Attaching to llm-1, ui-1
llm-1  | INFO:     Application startup complete.
llm-1  | INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)
llm-1  | Engine core proc EngineCore_0 died unexpectedly, shutting down client.
ui-1   | INFO:     10.0.0.3:51234 - "GET /api/config HTTP/1.1" 200 OK
ui-1   | INFO:     10.0.0.3:51236 - "GET /api/models HTTP/1.1" 200 OK
ui-1   | INFO:     10.0.0.3:51238 - "GET /api/chats HTTP/1.1" 200 OK`)
	if len(alarms) == 0 || !alarms[0].Fatal {
		t.Errorf("alarms %+v, want the engine's death fatal: another service answered", alarms)
	}
}

// A restart loop: the program's start banner again after its ERROR lines
// makes those lines the last words of the run before, one alarm per
// attempt, decided at once.
func TestStartBannerAgainAfterErrorsIsARestart(t *testing.T) {
	t.Parallel()
	attempt := func(s int) string {
		return fmt.Sprintf(`2031-02-03T04:05:%02d.100Z  INFO gateway: Starting Acme Gateway 2031.1.2 (commit: 1a2b3c4)
2031-02-03T04:05:%02d.600Z ERROR acme::error: Error connecting to the store: the store is not healthy
2031-02-03T04:05:%02d.601Z ERROR gateway: Failed to initialize AppState: Error connecting to the store
`, s, s, s)
	}
	st := classify.New("")
	feedAll(st, strings.TrimSuffix(attempt(1)+attempt(3)+attempt(6), "\n"))
	if sum := st.Summary(); sum.FatalAlarms < 2 || sum.PendingFatal+sum.PendingRuns > 1 {
		t.Errorf("summary %+v: want the first two attempts' errors as decided fatal alarms", sum)
	}
}

// A router's "Starting router on ADDR | mode: ..." comes before it has
// found its workers; a ^C with a prompt after it on the same line ended a
// watch, and what follows is the next command's output.
func TestRouterStartAndCtrlCBeforeAPrompt(t *testing.T) {
	t.Parallel()
	st, _ := feedSettledState("", `2031-02-03 04:05:06  INFO vllm_router_rs::server: src/server.rs:427: Starting router on 0.0.0.0:8800 | mode: Regular { worker_urls: ["http://llm:8000"] } | policy: RoundRobin
2031-02-03 04:05:07 DEBUG vllm_router_rs::core::worker: src/core/worker.rs:88: health check http://llm:8000/health
2031-02-03 04:05:09 DEBUG vllm_router_rs::core::worker: src/core/worker.rs:88: health check http://llm:8000/health
2031-02-03 04:05:11 DEBUG vllm_router_rs::core::worker: src/core/worker.rs:88: health check http://llm:8000/health`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready %+v: the router has no worker yet", r)
	}
	_, alarms := feedSettledState("", `acme-router-0   0/1   CrashLoopBackOff   3 (20s ago)   2m
^C$ kubectl logs acme-router-0 --previous
Traceback (most recent call last):
  File "/srv/router/app.py", line 12, in <module>
    main()
ValueError: session routing needs a session key`)
	found := false
	for _, a := range alarms {
		found = found || a.HeadlineSeq == 6
	}
	if !found {
		t.Errorf("alarms %+v, want the ValueError after the new command", alarms)
	}
}

// systemd stops a unit itself after the kernel OOM-killed one of its
// processes (OOMPolicy=stop): that "Stopping" is no operator's, and the
// unit's "Failed with result 'oom-kill'" is a failure, not teardown.
func TestSystemdStopAfterAnOOMKillIsNoOperatorStop(t *testing.T) {
	t.Parallel()
	_, alarms := feedSettledState("ollama", `Jan 14 10:01:00 box acme[1187]: time=2031-01-14T10:01:00.000Z level=INFO source=routes.go:1 msg="Listening on 127.0.0.1:11434 (version 9.9.9)"
Jan 14 10:02:31 box systemd[1]: acme.service: A process of this unit has been killed by the OOM killer.
Jan 14 10:02:31 box acme[1187]: time=2031-01-14T10:02:31.066Z level=ERROR source=sched.go:455 msg="error loading llama server" error="llama runner process has terminated: signal: killed"
Jan 14 10:02:31 box systemd[1]: Stopping acme.service - Acme Service...
Jan 14 10:02:32 box systemd[1]: acme.service: Failed with result 'oom-kill'.
Jan 14 10:02:32 box systemd[1]: Stopped acme.service - Acme Service.`)
	fatal := false
	for _, a := range alarms {
		fatal = fatal || a.Fatal
	}
	if !fatal {
		t.Errorf("alarms %+v, want the unit's OOM failure fatal", alarms)
	}
}

// An excerpt that begins mid-serve with a request answered has no start
// banner: the same access line after an ERROR line is no restart.
func TestAccessLineAgainIsNoRestart(t *testing.T) {
	t.Parallel()
	st := classify.New("")
	feedAll(st, `10.0.0.5 - - [03/Feb/2031:04:05:06 +0000] "POST /v1/embed HTTP/1.1" 500 31 "-" "acme-client/1.0"
ERROR 02-03 04:05:07 [pool.py:88] batch 17 failed: tokenizer returned no tokens
10.0.0.5 - - [03/Feb/2031:04:05:08 +0000] "POST /v1/embed HTTP/1.1" 500 31 "-" "acme-client/1.0"`)
	if sum := st.Summary(); sum.FatalAlarms != 0 && sum.PendingFatal == 0 {
		t.Errorf("summary %+v: an access line again made the ERROR line a restart's last words", sum)
	}
}

// A model server's own "Server is ready to accept connections" is its
// readiness, not a dependency's start-up line.
func TestOwnReadyToAcceptConnectionsIsReadiness(t *testing.T) {
	t.Parallel()
	st, _ := feedSettledState("", `acme-serve 1.4 loading weights from /srv/acme.bin
weights loaded in 12.1 s
Server is ready to accept connections`)
	if r := st.Summary().Ready; r == nil || r.Seq != 3 {
		t.Errorf("ready %+v, want line 3", r)
	}
}

// A network call's traceback that the program logs (logging.exception)
// and then goes on without what it fetched, before readiness, is no
// failure: the next line of the same source is ordinary work. One the
// same source ends after, or that its teardown follows, stays.
func TestCaughtNetworkFailureTheProgramWentOnWithout(t *testing.T) {
	t.Parallel()
	const failure = `DEBUG:acme_tts.fetch:Fetching https://voices.example.org/index.json
ERROR:acme_tts.fetch:Failed to refresh the voice index
Traceback (most recent call last):
  File "/usr/lib/python3.12/urllib/request.py", line 1344, in do_open
    h.request(req.get_method(), req.selector, req.data, headers)
  File "/usr/lib/python3.12/socket.py", line 976, in getaddrinfo
    for res in _socket.getaddrinfo(host, port, family, type, proto, flags):
socket.gaierror: [Errno -2] Name or service not known

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "/srv/acme_tts/fetch.py", line 51, in refresh_index
    with urlopen(url) as response:
  File "/usr/lib/python3.12/urllib/request.py", line 1347, in do_open
    raise URLError(err)
urllib.error.URLError: <urlopen error [Errno -2] Name or service not known>
`
	st, alarms := feedSettledState("", failure+`DEBUG:acme_tts.fetch:Using the bundled index /srv/acme_tts/index.json
DEBUG:acme_tts.voices:Loading voice alto-medium
INFO:__main__:Ready
DEBUG:acme_tts.handler:Synthesize(text='hello')`)
	if len(alarms) != 0 {
		t.Errorf("alarms %+v: the program went on without the index", alarms)
	}
	if r := st.Summary().Ready; r == nil || r.Seq != 20 {
		t.Errorf("ready %+v, want line 20 (its bare \"Ready\" after loading)", r)
	}
	_, alarms = feedSettledState("", failure)
	if len(alarms) != 1 || !alarms[0].Fatal {
		t.Errorf("alarms %+v: a failure the stream ends after stays one fatal alarm", alarms)
	}
}

// A failed fetch of something other than the model after a server's
// advice where to connect is no startup work still going on: the advice
// becomes readiness after its quiet lines. A fetch of the model still
// cancels it.
func TestFailedSideFetchKeepsTheAnnouncement(t *testing.T) {
	t.Parallel()
	const start = `Starting server

To see the GUI go to: http://0.0.0.0:8188
[NodeRegistry] An error occurred while fetching 'https://registry.example.org/nodes?page=1': Cannot connect to host registry.example.org:443
[NodeRegistry] Cannot connect to the registry.
`
	st, _ := feedSettledState("", start+`[NodeRegistry] All startup tasks have been completed.
got prompt`)
	if r := st.Summary().Ready; r == nil || r.Seq != 3 {
		t.Errorf("ready %+v, want line 3", r)
	}
	st, _ = feedSettledState("", start+`Downloading model weights flux-dev.safetensors
Fetching 3 files: 33%`)
	if r := st.Summary().Ready; r != nil {
		t.Errorf("ready %+v: the model's download after the advice says it was early", r)
	}
}
