package classify_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/classify"
	"launchwatch/internal/eval"
)

// The lines below are made up in each format's shape, from the collectors'
// and loggers' documentation and source; the values are invented.

type prefixWant struct {
	line                              string
	level, rank, source, origin, body string
	time                              time.Time
	tagged                            bool
}

func checkPrefixes(t *testing.T, tests []prefixWant) {
	t.Helper()
	for _, tt := range tests {
		p := classify.ParsePrefix(tt.line, 2026)
		if p.Level != tt.level || p.Rank != tt.rank || p.Source != tt.source || p.Origin != tt.origin ||
			p.Body != tt.body || !p.Time.Equal(tt.time) || p.Tagged != tt.tagged {
			t.Errorf("ParsePrefix(%q)\n got level %q rank %q source %q origin %q tagged %v time %v body %q\nwant level %q rank %q source %q origin %q tagged %v time %v body %q",
				tt.line, p.Level, p.Rank, p.Source, p.Origin, p.Tagged, p.Time, p.Body,
				tt.level, tt.rank, tt.source, tt.origin, tt.tagged, tt.time, tt.body)
		}
	}
}

func at(h, m, s, ns int) time.Time { return time.Date(2026, 2, 3, h, m, s, ns, time.UTC) }

func TestPeelCRI(t *testing.T) {
	t.Parallel()
	checkPrefixes(t, []prefixWant{
		// The server's own time wins over the runtime's.
		{line: "2026-02-03T04:05:07.123456789Z stderr F ERROR 02-03 04:05:06 [core.py:12] EngineCore failed to start.",
			level: "ERROR", body: "EngineCore failed to start.", time: at(4, 5, 6, 0), tagged: true},
		// No time of its own: the runtime's.
		{line: "2026-02-03T04:05:07.5Z stdout F   File \"/srv/app.py\", line 7, in main",
			body: "  File \"/srv/app.py\", line 7, in main", time: at(4, 5, 7, 500000000)},
		{line: "2026-02-03T12:05:07.25+08:00 stdout P a partial line of a long", body: "a partial line of a long", time: at(4, 5, 7, 250000000)},
		{line: "2026-02-03T04:05:07.1Z stdout F", time: at(4, 5, 7, 100000000)},
		// Look-alikes keep their text: no stream, or an unknown tag.
		{line: "2026-02-03T04:05:07Z stdout is closed", body: "stdout is closed", time: at(4, 5, 7, 0), tagged: true},
		{line: "2026-02-03T04:05:07Z stdout X hello", body: "stdout X hello", time: at(4, 5, 7, 0), tagged: true},
	})
}

func TestPeelCompose(t *testing.T) {
	t.Parallel()
	checkPrefixes(t, []prefixWant{
		{line: "api-server-2  | INFO:     Started server process [7]", origin: "api-server-2", level: "INFO",
			body: "Started server process [7]", tagged: true},
		{line: "llm_worker_1      | Traceback (most recent call last):", origin: "llm_worker_1", body: "Traceback (most recent call last):"},
		{line: "\x1b[36mgpu-box-3  | \x1b[0m    raise ValueError(\"x\")", origin: "gpu-box-3", body: "    raise ValueError(\"x\")"},
		{line: "web-1  |", origin: "web-1"},
		// A container_name has no replica number: one with a separator, or
		// a service's plain name.
		{line: "open-webui  | INFO:     Application startup complete.", origin: "open-webui", level: "INFO",
			body: "Application startup complete.", tagged: true},
		{line: "ollama      | Error: listen tcp :11434: bind: address already in use", origin: "ollama",
			body: "Error: listen tcp :11434: bind: address already in use"},
		// Look-alikes: no replica number, one space, nothing after the bar.
		{line: "Total  | 5 requests", body: "Total  | 5 requests"},
		{line: "Throughput  | 5 req/s", body: "Throughput  | 5 req/s"},
		{line: "9-layer  | 5 ms", body: "9-layer  | 5 ms"},
		{line: "gpu-0 | 81920MiB", body: "gpu-0 | 81920MiB"},
		// The longest name, padded to its own length: one space.
		{line: "open-webui-1 | INFO:     Application startup complete.", origin: "open-webui-1", level: "INFO",
			body: "Application startup complete.", tagged: true},
		{line: "Total | 5 requests", body: "Total | 5 requests"},
		{line: "layer-12  |x", body: "layer-12  |x"},
	})
}

