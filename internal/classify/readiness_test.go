package classify_test

import (
	"strings"
	"testing"

	"launchwatch/internal/classify"
)

// readyAt feeds log (one line per seq) to a new launch of server and returns
// the seq of its readiness line, 0 if none, and the family it ended with.
func readyAt(t *testing.T, server, log string) (int64, string) {
	t.Helper()
	st := classify.New(server)
	var lines []classify.Line
	for i, l := range strings.Split(log, "\n") {
		lines = append(lines, classify.Line{Seq: int64(i + 1), Text: l})
	}
	st.Feed(lines)
	// Read once the stream ended: a uvicorn readiness line that waits for
	// its bind is readiness when nothing follows it (awaitBind).
	st.Settle(classify.SettleStreamEnd)
	if r := st.Summary().Ready; r != nil {
		return r.Seq, st.Server()
	}
	return 0, st.Server()
}

// TestReadinessPerFamily checks each family's own "now serving" line, in the
// forms its source code prints, on made-up logs; and that the lines printed
// before a server can answer (llama.cpp's early "HTTP server is listening",
// SGLang's uvicorn lines, a TGI shard's "Shard ready") are not readiness.
func TestReadinessPerFamily(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, server, log string
		ready             int64
	}{
		{
			name: "OllamaListeningSlog",
			log: `time=2031-02-03T04:05:06.000Z level=INFO source=routes.go:1200 msg="server config" env="map[OLLAMA_HOST:http://0.0.0.0:11434]"
time=2031-02-03T04:05:06.100Z level=INFO source=images.go:700 msg="total blobs: 3"
time=2031-02-03T04:05:06.200Z level=INFO source=routes.go:1311 msg="Listening on [::]:11434 (version 0.9.9)"
time=2031-02-03T04:05:06.300Z level=INFO source=gpu.go:200 msg="looking for compatible GPUs"`,
			ready: 3,
		},
		{
			name: "OllamaListeningLogPrintf",
			log: `2031/02/03 04:05:06 images.go:800: total blobs: 2
2031/02/03 04:05:06 routes.go:777: Listening on 127.0.0.1:11434 (version 0.1.17)`,
			ready: 2,
		},
		{
			name: "OllamaRunnerStarted",
			log: `time=2031-02-03T04:05:06.000Z level=INFO source=server.go:398 msg="starting llama server" cmd="/usr/bin/ollama runner --model /m/blob --port 40001"
llama_model_loader: loaded meta data with 20 key-value pairs and 100 tensors from /m/blob (version GGUF V3 (latest))
time=2031-02-03T04:05:08.000Z level=INFO source=server.go:1402 msg="llama runner started in 2.50 seconds"`,
			ready: 3,
		},
		{
			name: "LlamaCppLogInfEraNotTheEarlyListeningLine",
			log: `build: 9999 (abcdef12) with cc (GCC) 99.1 for x86_64-linux-gnu
main: HTTP server is listening, hostname: 127.0.0.1, port: 8181, http threads: 7
main: loading model
srv    load_model: loading model '/models/tiny-q4.gguf'
llama_model_loader: loaded meta data with 20 key-value pairs and 100 tensors from /models/tiny-q4.gguf (version GGUF V3 (latest))
main: model loaded
main: chat template, chat_template: chatml, example_format: '<|im_start|>'
main: server is listening on http://127.0.0.1:8181 - starting the main loop
srv  update_slots: all slots are idle`,
			ready: 6,
		},
		{
			name: "LlamaCppPreLoadListeningIsNotReady",
			log: `main: HTTP server is listening, hostname: 0.0.0.0, port: 9000, http threads: 3
main: loading model
srv    load_model: loading model '/models/big-q8.gguf'
llama_model_load: error loading model: tensor 'blk.0.attn_q.weight' data is not within the file bounds`,
			ready: 0,
		},
		{
			name: "LlamaCppCurrentSrvTags",
			log: `srv          init: using 15 threads for HTTP server
srv    load_model: loading model '/models/tiny-q4.gguf'
srv  llama_server: model loaded
srv  llama_server: server is listening on http://0.0.0.0:9000`,
			ready: 3,
		},
		{
			name: "LlamaCppServerListeningOnAlone",
			log: `srv    load_model: loading model '/models/tiny-q4.gguf'
srv  llama_server: server is listening on http://0.0.0.0:9000`,
			ready: 2,
		},
		{
			name: "LlamafileJSONLog",
			log: `{"build":9999,"commit":"abc1234","function":"server_cli","level":"INFO","line":2800,"msg":"build info","tid":"1","timestamp":1900000000}
llama server listening at http://127.0.0.1:8181
{"function":"server_cli","hostname":"127.0.0.1","level":"INFO","line":2900,"msg":"HTTP server listening","port":"8181","tid":"1","timestamp":1900000000}
llama_model_loader: loaded meta data with 20 key-value pairs and 100 tensors from /zip/tiny.gguf (version GGUF V3 (latest))
{"function":"server_cli","level":"INFO","line":3000,"msg":"model loaded","tid":"1","timestamp":1900000004}
{"function":"update_slots","level":"INFO","line":1600,"msg":"all slots are idle and system prompt is empty, clear the KV cache","tid":"1","timestamp":1900000004}`,
			ready: 5,
		},
		{
			name: "TGIRouterConnectedNotShardReady",
			log: `2031-02-03T04:05:06.000001Z  INFO text_generation_launcher: Starting shard rank=0
2031-02-03T04:05:09.000001Z  INFO text_generation_launcher: Server started at unix:///tmp/text-generation-server-0
2031-02-03T04:05:09.100001Z  INFO shard-manager: text_generation_launcher: Shard ready in 3.1s rank=0
2031-02-03T04:05:09.200001Z  INFO text_generation_launcher: Starting Webserver
2031-02-03T04:05:10.000001Z  INFO text_generation_router_v3: backends/v3/src/lib.rs:130: Setting max batch total tokens to 4096
2031-02-03T04:05:10.100001Z  INFO text_generation_router::server: router/src/server.rs:1999: Connected`,
			ready: 6,
		},
		{
			name: "TGIRouterConnectedJSON",
			log: `{"timestamp":"2031-02-03T04:05:09.100001Z","level":"INFO","fields":{"message":"Shard ready in 3.1s"},"target":"text_generation_launcher","span":{"rank":0,"name":"shard-manager"}}
{"timestamp":"2031-02-03T04:05:10.100001Z","level":"INFO","fields":{"message":"Connected"},"target":"text_generation_router::server","filename":"router/src/server.rs","line_number":1999}`,
			ready: 2,
		},
		{
			name: "TritonEitherEndpoint",
			log: `I0203 04:05:06.100000 77 model_repository_manager.cc:1300] loading: tiny_model:1
I0203 04:05:08.100000 77 model_lifecycle.cc:800] successfully loaded 'tiny_model'
I0203 04:05:08.200000 77 grpc_server.cc:2500] Started GRPCInferenceService at 0.0.0.0:9001
I0203 04:05:08.200100 77 http_server.cc:4700] Started HTTPService at 0.0.0.0:9000`,
			ready: 3,
		},
		{
			name: "TritonHTTPOnly",
			log: `I0203 04:05:08.100000 77 model_lifecycle.cc:800] successfully loaded 'tiny_model'
I0203 04:05:08.200100 77 http_server.cc:4700] Started HTTPService at 0.0.0.0:9000`,
			ready: 2,
		},
		{
			name: "TrtllmServeUvicorn",
			log: `[TensorRT-LLM][INFO] Loaded engine size: 900 MiB
[02/03/2031-04:05:06] [TRT-LLM] [I] made-up executor notice
INFO:     Started server process [4242]
INFO:     Waiting for application startup.
INFO:     Application startup complete.
INFO:     Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)`,
			ready: 6, // uvicorn bound its socket: "Application startup complete." comes before the bind
		},
		{
			name: "UvicornErrorLoggerBasicConfig",
			log: `INFO:uvicorn.error:Started server process [4242]
INFO:uvicorn.error:Waiting for application startup.
INFO:uvicorn.error:Application startup complete.`,
			ready: 3,
		},
		{
			name: "UvicornErrorLoggerDashFormat",
			log: `2031-02-03 04:05:06,789 - uvicorn.error - INFO - Waiting for application startup.
2031-02-03 04:05:06,790 - uvicorn.error - INFO - Application startup complete.`,
			ready: 2,
		},
		{
			name: "XinferenceMentioningOtherEnginesStillReady",
			log: `2031-02-03 04:05:06,000 xinference.core.supervisor 4242 WARNING  sglang is not installed, the sglang engine is unavailable
2031-02-03 04:05:06,001 xinference.core.supervisor 4242 WARNING  Failed to import vllm: No module named 'vllm'
2031-02-03 04:05:06,100 xinference.core.supervisor 4242 INFO     Xinference supervisor 0.0.0.0:40000 started
2031-02-03 04:05:07,000 uvicorn.error 4242 INFO     Application startup complete.`,
			ready: 4,
		},
		{
			name:   "SGLangUvicornIsNotReadyFiredUpIs",
			server: "",
			log: `[2031-02-03 04:05:06] server_args=ServerArgs(model_path='m', port=30000)
[2031-02-03 04:05:08 TP0] Load weight end. type=LlamaForCausalLM, avail mem=70.00 GB
[2031-02-03 04:05:09] INFO:     Started server process [4242]
[2031-02-03 04:05:09] INFO:     Application startup complete.
[2031-02-03 04:05:12] The server is fired up and ready to roll!`,
			ready: 5,
		},
		{
			name: "GradioAndTextgenAPI",
			log: `04:05:06-000001 INFO     Loading "tiny-model"
04:05:09-000001 INFO     Loaded "tiny-model" in 3.00 seconds.
Running on local URL:  http://127.0.0.1:7999`,
			ready: 3,
		},
		{
			name: "TextgenOpenAIAPIURL",
			log: `04:05:09-000001 INFO     Loaded "tiny-model" in 3.00 seconds.
04:05:09-100001 INFO     OpenAI-compatible API URL:

http://127.0.0.1:5999/v1`,
			ready: 2,
		},
		{
			name: "QuotedReadinessLinesAreNotReady",
			log: `server_args: {'ready_line': 'Application startup complete.', 'port': 8000}
  --wait   block until uvicorn prints Application startup complete, then return
# ready when the log shows: Started GRPCInferenceService at 0.0.0.0:8001 (or HTTP)
note: wait for 'Listening on' in the server log
  --port PORT    port the server is listening on (default: 8080)`,
			ready: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got, fam := readyAt(t, tt.server, tt.log); got != tt.ready {
				t.Errorf("ready at line %d, want %d (family %q)", got, tt.ready, fam)
			}
		})
	}
}
