package classify

import "testing"

// Loggers the red team met whose prefixes stayed in the body: Ray's C++
// logger (its level letter), loguru's default format, DeepSpeed's
// "[file.py:line:func]" source tag, FastChat's logger name, log4j's thread
// and logger, NIM's dated vLLM prefix, spdlog's bracketed fields.
func TestMoreLoggerPrefixes(t *testing.T) {
	for _, c := range []struct{ line, level, body string }{
		{`[2031-01-02 03:04:05,678 E 1234 5678] core_worker.cc:123: Unhandled exception: St9bad_alloc`, "ERROR", "core_worker.cc:123: Unhandled exception: St9bad_alloc"},
		{`[2031-01-02 03:04:05,678 W 1234 5678] gcs_client.cc:40: retrying`, "WARNING", "gcs_client.cc:40: retrying"},
		{`2031-01-02 03:04:05.678 | ERROR    | app.server:run:88 - engine died`, "ERROR", "engine died"},
		{`2031-01-02 03:04:05.678 | INFO     | __main__:<module>:12 - ready on port 8000`, "INFO", "ready on port 8000"},
		{`[2031-01-02 03:04:05,101] [ERROR] [launch.py:321:sigkill_handler] exits with return code = -9`, "ERROR", "exits with return code = -9"},
		{`[2031-01-02 03:04:05] [INFO] [not a tag] hello`, "INFO", "[not a tag] hello"},
		// Python's "%(asctime)s %(levelname).1s [%(process)d] %(name)s - %(message)s".
		{`2031-01-02 03:04:05,215 E [118] azmlinfsrv - Encountered Exception: boom`, "ERROR", "Encountered Exception: boom"},
		{`2031-01-02 03:04:05,215 I [118] gunicorn.access - 10.0.0.1 - - [02/Jan/2031:03:04:05 +0000] "GET / HTTP/1.0" 200 7`, "INFO", `10.0.0.1 - - [02/Jan/2031:03:04:05 +0000] "GET / HTTP/1.0" 200 7`},
		{`2031-01-02 03:04:05,215 C [7] msg without a logger`, "CRITICAL", "msg without a logger"},
		// Elixir's Logger: a time of day, then its level in brackets.
		{`09:40:01.118 [warning] Allocator ran out of memory`, "WARNING", "Allocator ran out of memory"},
		{`09:40:01.118 [notice] Application demo exited: shutdown`, "INFO", "Application demo exited: shutdown"},
		{`09:40:01.118 [bogus] kept`, "", "09:40:01.118 [bogus] kept"},
		// zap's console encoder: tab-separated time, level, logger, caller.
		{"2031-01-02T03:04:05Z\tERROR\tsetup\tunable to load config file\t{\"error\": \"bad\"}", "ERROR", "unable to load config file\t{\"error\": \"bad\"}"},
		{"2031-01-02T03:04:05.000Z\tINFO\tcontroller\tmain.go:88\tstarting manager", "INFO", "starting manager"},
		{"2031-01-02T03:04:05Z\tINFO\tplain message with spaces", "INFO", "plain message with spaces"},
		// Ray's "%(asctime)s\t%(levelname)s %(filename)s:%(lineno)s -- %(message)s".
		{"2031-01-02 03:04:05,102\tERROR services.py:1329 -- Failed to start the dashboard", "ERROR", "Failed to start the dashboard"},
		// A log viewer's copy: the time, a tab, the line as written.
		{"2031-01-02 03:04:05.123\tINFO:     Uvicorn running on http://0.0.0.0:8080", "INFO", "Uvicorn running on http://0.0.0.0:8080"},
		// Python logging's default format, logging.basicConfig's:
		// "%(levelname)s:%(name)s:%(message)s"; the name goes.
		{`INFO:__main__:Ready`, "INFO", "Ready"},
		{`ERROR:acme_tts.voices:Failed to refresh the voice list`, "ERROR", "Failed to refresh the voice list"},
		{`WARNING:root:no GPU found, using CPU`, "WARNING", "no GPU found, using CPU"},
		{`ERROR:Exception in ASGI application`, "ERROR", "Exception in ASGI application"},
		{`INFO:http://0.0.0.0:8080 is up`, "INFO", "http://0.0.0.0:8080 is up"},
		{`INFO:12:30 start`, "INFO", "12:30 start"},
		// Qt's default message pattern (GPT4All): "[%{type}] (%{time}): %{message}".
		{"[Warning] (Wed Jan 02 03:04:05 2031): ERROR: Unable to start the server", "ERROR", "Unable to start the server"},
		{"[Debug] (Wed Jan 02 03:04:05 2031): loading model", "DEBUG", "loading model"},
		// Go's log package: "2006/01/02 15:04:05[.000000] " before the
		// message (and its Lshortfile "file.go:N: " field, kept).
		{`2031/01/02 03:04:05 http: panic serving 10.0.0.1:5123: boom`, "", "http: panic serving 10.0.0.1:5123: boom"},
		{`2031/01/02 03:04:05.123456 server.go:88: listening on :8080`, "", "server.go:88: listening on :8080"},
		{`2031/01/02T03:04:05 not a time`, "", "2031/01/02T03:04:05 not a time"},
		// FastChat's "| LEVEL | logger name | message": the name goes, a
		// traceback frame re-logged from stderr keeps its indentation, and a
		// blank stderr line is an empty message.
		{`2031-01-02 03:04:05 | INFO | model_worker | Register to controller`, "INFO", "Register to controller"},
		// StreamToLogger relays the whole stream at ERROR: the level is
		// the relay's, not the line's, and is dropped.
		{`2031-01-02 03:04:05 | ERROR | stderr |   File "/srv/app/worker.py", line 12, in <module>`, "", `  File "/srv/app/worker.py", line 12, in <module>`},
		{`2031-01-02 03:04:05 | ERROR | stderr | `, "", ""},
		{`2031-01-02 03:04:05 | ERROR | stderr |`, "", ""},
		{`2031-01-02 03:04:05 | ERROR | model_worker | Load failed`, "ERROR", "Load failed"},
		{`2031-01-02 03:04:05 | ERROR | stderr |x`, "ERROR", "stderr |x"},
		{`2031-01-02 03:04:05 | INFO | two words | kept`, "INFO", "two words | kept"},
		// log4j's "%d [%-5p] %t %c - %m" (TorchServe): thread and logger go,
		// a message with a dash in it stays.
		{`2031-01-02T03:04:05,678 [INFO ] W-9000-acme_1.0-stdout MODEL_LOG -   File "/srv/ts/service.py", line 130, in predict`, "", `  File "/srv/ts/service.py", line 130, in predict`},
		{`2031-01-02T03:04:05,678 [INFO ] main org.pytorch.serve.ModelServer - Torchserve version: 0.12.0`, "INFO", "Torchserve version: 0.12.0"},
		{`2031-01-02T03:04:05,678 [INFO ] Loading model - please wait`, "INFO", "Loading model - please wait"},
		{`2031-01-02T03:04:05,678 [INFO ] step-2 done - next`, "INFO", "step-2 done - next"},
		// A worker's relayed stream: the frontend's level names the stream,
		// not the line (TorchServe's thread, DJL Serving's message tag);
		// DJL's "[%-5level] %logger - %msg" has a logger and no thread.
		{`2031-01-02T03:04:05,678 [WARN ] W-9000-acme_1.0-stderr MODEL_LOG - Traceback (most recent call last):`, "", "Traceback (most recent call last):"},
		{`[INFO ] PyProcess - W-7-acme-stdout: Traceback (most recent call last):`, "", "Traceback (most recent call last):"},
		{`[INFO ] PyProcess - W-7-acme-stdout: ERROR 01-02 03:04:05 [engine.py:40] engine failed`, "ERROR", "engine failed"},
		{`[ERROR] ModelServer - Failed register workflow`, "ERROR", "Failed register workflow"},
		{`[INFO ] ai.djl.serving.wlm.WorkerPool - scaling up`, "INFO", "scaling up"},
		{`[INFO ] Done - next`, "INFO", "Done - next"},
		{`[INFO ] PyProcess - W-7: not a stream`, "INFO", "W-7: not a stream"},
		// spdlog fields right after a bracketed time (OpenVINO Model Server).
		{`[2031-01-02 03:04:05.678][1][modelmanager][error][servable_initializer.cpp:351] [GPU] out of GPU resources`, "ERROR", "[GPU] out of GPU resources"},
		{`[2031-01-02 03:04:05.678][812][serving][info][servablemanagermodule.cpp:55] ServableManagerModule started`, "INFO", "ServableManagerModule started"},
		{`[2031-01-02 03:04:05.678][1][no level here] msg`, "", "[1][no level here] msg"},
		// NVIDIA NIM: vLLM's level word, then a full date and the source tag.
		{`INFO 2031-01-02 03:04:05.678 ngc_injector.py:152] Valid profile: 4f2e (vllm-bf16-tp1)`, "INFO", "Valid profile: 4f2e (vllm-bf16-tp1)"},
		{`ERROR 2031-01-02 03:04:05,678 serving_chat.py:201] Error in preprocessing prompt inputs`, "ERROR", "Error in preprocessing prompt inputs"},
		// Not NIM's tag: its reader leaves the date; headLevel reads the level.
		{`INFO 2031-01-02 03:04:05 the date, then no tag`, "INFO", `2031-01-02 03:04:05 the date, then no tag`},
		// Ray Serve's "LEVEL date time COMPONENT ID -- msg", and before 2.9
		// "COMPONENT ID file.py:N - msg"; other words after a date stay.
		{`ERROR 2031-01-02 03:04:05,678 controller 4410 -- Failed to update the deployments ['Acme'].`, "ERROR", "Failed to update the deployments ['Acme']."},
		{`INFO 2031-01-02 03:04:05,678 proxy 10.0.0.5 -- Proxy starting on node abc.`, "INFO", "Proxy starting on node abc."},
		{`INFO 2031-01-02 03:04:05,678 controller 4410 deployment_state.py:1392 - Deploying new version.`, "INFO", "Deploying new version."},
		{`INFO 2031-01-02 03:04:05,678 model loaded -- fine`, "INFO", `2031-01-02 03:04:05,678 model loaded -- fine`},
		// PaddlePaddle's loggers (FastDeploy): "%(levelname)-8s %(asctime)s
		// %(process)-5s %(filename)s[line:%(lineno)d] %(message)s".
		{`ERROR    2031-01-02 03:04:05,678 7     engine.py[line:151] Failed to launch worker processes.`, "ERROR", "Failed to launch worker processes."},
		{`WARNING  2031-01-02 03:04:05,678 31207 args_utils.py[line:1021] max_num_seqs is not set`, "WARNING", "max_num_seqs is not set"},
		{`INFO     2031-01-02 03:04:05,678 7 the pid, then no tag[line:3] x`, "INFO", `2031-01-02 03:04:05,678 7 the pid, then no tag[line:3] x`},
		{`INFO     2031-01-02 03:04:05,678 7 engine.py[line:x] not a line`, "INFO", `2031-01-02 03:04:05,678 7 engine.py[line:x] not a line`},
	} {
		p := ParsePrefix(c.line, 2031)
		if p.Level != c.level || p.Body != c.body {
			t.Errorf("%q: level %q body %q, want %q %q", c.line, p.Level, p.Body, c.level, c.body)
		}
	}
}