// srun --label's task numbers, written from srun's "%*d: " label format:
// each task is an origin; a Rust backtrace's frames, padded to four, and a
// clock are not labels.
func TestPeelSrunLabel(t *testing.T) {
	t.Parallel()
	checkPrefixes(t, []prefixWant{
		{line: "0: INFO 04-02 13:00:14 [server.py:41] loading weights", origin: "task0", level: "INFO",
			body: "loading weights", time: time.Date(2026, 4, 2, 13, 0, 14, 0, time.UTC), tagged: true},
		{line: "1: [rank8]:[E402 13:10:16.020419338 ProcessGroupNCCL.cpp:632] [Rank 8] Watchdog caught collective operation timeout",
			origin: "task1", level: "ERROR", rank: "rank8", source: "rank8",
			body: "[Rank 8] Watchdog caught collective operation timeout", tagged: true},
		{line: " 3: Traceback (most recent call last):", origin: "task3", body: "Traceback (most recent call last):"},
		{line: "12: ", origin: "task12"},
		{line: "12:", origin: "task12"}, // a blank line's label, its space trimmed
		{line: "   0: std::panicking::begin_panic", body: "   0: std::panicking::begin_panic"},
		{line: "  12: tokio::runtime::park", body: "  12: tokio::runtime::park"},
		{line: "123456: six digits", body: "123456: six digits"},
		{line: "3:04PM INF loading model", level: "INFO", body: "loading model", tagged: true},
	})
}

func TestPeelJournaldAndSyslog(t *testing.T) {
	t.Parallel()
	checkPrefixes(t, []prefixWant{
		{line: "Feb  3 04:05:06 node-a vllm-serve[4242]: INFO 02-03 04:05:09 [api_server.py:9] Starting vLLM API server",
			origin: "node-a/vllm-serve[4242]", level: "INFO", body: "Starting vLLM API server", time: at(4, 5, 9, 0), tagged: true},
		{line: "Feb 03 04:05:06 node-a kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.",
			origin: "node-a/kernel", body: "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.", time: at(4, 5, 6, 0)},
		{line: "Feb 03 04:05:06.250000 node-a app[1]: ready", origin: "node-a/app[1]", body: "ready", time: at(4, 5, 6, 250000000)},
		{line: "2026-02-03T05:05:06+0100 node-a app[9]: ready", origin: "node-a/app[9]", body: "ready", time: at(4, 5, 6, 0)},
		{line: "2026-02-03T05:05:06.5+01:00 node-a app[9]: ready", origin: "node-a/app[9]", body: "ready", time: at(4, 5, 6, 500000000)},
		{line: "<14>Feb  3 04:05:06 node-a app[77]: WARNING: low disk", origin: "node-a/app[77]", level: "WARNING",
			body: "low disk", time: at(4, 5, 6, 0), tagged: true},
		{line: "<11>Feb  3 04:05:06 app[77]: hostless relay line", origin: "app[77]", body: "hostless relay line", time: at(4, 5, 6, 0)},
		{line: `<165>1 2026-02-03T04:05:06.789Z node-b llm 5150 ID47 [meta k="v\]x" n="1"][more a="b"] Traceback (most recent call last):`,
			origin: "node-b/llm[5150]", body: "Traceback (most recent call last):", time: at(4, 5, 6, 789000000)},
		{line: "<13>1 - - - - - - plain message", body: "plain message"},
		{line: "<13>1 2026-02-03T04:05:06Z node-b llm - - -", origin: "node-b/llm", time: at(4, 5, 6, 0)},
		// Look-alikes keep their text.
		{line: "Mar 3 is when the cluster moved", body: "Mar 3 is when the cluster moved"},
		// No host: no syslog envelope (no origin, no time), but a level
		// word after prefix-like fields, which headLevel reads.
		{line: "Jan 28 10:04:05 WARNING loader: slow disk", level: "WARNING", body: "loader: slow disk", tagged: true},
		{line: "2026-02-03T04:05:06Z ERROR text_generation_router: boom", level: "ERROR", body: "text_generation_router: boom",
			time: at(4, 5, 6, 0), tagged: true},
		{line: "2026-02-03T04:05:06 node-a app[9]: no zone", body: "node-a app[9]: no zone", time: at(4, 5, 6, 0), tagged: true},
		{line: "<13>1 2026-02-03T04:05:06Z truncated", body: "<13>1 2026-02-03T04:05:06Z truncated"},
		{line: "<br> is not a priority", body: "<br> is not a priority"},
		{line: "<13>Hello there", body: "<13>Hello there"},
	})
}

