package classify_test

import "testing"

// The API server that has just reported its engine dead fails every
// in-flight request with a request-level error of its own: those lines are
// the death's echo, shown under it, not one more alarm each. The same
// request-level error with no engine death before it stays an alarm.
func TestRequestErrorsEchoingAnEngineDeathJoinIt(t *testing.T) {
	t.Parallel()
	const death = `(EngineCore_DP0 pid=20) ERROR 01-02 03:04:05 [core.py:720] EngineCore encountered a fatal error.
(EngineCore_DP0 pid=20) ERROR 01-02 03:04:05 [core.py:720] Traceback (most recent call last):
(EngineCore_DP0 pid=20) ERROR 01-02 03:04:05 [core.py:720]   File "/x/core.py", line 711, in run_engine_core
(EngineCore_DP0 pid=20) ERROR 01-02 03:04:05 [core.py:720]     engine_core.run_busy_loop()
(EngineCore_DP0 pid=20) ERROR 01-02 03:04:05 [core.py:720] RuntimeError: CUDA error: an illegal memory access was encountered
(APIServer pid=10) ERROR 01-02 03:04:05 [async_llm.py:485] AsyncLLM output_handler failed.
(APIServer pid=10) ERROR 01-02 03:04:05 [async_llm.py:485] Traceback (most recent call last):
(APIServer pid=10) ERROR 01-02 03:04:05 [async_llm.py:485]   File "/x/async_llm.py", line 444, in output_handler
(APIServer pid=10) ERROR 01-02 03:04:05 [async_llm.py:485]     outputs = await engine_core.get_output_async()
(APIServer pid=10) ERROR 01-02 03:04:05 [async_llm.py:485] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.
`
	const echoes = `(APIServer pid=10) ERROR 01-02 03:04:05 [serving_chat.py:1145] Error in chat completion stream generator.
(APIServer pid=10) INFO:     10.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error
(APIServer pid=10) ERROR 01-02 03:04:05 [serving_chat.py:1145] Error in chat completion stream generator.
(APIServer pid=10) INFO:     10.0.0.1:5002 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error`
	run := feedBothWays(t, "vllm", death+echoes)
	if len(run.Alarms) != 2 {
		t.Fatalf("alarms %+v, want the engine's failure and the API server's EngineDeadError only", run.Alarms)
	}
	alone := feedBothWays(t, "vllm", `(APIServer pid=10) INFO:     Application startup complete.
`+echoes)
	if len(alone.Alarms) != 2 || alone.Alarms[0].Fatal {
		t.Fatalf("alarms %+v, want two request-level alarms when no engine died", alone.Alarms)
	}
}

// ggml's allocation failure on any backend heads llama.cpp's line-by-line
// report of the failed load; the lines that unwind it are the same event.
func TestGGMLAllocationFailureOnAnyBackendIsOneEvent(t *testing.T) {
	t.Parallel()
	run := feedBothWays(t, "", `llama_context: n_ctx         = 32768
ggml_vulkan: Device memory allocation of size 4294967296 failed.
ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory
alloc_tensor_range: failed to allocate Vulkan0 buffer of size 4294967296
llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache
common_init_from_params: failed to create context with model '/m/x.gguf'
srv    load_model: failed to load model, '/m/x.gguf'
main: exiting due to model loading error`)
	if len(run.Alarms) != 1 || !run.Alarms[0].Fatal || run.Alarms[0].HeadlineSeq != 2 {
		t.Fatalf("alarms %+v, want one fatal alarm headed by the Vulkan allocation failure", run.Alarms)
	}
}
