package classify_test

// Formats and verdicts of the server families measured by
// testdata/families: Open MPI's tagged output, Triton's quoted messages,
// Xinference's and LMDeploy's Python logging formats, Ollama's runners and
// Xinference's relayed launch failures. Lines are made up in each server's
// own format.

import (
	"testing"

	"launchwatch/internal/classify"
)

func TestFamilyPrefixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, line                string
		level, rank, source, body string
	}{
		{"MPITagStderr", `[1,3]<stderr>:  File "/opt/app/serve.py", line 9, in <module>`, "", "rank3", "rank3", ` File "/opt/app/serve.py", line 9, in <module>`},
		{"MPITagThenTensorRTLLM", `[12,0]<stderr>:[TensorRT-LLM][ERROR] made-up failure`, "ERROR", "rank0", "rank0", "made-up failure"},
		{"NotAnMPITag", `[1,2,3] list printed by a script`, "", "", "", `[1,2,3] list printed by a script`},
		{"TritonQuoted", `I0304 05:06:07.000000 1 grpc_server.cc:2500] "Started GRPCInferenceService at 0.0.0.0:9001"`, "INFO", "", "", "Started GRPCInferenceService at 0.0.0.0:9001"},
		{"TritonQuotedEscapes", `E0304 05:06:07.000000 1 model_lifecycle.cc:641] "failed to load 'm' version 1: Internal: made-up \"x\"\n\nAt:\n"`, "ERROR", "", "", `failed to load 'm' version 1: Internal: made-up "x"\n\nAt:\n`},
		{"TritonUnquoted", `I0304 05:06:07.000000 1 http_server.cc:4700] Started HTTPService at 0.0.0.0:9000`, "INFO", "", "", "Started HTTPService at 0.0.0.0:9000"},
		{"XinferenceNamePidLevel", `2031-03-04 05:06:07,890 xinference.core.worker 4242 ERROR    Failed to load model m-0`, "ERROR", "", "", "Failed to load model m-0"},
		{"UvicornUnderXinferenceFormat", `2031-03-04 05:06:07,890 uvicorn.error 4242 INFO     Application startup complete.`, "INFO", "", "", "Application startup complete."},
		{"LMDeploySourceField", `2031-03-04 05:06:07,890 - lmdeploy - WARNING - turbomind.py:231 - made-up warning - with a dash`, "WARNING", "", "", "made-up warning - with a dash"},
		{"PythonDashFormatWithoutSource", `2031-03-04 05:06:07,890 - app - INFO - step 3 - done`, "INFO", "", "", "step 3 - done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := classify.ParsePrefix(tt.line, 2031)
			if p.Level != tt.level || p.Rank != tt.rank || p.Source != tt.source || p.Body != tt.body {
				t.Errorf("ParsePrefix(%q)\n got level %q rank %q source %q body %q\nwant level %q rank %q source %q body %q",
					tt.line, p.Level, p.Rank, p.Source, p.Body, tt.level, tt.rank, tt.source, tt.body)
			}
		})
	}
}

// TestMPITaggedTracebackIsOneEvent: with Open MPI's tag on every line, a
// rank's traceback is still read whole and headed by its exception line.
func TestMPITaggedTracebackIsOneEvent(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "trtllm", `[1,0]<stdout>:[03/04/2031-05:06:07] [TRT-LLM] [I] made-up start
[1,1]<stderr>:Traceback (most recent call last):
[1,1]<stderr>:  File "/opt/app/serve.py", line 9, in <module>
[1,1]<stderr>:    main()
[1,1]<stderr>:ValueError: made-up bad checkpoint`)
	if len(run.Alarms) != 1 || run.Alarms[0].Headline != "ValueError: made-up bad checkpoint" {
		t.Fatalf("alarms = %+v", run.Alarms)
	}
}