func TestPeelKubectl(t *testing.T) {
	t.Parallel()
	checkPrefixes(t, []prefixWant{
		{line: "[pod/llm-7d9f-abcde/engine] [2026-02-03 04:05:06 TP1] Load weight begin.", origin: "pod/llm-7d9f-abcde/engine",
			rank: "TP1", source: "TP1", body: "Load weight begin.", time: at(4, 5, 6, 0), tagged: true},
		{line: "[pod/a-0/c] Feb 03 04:05:06 h p[1]: WARNING 02-03 04:05:06 [x.py:1] nested", origin: "pod/a-0/c|h/p[1]",
			level: "WARNING", body: "nested", time: at(4, 5, 6, 0), tagged: true},
		// Look-alikes.
		{line: "[pod/Not A Name/x] hi", body: "[pod/Not A Name/x] hi"},
		{line: "[podcast] episode 3", body: "[podcast] episode 3"},
		{line: "[pod/x] missing container", body: "[pod/x] missing container"},
	})
}

func TestPeelJSON(t *testing.T) {
	t.Parallel()
	checkPrefixes(t, []prefixWant{
		// Docker json-file around a vLLM line; fluentd's Kubernetes metadata names the pod.
		{line: `{"log":"ERROR 02-03 04:05:06 [core.py:1] worker died\n","stream":"stderr","time":"2026-02-03T04:05:07.1Z"}`,
			level: "ERROR", body: "worker died", time: at(4, 5, 6, 0), tagged: true},
		{line: `{"log":"  File \"/a.py\", line 2, in f\n","stream":"stdout","kubernetes":{"pod_name":"llm-0","container_name":"srv"}}`,
			origin: "pod/llm-0/srv", body: `  File "/a.py", line 2, in f`},
		// journalctl -o json.
		{line: `{"__REALTIME_TIMESTAMP":"1770091506000000","_HOSTNAME":"n1","SYSLOG_IDENTIFIER":"ollama","_PID":"31","PRIORITY":"6","MESSAGE":"time=2026-02-03T04:05:06.000Z level=INFO source=routes.go:1 msg=\"Listening on 127.0.0.1:11434\""}`,
			origin: "n1/ollama[31]", level: "INFO", time: at(4, 5, 6, 0), tagged: true,
			body: `time=2026-02-03T04:05:06.000Z level=INFO source=routes.go:1 msg="Listening on 127.0.0.1:11434"`},
		// Google Cloud Logging's export: the line inside is peeled on, its own level wins over the agent's severity.
		{line: `{"insertId":"x1","textPayload":"INFO 02-03 04:05:06 [core.py:1] engine up","resource":{"type":"k8s_container","labels":{"pod_name":"llm-1","container_name":"vllm"}},"timestamp":"2026-02-03T04:05:07.25Z","severity":"ERROR"}`,
			origin: "pod/llm-1/vllm", level: "INFO", body: "engine up", time: at(4, 5, 6, 0), tagged: true},
		{line: `{"textPayload":"  File \"/a.py\", line 2, in f","timestamp":"2026-02-03T04:05:07.25Z","severity":"ERROR"}`,
			body: `  File "/a.py", line 2, in f`, time: at(4, 5, 7, 250000000)},
		// Its export of a structured record: the payload is the record, its
		// level moved to the record's severity.
		{line: `{"jsonPayload":{"message":"engine failed to start"},"timestamp":"2026-02-03T04:05:07.25Z","severity":"ERROR"}`,
			body: "engine failed to start", level: "ERROR", time: at(4, 5, 7, 250000000), tagged: true},
		// tracing-subscriber, as TGI's launcher writes it: the span and the target as in its text format.
		{line: `{"timestamp":"2026-02-03T04:05:06.5Z","level":"INFO","fields":{"message":"Starting shard"},"target":"text_generation_launcher","span":{"rank":1,"name":"shard-manager"},"spans":[{"rank":1,"name":"shard-manager"}]}`,
			level: "INFO", body: "shard-manager: text_generation_launcher: Starting shard rank=1", time: at(4, 5, 6, 500000000), tagged: true},
		// ... and as its router writes it (flatten_event, file and line).
		{line: `{"timestamp":"2026-02-03T04:05:06.5Z","level":"WARN","message":"Model supports up to 8192","target":"text_generation_router","filename":"router/src/main.rs","line_number":211}`,
			level: "WARNING", body: "text_generation_router: router/src/main.rs:211: Model supports up to 8192", time: at(4, 5, 6, 500000000), tagged: true},
		// python-json-logger with an exception: the final exception line joins the message.
		{line: `{"asctime": "2026-02-03 04:05:06,789", "levelname": "ERROR", "name": "vllm.engine", "message": "Engine loop crashed", "exc_info": "Traceback (most recent call last):\n  File \"x.py\", line 3, in run\nRuntimeError: made-up failure"}`,
			level: "ERROR", body: "Engine loop crashed: RuntimeError: made-up failure", time: at(4, 5, 6, 789000000), tagged: true},
		// python-json-logger's default format has the message alone.
		{line: `{"message": "Application startup complete."}`, body: "Application startup complete.", tagged: true},
		{line: `{"message": "Shard output:\n\nTraceback (most recent call last):\nValueError: no\n"}`, body: "Shard output: ValueError: no", tagged: true},
		// llama.cpp's server --log-format json: Unix seconds, "ERR", extra fields as key=value.
		{line: `{"tid":"1401","timestamp":1770091506,"level":"INFO","function":"main","line":3102,"msg":"HTTP server listening","hostname":"0.0.0.0","port":"8081","n_threads_http":"3"}`,
			level: "INFO", body: "HTTP server listening hostname=0.0.0.0 n_threads_http=3 port=8081", time: at(4, 5, 6, 0), tagged: true},
		{line: `{"tid":"9","timestamp":1770091506,"level":"ERR","function":"load_model","line":12,"msg":"unable to load model","model":"/m/x.gguf"}`,
			level: "ERROR", body: "unable to load model model=/m/x.gguf", time: at(4, 5, 6, 0), tagged: true},
		// Go slog's JSON handler; an attribute with spaces is quoted as slog's text handler does.
		{line: `{"time":"2026-02-03T05:05:06.123+01:00","level":"ERROR","source":{"function":"main.run","file":"/x/server.go","line":12},"msg":"runner failed","error":"exit status 2"}`,
			level: "ERROR", body: `runner failed error="exit status 2"`, time: at(4, 5, 6, 123000000), tagged: true},
		// pino/bunyan numeric levels and millisecond times.
		{line: `{"level":50,"time":1770091506000,"pid":3,"hostname":"h","msg":"bad gateway"}`, level: "ERROR",
			body: "bad gateway hostname=h pid=3", time: at(4, 5, 6, 0), tagged: true},
		// loguru serialize=True.
		{line: `{"text":"careful\n","record":{"level":{"name":"WARNING","no":30},"message":"careful","time":{"repr":"2026-02-03 04:05:06.000001+00:00","timestamp":1770091506.000001}}}`,
			level: "WARNING", body: "careful", time: at(4, 5, 6, 1000), tagged: true},
		// Colour codes inside the JSON string.
		{line: `{"msg":"\u001b[31mERROR\u001b[0m: boom"}`, level: "ERROR", body: "boom", tagged: true},
		// CRI around a JSON record; a bare runtime timestamp before one.
		{line: `2026-02-03T04:05:07Z stderr F {"level":"error","ts":1770091506.25,"caller":"srv/main.go:9","msg":"listen failed"}`,
			level: "ERROR", body: "listen failed", time: at(4, 5, 6, 250000000), tagged: true},
		{line: `2026-02-03T04:05:07Z {"level":"WARN","msg":"slow"}`, level: "WARNING", body: "slow", time: at(4, 5, 7, 0), tagged: true},
		// Not log records: malformed, or no message.
		{line: `{"level":"ERROR","msg":"x"`, body: `{"level":"ERROR","msg":"x"`},
		{line: `{"model":"m","tensor_parallel_size":2}`, body: `{"model":"m","tensor_parallel_size":2}`},
		{line: `{"log": 3, "stream": "stdout"}`, body: `{"log": 3, "stream": "stdout"}`},
	})
}

