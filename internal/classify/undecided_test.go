package classify_test

import (
	"strings"
	"testing"

	"launchwatch/internal/eval"
)

// statusesAtEveryCut replays log as a client of the server sees it (the
// launch read after each batch, eval.Replay) once for every place a first
// batch can end, and returns every status any read saw, with the cut.
func statusesAtEveryCut(t *testing.T, server, log string) (seen map[string]int, final []string) {
	t.Helper()
	lines := strings.Split(log, "\n")
	seen = map[string]int{}
	for cut := 1; cut < len(lines); cut++ {
		first := true
		run, err := eval.Replay(lines, server, func() int {
			if first {
				first = false
				return cut
			}
			return len(lines)
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range run.Statuses {
			if _, ok := seen[st]; !ok {
				seen[st] = cut
			}
		}
		final = append(final, run.Final)
	}
	return seen, final
}

// TestOperatorStopWhileLoadingNeverShowsCrash: a server still loading
// when a SIGTERM arrives turns it into KeyboardInterrupt in its signal
// handler, and CPython prints the traceback from the program's entry
// through its event loop to the wait the signal interrupted. Wherever a
// shipper's batch ends inside it, a reader must never be told "crashed":
// until the exception line, the frames only say how the program was
// entered and where it waited.
func TestOperatorStopWhileLoadingNeverShowsCrash(t *testing.T) {
	t.Parallel()
	log := `INFO 02-03 04:05:06 [loader.py:88] Loading weights of acme/heron-13b
Loading checkpoint shards:  40% Completed | 2/5 [00:21<00:31, 10.50s/it]
Traceback (most recent call last):
  File "/opt/venv/bin/heron-serve", line 8, in <module>
    sys.exit(main())
             ^^^^^^
  File "/opt/venv/lib/python3.12/site-packages/heron/cli.py", line 40, in main
    args.dispatch_function(args)
  File "/opt/venv/lib/python3.12/site-packages/heron/serve.py", line 71, in cmd
    asyncio.run(run_server(args))
  File "/usr/lib/python3.12/asyncio/runners.py", line 195, in run
    return runner.run(main)
  File "/opt/venv/lib/python3.12/site-packages/heron/engine.py", line 310, in wait_until_loaded
    ready = self._poller.poll(500)
  File "/opt/venv/lib/python3.12/site-packages/heron/server.py", line 52, in _on_sigterm
    raise KeyboardInterrupt("terminated")
KeyboardInterrupt: terminated`
	seen, final := statusesAtEveryCut(t, "", log)
	for _, st := range []string{"alarm", "crashed"} {
		if cut, ok := seen[st]; ok {
			t.Errorf("a read after a first batch of %d lines was told %q", cut, st)
		}
	}
	for i, f := range final {
		if f == "alarm" || f == "crashed" {
			t.Errorf("cut %d: final status %q, want the operator's stop to be no failure", i+1, f)
		}
	}
}

// TestTruncatedWorkTracebackStillCrashes: a traceback whose frames show
// the program's own work (here, capturing CUDA graphs) and that stops
// before its exception line is still a crash when the stream ends there.
func TestTruncatedWorkTracebackStillCrashes(t *testing.T) {
	t.Parallel()
	log := `INFO 02-03 04:05:06 [runner.py:120] Capturing CUDA graphs for 35 batch sizes
Traceback (most recent call last):
  File "/opt/venv/lib/python3.12/site-packages/heron/graph_runner.py", line 162, in capture
    self.capture_one(bs)
  File "/opt/venv/lib/python3.12/site-packages/heron/graph_runner.py", line 201, in capture_one
    out = self.model(ids, positions)`
	run := feedBothWays(t, "", log)
	if run.Final != "alarm" && run.Final != "crashed" {
		t.Errorf("final %q, want a crash: the traceback was cut in the program's own work", run.Final)
	}
	seen, _ := statusesAtEveryCut(t, "", log)
	if _, ok := seen["alarm"]; !ok {
		if _, ok := seen["crashed"]; !ok {
			t.Errorf("no read ever saw the crash: %v", seen)
		}
	}
}

// TestUvicornReadinessWaitsForItsBind: uvicorn logs "Application startup
// complete." and only then binds its socket, unless it was handed one. A
// bind failure right after it must never have been shown as readiness,
// wherever the batches end; the bind's own line is readiness; a startup
// line that nothing follows is readiness once the stream ended; a server
// that said where it listens before (it was handed a bound socket) is ready
// on the startup line itself.
func TestUvicornReadinessWaitsForItsBind(t *testing.T) {
	t.Parallel()
	head := `2031-02-03 04:05:01,100 - heron - INFO - engine.py:66 - model loaded in 8.1 s
HINT:    Please open http://0.0.0.0:23333 in a browser for the API docs
INFO:     Started server process [4242]
INFO:     Waiting for application startup.
INFO:     Application startup complete.`
	failed := head + `
ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 23333): address already in use
INFO:     Waiting for application shutdown.
INFO:     Application shutdown complete.`
	seen, _ := statusesAtEveryCut(t, "", failed)
	if cut, ok := seen["ready"]; ok {
		t.Errorf("a read after a first batch of %d lines was told ready, before the bind failed", cut)
	}
	if run := feedBothWays(t, "", failed); run.Ready != nil || run.Final != "alarm" {
		t.Errorf("bind failure: ready %+v, final %q; want never ready, an alarm", run.Ready, run.Final)
	}

	bound := feedBothWays(t, "", head+`
INFO:     Uvicorn running on http://0.0.0.0:23333 (Press CTRL+C to quit)`)
	if bound.Ready == nil || bound.Ready.Seq != 6 || bound.Final != "ready" {
		t.Errorf("bound: ready %+v, final %q; want ready at the bind's line 6", bound.Ready, bound.Final)
	}

	quiet := feedBothWays(t, "", head)
	if quiet.Ready == nil || quiet.Ready.Seq != 5 || quiet.Final != "ready" {
		t.Errorf("nothing after the startup line: ready %+v, final %q; want ready at line 5 once the stream ended", quiet.Ready, quiet.Final)
	}

	handed := feedBothWays(t, "", `2031-02-03 04:05:01,100 - heron - INFO - engine.py:66 - model loaded in 8.1 s
2031-02-03 04:05:01,200 - heron - INFO - api.py:30 - Starting API server on http://0.0.0.0:8000
INFO:     Started server process [4242]
INFO:     Waiting for application startup.
INFO:     Application startup complete.`)
	if handed.Ready == nil || handed.Ready.Seq != 2 {
		t.Errorf("a server that said where it listens: ready %+v, want ready at its announcement, line 2", handed.Ready)
	}
}

// TestAdviceAfterLoadingIsReadyOnAQuietEnd: a server that loaded its
// model and then tells people where to point a browser has usually bound
// already, and prints nothing more until a request comes: once the stream
// ends quiet it is ready at that line. Before any loading, the same advice
// waits for what follows (the server may load next).
func TestAdviceAfterLoadingIsReadyOnAQuietEnd(t *testing.T) {
	t.Parallel()
	loaded := feedBothWays(t, "", `Total VRAM 24576 MB, total RAM 64000 MB
Loading weights from /models/heron-xl.safetensors
weights loaded in 4.2 seconds
To see the GUI go to: http://127.0.0.1:8188`)
	if loaded.Ready == nil || loaded.Ready.Seq != 4 || loaded.Final != "ready" {
		t.Errorf("advice after loading: ready %+v, final %q; want ready at line 4", loaded.Ready, loaded.Final)
	}
	early := feedBothWays(t, "", `Heron studio 2.1
To see the GUI go to: http://127.0.0.1:8188
Loading weights from /models/heron-xl.safetensors`)
	if early.Ready != nil {
		t.Errorf("advice before loading, then loading: ready at %d, want not ready", early.Ready.Seq)
	}
}

// TestSkippedPluginImportNeverShowsCrash: a plugin loader that imports an
// extension by name (importlib's documented spec.loader.exec_module recipe)
// and logs that it skipped the one whose import failed. Wherever a batch
// ends inside the traceback, no read may be told the launch crashed: the
// loader's next line withdraws it. The same traceback with nothing after it
// is still a crash when the stream ends.
func TestSkippedPluginImportNeverShowsCrash(t *testing.T) {
	t.Parallel()
	traceback := `acme-studio 2.4: loading extensions from /srv/studio/extensions
Traceback (most recent call last):
  File "/srv/studio/studio/extensions.py", line 58, in load_extension
    spec.loader.exec_module(module)
  File "<frozen importlib._bootstrap_external>", line 995, in exec_module
  File "<frozen importlib._bootstrap>", line 488, in _call_with_frames_removed
  File "/srv/studio/extensions/acme-upscale/__init__.py", line 2, in <module>
    from .upscale import UpscaleNode
  File "/srv/studio/extensions/acme-upscale/upscale.py", line 4, in <module>
    import imagekit_native
ModuleNotFoundError: No module named 'imagekit_native'`
	log := traceback + `

Cannot import /srv/studio/extensions/acme-upscale module for custom nodes: No module named 'imagekit_native'
Starting server
To see the GUI go to: http://0.0.0.0:7860`
	seen, final := statusesAtEveryCut(t, "", log)
	for _, st := range []string{"alarm", "crashed"} {
		if cut, ok := seen[st]; ok {
			t.Errorf("a read after a first batch of %d lines was told %q", cut, st)
		}
	}
	if f := final[len(final)-1]; f != "ready" {
		t.Errorf("whole log: final status %q, want ready", f)
	}
	run := feedBothWays(t, "", traceback)
	if run.Final != "alarm" && run.Final != "crashed" {
		t.Errorf("the traceback alone: final %q, want a crash: nothing said the import was skipped", run.Final)
	}
}

// TestChildFailureWaitsForItsParent: a proxy that starts one upstream per
// model (llama-swap's format) logs the upstream's start; the upstream dies
// loading its model and says so in its own words; the proxy then reports
// the exit and goes on serving. Wherever a batch ends, no read may be told
// the launch crashed. The proxy's own fatal error, in its own prefix, is a
// crash at once; and a child's failure that no parent line follows is a
// crash when the stream ends.
func TestChildFailureWaitsForItsParent(t *testing.T) {
	t.Parallel()
	child := `[INFO] acme-proxy listening on http://:9400
[DEBUG] <heron-13b> Executing start command: /opt/bin/heron-server --port 6001 -m /models/heron-13b.gguf, env: 
main: loading model
llama_model_load: error loading model: error loading model architecture: unknown model architecture: 'heronx'
llama_model_load_from_file_impl: failed to load model
main: exiting due to model loading error`
	log := child + `
[WARN] <heron-13b> ExitError >> exit status 1, exit code: 1
[ERROR] <heron-13b> Failed to start process: upstream command exited unexpectedly: exit status 1
[INFO] Request 10.0.0.8 "POST /v1/chat/completions HTTP/1.1" 502 96 "curl/8.5.0" 1.2s`
	seen, final := statusesAtEveryCut(t, "", log)
	for _, st := range []string{"alarm", "crashed"} {
		if cut, ok := seen[st]; ok {
			t.Errorf("a read after a first batch of %d lines was told %q", cut, st)
		}
	}
	if f := final[len(final)-1]; f == "alarm" || f == "crashed" {
		t.Errorf("whole log: final status %q, want the proxy to outlive its upstream", f)
	}
	if run := feedBothWays(t, "", child); run.Final != "alarm" && run.Final != "crashed" {
		t.Errorf("the child's failure alone: final %q, want a crash when the stream ends", run.Final)
	}

	own := `[DEBUG] <heron-13b> Executing start command: /opt/bin/heron-server --port 6001 -m /models/heron-13b.gguf, env: 
main: loading model
[INFO] acme-proxy listening on http://0.0.0.0:9400
[ERROR] Fatal server error: listen tcp 0.0.0.0:9400: bind: address already in use`
	seen, _ = statusesAtEveryCut(t, "", own)
	if _, ok := seen["alarm"]; !ok {
		if _, ok := seen["crashed"]; !ok {
			t.Errorf("the proxy's own fatal error was never shown before the stream ended: %v", seen)
		}
	}
}