// TestOllamaRunnerCrashBeforeSchedulerReportIsNotFatal: the runner's own
// failure (ggml's CUDA error, a C++ terminate) is printed before the
// scheduler's report that the runner died; the report proves ollama serve
// lives on, so none of it is the server's death.
func TestOllamaRunnerCrashBeforeSchedulerReportIsNotFatal(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `time=2031-03-04T05:06:00.000Z level=INFO source=routes.go:1200 msg="Listening on 127.0.0.1:11434 (version 9.9.9)"
time=2031-03-04T05:06:05.000Z level=INFO source=server.go:400 msg="starting llama server" cmd="/usr/bin/ollama runner --model /m/blob --port 40001"
terminate called after throwing an instance of 'std::runtime_error'
  what():  made-up unknown model architecture: 'nonet'
time=2031-03-04T05:06:06.000Z level=ERROR source=sched.go:450 msg="error loading llama server" error="llama runner process has terminated: signal: aborted (core dumped)"
[GIN] 2031/03/04 - 05:06:06 | 500 |  1.000000001s |       127.0.0.1 | POST     "/api/chat"`)
	if len(run.Alarms) == 0 {
		t.Fatal("no alarm")
	}
	for _, a := range run.Alarms {
		if a.Fatal {
			t.Errorf("alarm %q is fatal: ollama serve outlives its runner", a.Headline)
		}
	}
}

// TestOllamaReportForgivesOnlyWhatCameBefore: a failure after the
// scheduler's report is not covered by it.
func TestOllamaReportForgivesOnlyWhatCameBefore(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `time=2031-03-04T05:06:00.000Z level=INFO source=routes.go:1200 msg="Listening on 127.0.0.1:11434 (version 9.9.9)"
time=2031-03-04T05:06:06.000Z level=ERROR source=sched.go:450 msg="error loading llama server" error="llama runner process has terminated: exit status 2"
panic: made-up nil map write

goroutine 1 [running]:
main.main()
	/src/main.go:10 +0x1d
exit status 2`)
	fatal := 0
	for _, a := range run.Alarms {
		if a.Fatal {
			fatal++
		}
	}
	if fatal != 1 {
		t.Fatalf("fatal alarms = %d, want the later Go panic only: %+v", fatal, run.Alarms)
	}
}

// TestXinferenceLaunchFailureIsRequestLevel: a model launch that fails is
// logged by the worker and relayed by the REST API (answering 500); the
// server keeps running.
func TestXinferenceLaunchFailureIsRequestLevel(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `2031-03-04 05:06:00,000 xinference.core.supervisor 4000 INFO     Xinference supervisor 0.0.0.0:40000 started
2031-03-04 05:06:01,000 uvicorn.error 4000 INFO     Application startup complete.
2031-03-04 05:07:00,000 xinference.core.worker 4100 ERROR    Failed to load model made-up-0
Traceback (most recent call last):
  File "/opt/xinference/core/worker.py", line 900, in launch_builtin_model
    await model_ref.load()
torch.OutOfMemoryError: [address=0.0.0.0:40001, pid=4200] CUDA out of memory. Tried to allocate 1.00 GiB.
2031-03-04 05:07:00,100 xinference.api.restful_api 4000 ERROR    [address=0.0.0.0:40000, pid=4100] [address=0.0.0.0:40001, pid=4200] CUDA out of memory. Tried to allocate 1.00 GiB.
Traceback (most recent call last):
  File "/opt/xinference/api/restful_api.py", line 1000, in launch_model
    model_uid = await supervisor.launch_builtin_model(
torch.OutOfMemoryError: [address=0.0.0.0:40000, pid=4100] CUDA out of memory. Tried to allocate 1.00 GiB.`)
	if len(run.Alarms) != 2 {
		t.Fatalf("alarms = %+v", run.Alarms)
	}
	for _, a := range run.Alarms {
		if a.Fatal {
			t.Errorf("alarm %q is fatal: Xinference survives a failed model launch", a.Headline)
		}
	}
}

// TestTritonRequestFailureIsRequestLevel: the python backend's report that
// one batch of requests failed is not the server's death.
func TestTritonRequestFailureIsRequestLevel(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `I0304 05:06:07.000000 1 grpc_server.cc:2500] "Started GRPCInferenceService at 0.0.0.0:9001"
E0304 05:07:07.000000 1 python_be.cc:1300] "Failed to process the request(s) for model instance 'm_0_0', message: ValueError: made-up\n\nAt:\n  /models/m/1/model.py(12): execute\n"`)
	if len(run.Alarms) != 1 || run.Alarms[0].Fatal {
		t.Fatalf("alarms = %+v", run.Alarms)
	}
	if run.Ready == nil {
		t.Fatal("quoted Started GRPCInferenceService is not read as ready")
	}
}