func TestColourWrittenAsText(t *testing.T) {
	t.Parallel()
	checkPrefixes(t, []prefixWant{
		{line: "^[[1;36m(EngineCore_DP0 pid=9)^[[0;0m ERROR 02-03 04:05:06 [core.py:1] boom", level: "ERROR", rank: "DP0",
			source: "EngineCore_DP0 pid=9", body: "boom", time: at(4, 5, 6, 0), tagged: true},
		{line: "\u241b[31mERROR\u241b[0m: something broke", level: "ERROR", body: "something broke", tagged: true},
		{line: "INFO:     done^M", level: "INFO", body: "done", tagged: true},
		{line: "x ^[ y \u241b z", body: "x ^[ y \u241b z"},
		{line: "web-1  | ^[[33mWARNING^[[0m 02-03 04:05:06 [x.py:1] hot", origin: "web-1", level: "WARNING", body: "hot",
			time: at(4, 5, 6, 0), tagged: true},
	})
}

// feedLines classifies lines of one launch as ingest would.
func feedLines(t *testing.T, server string, lines []string) eval.Run {
	t.Helper()
	run, err := eval.Feed(lines, server, eval.LineByLine, false)
	if err != nil {
		t.Fatal(err)
	}
	batched, err := eval.Feed(lines, server, eval.RandomBatches(3), true)
	if err != nil {
		t.Fatal(err)
	}
	if d := eval.Diff(run, batched); d != "" {
		t.Fatalf("batch split changes the result: %s", d)
	}
	return run
}

