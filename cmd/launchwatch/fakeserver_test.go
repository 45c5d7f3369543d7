package main

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// fakeServer is what the test binary does when `launchwatch run` starts it
// as a child (LW_CHILD=mode): it behaves like an inference server.
func fakeServer(mode string) int {
	switch mode {
	case "traceback":
		fmt.Println("[2026-04-02 09:28:20] Load weight begin.")
		fmt.Println("[2026-04-02 09:28:21] Load weight end.")
		// One write, which run queues as one run of lines: a stdout line
		// its other pump reads late cannot cut the traceback in two.
		fmt.Fprint(os.Stderr, "Traceback (most recent call last):\n"+
			`  File "/srv/server.py", line 12, in <module>`+"\n"+
			"    load()\n"+
			"KeyError: 'model.layers.0.weight'\n")
		return 1
	case "healthy":
		// Serves /health after a moment, prints nothing about readiness,
		// and stops cleanly on SIGTERM.
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
		fmt.Println("loading the model")
		time.Sleep(300 * time.Millisecond)
		http.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
		go http.ListenAndServe(os.Getenv("LW_CHILD_ADDR"), nil) //nolint:errcheck
		fmt.Println("serving")
		<-sigs
		fmt.Println("shutting down on request")
		return 0
	case "zombie":
		// vLLM whose engine dies once /health answered, and whose API
		// server keeps answering /health 200: health endpoints that answer
		// after their engine died are a known failure of these servers.
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
		fmt.Println("(APIServer pid=2207) INFO 11-30 10:03:30 [api_server.py:1880] vLLM API server version 0.10.2")
		var died sync.Once
		http.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			died.Do(func() { go fmt.Print(engineDeath) })
		})
		go http.ListenAndServe(os.Getenv("LW_CHILD_ADDR"), nil) //nolint:errcheck
		<-sigs
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown LW_CHILD mode", mode)
	return 99
}

// engineDeath is how vLLM V1's engine core dies (from
// testdata/families/r-vllm-v1-ready-device-side-assert-engine-dead-01.log).
const engineDeath = `(EngineCore_DP0 pid=2391) ERROR 11-30 10:03:52 [core.py:720] EngineCore encountered a fatal error.
(EngineCore_DP0 pid=2391) ERROR 11-30 10:03:52 [core.py:720] Traceback (most recent call last):
(EngineCore_DP0 pid=2391) ERROR 11-30 10:03:52 [core.py:720]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 711, in run_engine_core
(EngineCore_DP0 pid=2391) ERROR 11-30 10:03:52 [core.py:720]     engine_core.run_busy_loop()
(EngineCore_DP0 pid=2391) ERROR 11-30 10:03:52 [core.py:720]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2006, in execute_model
(EngineCore_DP0 pid=2391) ERROR 11-30 10:03:52 [core.py:720]     valid_sampled_token_ids = sampled_token_ids.tolist()
(EngineCore_DP0 pid=2391) ERROR 11-30 10:03:52 [core.py:720] RuntimeError: CUDA error: device-side assert triggered
(APIServer pid=2207) ERROR 11-30 10:03:52 [async_llm.py:485] AsyncLLM output_handler failed.
(APIServer pid=2207) ERROR 11-30 10:03:52 [async_llm.py:485] Traceback (most recent call last):
(APIServer pid=2207) ERROR 11-30 10:03:52 [async_llm.py:485]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/async_llm.py", line 444, in output_handler
(APIServer pid=2207) ERROR 11-30 10:03:52 [async_llm.py:485]     outputs = await engine_core.get_output_async()
(APIServer pid=2207) ERROR 11-30 10:03:52 [async_llm.py:485] vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.
`