// TestHeadLevel: the level of a logger no reader knows, read from the head
// of its line (formats written from logback's, Rich's, env_logger's,
// go-kit's and Python logging's documented layouts; values invented), and
// lines whose level word is not in a prefix.
func TestHeadLevel(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ line, level, body string }{
		{"2031-01-02 03:04:05.678 [main] ERROR c.a.Foo - model failed", "ERROR", "model failed"},
		{"03:04:05.678 | ERROR | engine failed", "ERROR", "engine failed"},
		{"2031/01/02 03:04:05 [ERROR] engine failed", "ERROR", "engine failed"},
		{"01/02/2031 03:04:05 AM - WARNING - disk almost full", "WARNING", "disk almost full"},
		{"[01/02/31 03:04:05] ERROR    engine failed      main.py:42", "ERROR", "engine failed      main.py:42"},
		{"[2031-01-02T03:04:05Z ERROR engine] failed", "ERROR", "failed"},
		{`level=error ts=2031-01-02T03:04:05Z caller=main.go:42 msg="engine failed"`, "ERROR", `ts=2031-01-02T03:04:05Z caller=main.go:42 msg="engine failed"`},
		{"Jan 02 03:04:05.678 ERR engine failed", "ERROR", "engine failed"},
		{"WARN  PyProcess W-188-chat-stderr: ERROR 01-02 03:04:05 [core.py:396] EngineCore failed to start.", "ERROR", "EngineCore failed to start."},
		{"Tests: 1 ERROR", "", "Tests: 1 ERROR"},
		{"| 3 | ERROR | timeout", "", "| 3 | ERROR | timeout"},
		{"the ERROR count is 3", "", "the ERROR count is 3"},
		{"    ERROR indented", "", "    ERROR indented"},
	} {
		p := ParsePrefix(c.line, 2031)
		if p.Level != c.level || p.Body != c.body {
			t.Errorf("%q: level %q body %q, want %q %q", c.line, p.Level, p.Body, c.level, c.body)
		}
	}
}