// Two containers' tracebacks interleave line by line in `docker compose
// logs`: each stays an event of its own, with its own headline.
func TestInterleavedContainersStayApart(t *testing.T) {
	t.Parallel()
	a := []string{
		"Traceback (most recent call last):",
		`  File "/srv/a.py", line 3, in <module>`,
		"    start()",
		"KeyError: 'alpha'",
	}
	b := []string{
		"Traceback (most recent call last):",
		`  File "/srv/b.py", line 9, in <module>`,
		"    boot()",
		"ValueError: beta is not set",
	}
	// docker compose's services, srun --label's tasks
	for _, tags := range [][2]string{{"alpha-1  | ", "beta-1   | "}, {"0: ", "1: "}} {
		var lines []string
		for i := range a {
			lines = append(lines, tags[0]+a[i], tags[1]+b[i])
		}
		run := feedLines(t, "", lines)
		if len(run.Alarms) != 2 {
			t.Fatalf("%q: got %d alarms, want 2: %+v", tags, len(run.Alarms), run.Alarms)
		}
		want := []struct {
			headline string
			lines    []int64
		}{{"KeyError: 'alpha'", []int64{1, 3, 5, 7}}, {"ValueError: beta is not set", []int64{2, 4, 6, 8}}}
		for i, w := range want {
			al := run.Alarms[i]
			if al.Headline != w.headline || !slices.Equal(alarmLines(run, al.ID), w.lines) {
				t.Errorf("%q: alarm %d: headline %q lines %v, want %q %v", tags, i+1, al.Headline, alarmLines(run, al.ID), w.headline, w.lines)
			}
		}
	}
}

