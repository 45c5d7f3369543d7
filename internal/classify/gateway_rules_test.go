package classify_test

import (
	"strings"
	"testing"
)

// The rules the blind set dv- (gateways and proxies in front of model
// servers, round 3 session 12) asked for, each on lines written from the
// format it reads; every value is made up.

// A proxy in front of the server answers the requests it could not pass
// on: nginx's error records name the request, Caddy's JSON records carry
// it with the status. Those are the proxy's answers, not the launch's
// failure, however the lines are batched.
func TestProxyRequestErrorsAreNotTheLaunchsFailure(t *testing.T) {
	t.Parallel()
	const head = `gw-1    | 2031/02/03 04:05:00 [notice] 1#1: start worker processes
llm-1   | INFO 02-03 04:05:01 [api_server.py:1805] vLLM API server version 0.10.1
llm-1   | INFO 02-03 04:05:09 [gpu_model_runner.py:1800] Starting to load model acme/model-8b...
`
	for name, tail := range map[string]string{
		"nginx": `gw-1    | 2031/02/03 04:05:20 [error] 29#29: *3 connect() failed (111: Connection refused) while connecting to upstream, client: 10.0.0.9, server: _, request: "GET /v1/models HTTP/1.1", upstream: "http://10.0.0.4:8000/v1/models", host: "gw"
gw-1    | 2031/02/03 04:05:30 [error] 29#29: *5 upstream timed out (110: Connection timed out) while reading response header from upstream, client: 10.0.0.9, server: _, request: "GET /health HTTP/1.1", upstream: "http://10.0.0.4:8000/health", host: "gw"`,
		"caddy": `gw-1    | {"level":"error","ts":1927170320.5,"logger":"http.log.error","msg":"dial tcp 10.0.0.4:8000: connect: connection refused","request":{"remote_ip":"10.0.0.9","method":"GET","uri":"/v1/models"},"duration":0.001,"status":502}
gw-1    | {"level":"error","ts":1927170330.5,"logger":"http.log.error","msg":"dial tcp 10.0.0.4:8000: connect: connection refused","request":{"remote_ip":"10.0.0.9","method":"GET","uri":"/health"},"duration":0.001,"status":502}`,
	} {
		run := feedBothWays(t, "vllm", head+tail)
		if len(run.Alarms) != 0 || run.Final != "loading" {
			t.Errorf("%s: final %s, alarms %+v, want a loading launch without alarms", name, run.Final, run.Alarms)
		}
	}

	// The same proxy's own failure is still one.
	run := feedBothWays(t, "vllm", head+`gw-1    | {"level":"error","ts":1927170320.5,"logger":"http","msg":"loading config: unknown directive 'reverse_prox'"}`)
	if len(run.Alarms) != 1 || run.Alarms[0].Fatal {
		t.Errorf("alarms %+v, want the proxy's own failure as an alarm of a service beside the launch", run.Alarms)
	}
}

// A gateway beside the server logs the traceback of its call to the
// server, which is still loading, and answers its client: a neighbour that
// could not reach the launch says nothing about the launch.
func TestGatewayNetworkFailureBesideTheServerIsWithdrawn(t *testing.T) {
	t.Parallel()
	const log = `llm-1  | [2031-02-03 04:05:00] server_args=ServerArgs(model_path='acme/model-8b', port=30000)
llm-1  | [2031-02-03 04:05:05 TP0] Load weight begin. avail mem=78.00 GB
gw-1   | 04:05:10 - Proxy:ERROR: proxy_server.py:3686 - chat_completion(): Exception occured - APIConnectionError: Connection error.
gw-1   | Traceback (most recent call last):
gw-1   |   File "/usr/lib/python3.12/site-packages/httpx/_transports/default.py", line 101, in map_httpcore_exceptions
gw-1   |     yield
gw-1   |   File "/usr/lib/python3.12/site-packages/acme_gateway/router.py", line 812, in call_backend
gw-1   |     raise original_exception
gw-1   | acme_gateway.exceptions.APIConnectionError: APIConnectionError: Connection error.
gw-1   | INFO:     172.19.0.1:40588 - "POST /v1/chat/completions HTTP/1.1" 500 Internal Server Error
llm-1  | [2031-02-03 04:05:20 TP0] Load weight end. type=AcmeForCausalLM, dtype=torch.bfloat16, avail mem=62.00 GB
llm-1  | [2031-02-03 04:05:40] The server is fired up and ready to roll!`
	run := feedBothWays(t, "sglang", log)
	if len(run.Alarms) != 0 || run.Ready == nil {
		t.Errorf("ready=%v alarms %+v, want ready without alarms", run.Ready, run.Alarms)
	}
	// The server's own traceback of the same kind is no neighbour's.
	own := strings.ReplaceAll(log, "gw-1   |", "llm-1  |")
	if run := feedBothWays(t, "sglang", own); len(run.Alarms) == 0 {
		t.Errorf("the server's own traceback was withdrawn")
	}
}

// A traceback while serving that ends in a network failure and is
// answered 4xx right after was that request's failed call, handled and
// answered (a gateway's timeout reaching its backend, answered 408).
func TestNetworkFailureAnswered4xxIsHandled(t *testing.T) {
	t.Parallel()
	const log = `INFO:     Application startup complete.
INFO:     Uvicorn running on http://0.0.0.0:4000 (Press CTRL+C to quit)
Traceback (most recent call last):
  File "/opt/gw/lib/python3.12/site-packages/httpcore/_async/http11.py", line 217, in _receive_event
    data = await self._network_stream.read(
httpcore.ReadTimeout

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/opt/gw/lib/python3.12/site-packages/acme_gateway/http_handler.py", line 215, in post
    raise acme_gateway.Timeout(
acme_gateway.exceptions.Timeout: backend timed out after 10.0 seconds
INFO:     127.0.0.1:50711 - "POST /v1/chat/completions HTTP/1.1" %s
INFO:     127.0.0.1:50712 - "POST /v1/chat/completions HTTP/1.1" 200 OK
INFO:     127.0.0.1:50713 - "POST /v1/chat/completions HTTP/1.1" 200 OK`
	run := feedBothWays(t, "", strings.Replace(log, "%s", "408 Request Timeout", 1))
	if len(run.Alarms) != 0 || run.Ready == nil {
		t.Errorf("408: ready=%v alarms %+v, want ready without alarms", run.Ready, run.Alarms)
	}
	run = feedBothWays(t, "", strings.Replace(log, "%s", "500 Internal Server Error", 1))
	if len(run.Alarms) != 1 || run.Alarms[0].Fatal {
		t.Errorf("500: alarms %+v, want one survived request error", run.Alarms)
	}
}