// The CRI stream is not a source: logger.exception's intro goes to stdout
// and the traceback Python prints to stderr, and they are one event.
func TestCRIStreamsAreOneSource(t *testing.T) {
	t.Parallel()
	lines := []string{
		"2026-02-03T04:05:06.1Z stdout F ERROR 02-03 04:05:06 [engine.py:40] Engine background task failed",
		"2026-02-03T04:05:06.2Z stderr F Traceback (most recent call last):",
		`2026-02-03T04:05:06.3Z stderr F   File "/srv/engine.py", line 40, in run`,
		"2026-02-03T04:05:06.4Z stderr F     self.step()",
		"2026-02-03T04:05:06.5Z stderr F RuntimeError: made-up engine failure",
	}
	run := feedLines(t, "vllm", lines)
	if len(run.Alarms) != 1 {
		t.Fatalf("got %d alarms, want 1: %+v", len(run.Alarms), run.Alarms)
	}
	if al := run.Alarms[0]; al.FirstSeq != 1 || al.HeadlineSeq != 5 || !slices.Equal(alarmLines(run, al.ID), []int64{1, 2, 3, 4, 5}) {
		t.Errorf("alarm = first %d headline line %d lines %v", al.FirstSeq, al.HeadlineSeq, alarmLines(run, al.ID))
	}
}

// Within one container, an untagged traceback still continues the rank that
// introduced it, as without the envelope; another pod's ranks are its own.
func TestRanksInsideEnvelopes(t *testing.T) {
	t.Parallel()
	tb := func(pod, rank, exc string) []string {
		p := "[pod/" + pod + "/srv] "
		return []string{
			p + "[2026-02-03 04:05:06 " + rank + "] Scheduler hit an exception: Traceback (most recent call last):",
			p + `  File "/srv/scheduler.py", line 5, in run`,
			p + "    loop()",
			p + exc,
		}
	}
	lines := append(tb("llm-0", "TP0", "KeyError: 'w1'"), tb("llm-1", "TP0", "IndexError: made-up index")...)
	run := feedLines(t, "sglang", lines)
	if len(run.Alarms) != 2 {
		t.Fatalf("got %d alarms, want 2: %+v", len(run.Alarms), run.Alarms)
	}
	for i, w := range []string{"KeyError: 'w1'", "IndexError: made-up index"} {
		al := run.Alarms[i]
		first := int64(4*i + 1)
		if al.Headline != w || !slices.Equal(alarmLines(run, al.ID), []int64{first, first + 1, first + 2, first + 3}) {
			t.Errorf("alarm %d: headline %q lines %v", i+1, al.Headline, alarmLines(run, al.ID))
		}
	}
}

// A JSON-logging TGI router's Connected line is readiness, like its text form.
func TestJSONRecordsReachSignatures(t *testing.T) {
	t.Parallel()
	lines := []string{
		`{"timestamp":"2026-02-03T04:05:06.1Z","level":"INFO","fields":{"message":"Starting shard"},"target":"text_generation_launcher","span":{"rank":0,"name":"shard-manager"}}`,
		`{"timestamp":"2026-02-03T04:05:36.1Z","level":"INFO","message":"Connected","target":"text_generation_router::server","filename":"router/src/server.rs","line_number":1990}`,
	}
	st := classify.New("")
	res := st.Feed([]classify.Line{{Seq: 1, Text: lines[0]}, {Seq: 2, Text: lines[1]}})
	if st.Server() != "tgi" || res.Ready == nil || res.Ready.Seq != 2 || !res.Ready.Time.Equal(time.Date(2026, 2, 3, 4, 5, 36, 100000000, time.UTC)) {
		t.Errorf("server %q ready %+v", st.Server(), res.Ready)
	}
	if v := res.Lines[0]; v.Level != "INFO" || v.Time.IsZero() {
		t.Errorf("line 1 verdict %+v", v)
	}
}

// Every made-up line above must also survive every envelope of eval.Wrap
// and a second level of nesting unchanged.
func TestNestedEnvelopesPeelToTheSameBody(t *testing.T) {
	t.Parallel()
	inner := []string{
		"[2026-02-03 04:05:06 DP1 TP1] Capture cuda graph begin.",
		"(EngineCore_DP0 pid=3) WARNING 02-03 04:05:06 [gpu.py:2] slow",
		"  File \"/srv/x.py\", line 2, in f",
		`{"timestamp":"2026-02-03T04:05:06Z","level":"ERROR","fields":{"message":"Shard 0 failed to start"},"target":"text_generation_launcher"}`,
		"INFO:     Application startup complete.",
		"",
	}
	for _, outer := range eval.Envelopes {
		for _, mid := range eval.Envelopes {
			once, _ := eval.Wrap(mid, "llm-x", inner)
			twice, err := eval.Wrap(outer, "srv-x", once)
			if err != nil {
				t.Fatal(err)
			}
			for i, l := range twice {
				want, got := classify.ParsePrefix(inner[i], 2026), classify.ParsePrefix(l, 2026)
				if got.Body != want.Body || got.Level != want.Level || got.Source != want.Source || got.Rank != want.Rank || got.Tagged != want.Tagged {
					t.Errorf("%s around %s: %q\n got %+v\nwant %+v", outer, mid, l, got, want)
				}
				if !want.Time.IsZero() && !got.Time.Equal(want.Time) {
					t.Errorf("%s around %s: %q: time %v, want the server's %v", outer, mid, l, got.Time, want.Time)
				}
				if strings.Contains(l, "[12345]") && !strings.Contains(got.Origin, "[12345]") {
					t.Errorf("%s around %s: %q: origin %q", outer, mid, l, got.Origin)
				}
			}
		}
	}
}

// FuzzParsePrefix: no input makes the envelope parsers panic, and an origin
// never holds a space (State.source relies on it).
func FuzzParsePrefix(f *testing.F) {
	for _, s := range []string{
		"2026-02-03T04:05:07.1Z stdout F x", "web-1  | x", "Feb  3 04:05:06 h a[1]: x", "<13>1 - - - - - - x",
		`<13>1 2026-02-03T04:05:06Z h a 1 m [x a="\]"] y`, "[pod/a/b] x", `{"log":"x\n","stream":"stdout","time":"t"}`,
		`{"level":"ERROR","msg":"x","fields":{"message":"y"},"record":{"level":{"name":"INFO"}}}`, "^[[1mx\u241b[0m",
		"2026-02-03T05:05:06+0100 h a[9]: r", `{"MESSAGE":"m","_HOSTNAME":"a b"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := classify.ParsePrefix(s, 2026)
		if strings.Contains(p.Origin, " ") {
			t.Fatalf("ParsePrefix(%q).Origin = %q", s, p.Origin)
		}
	})
}
