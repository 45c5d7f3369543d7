package classify_test

import (
	"slices"
	"strings"
	"testing"

	"launchwatch/internal/classify"
)

// feedSettled feeds log to a fresh state as one batch, then settles it as the
// stream's end (what a client reading the launch after that batch causes),
// and returns the live alarms.
func feedSettled(server, log string) []classify.Alarm {
	_, live := feedSettledState(server, log)
	return live
}

// feedSettledState is feedSettled that returns the state too.
func feedSettledState(server, log string) (*classify.State, []classify.Alarm) {
	st := classify.New(server)
	var in []classify.Line
	for i, l := range strings.Split(log, "\n") {
		in = append(in, classify.Line{Seq: int64(i + 1), Text: l})
	}
	alarms := map[int]classify.Alarm{}
	for _, res := range []classify.Result{st.Feed(in), st.Settle(classify.SettleStreamEnd)} {
		for _, a := range res.Alarms {
			alarms[a.ID] = a
		}
	}
	var live []classify.Alarm
	for _, a := range alarms {
		if !a.Withdrawn {
			live = append(live, a)
		}
	}
	slices.SortFunc(live, func(a, b classify.Alarm) int { return a.ID - b.ID }) // a map has no order
	return st, live
}

// TestHandledDumpsAreNoAlarm: dumps a process prints while it goes on are
// silent even when a batch (or the stream) ends right after them. Every line
// is made up; the formats follow CPython logging, vLLM and Ray.
func TestHandledDumpsAreNoAlarm(t *testing.T) {
	t.Parallel()
	logs := map[string]string{
		// logging.Handler.handleError: a log call failed, the process goes on.
		"LoggingErrorDump": `INFO 01-02 10:00:00 llm_engine.py:100] Initializing an LLM engine
--- Logging error ---
Traceback (most recent call last):
  File "/usr/lib/python3.10/logging/__init__.py", line 1100, in emit
    msg = self.format(record)
TypeError: not all arguments converted during string formatting
Call stack:
  File "/app/hooks.py", line 3, in register
    logger.info("hook for", name)
Message: 'hook for'
Arguments: ('x',)`,
		// A best-effort plugin loader logs the failure with exc_info.
		"PluginLoadTraceback": `ERROR 01-02 10:00:00 [__init__.py:48] Failed to load plugin acme_ext
ERROR 01-02 10:00:00 [__init__.py:48] Traceback (most recent call last):
ERROR 01-02 10:00:00 [__init__.py:48]   File "/app/plugins/__init__.py", line 44, in load_plugins_by_group
ERROR 01-02 10:00:00 [__init__.py:48]     func = plugin.load()
ERROR 01-02 10:00:00 [__init__.py:48] ModuleNotFoundError: No module named 'acme_dep'`,
		// Ray quotes the optional dashboard's log, traceback included.
		"QuotedDashboardLog": `2031-01-02 10:00:00,100	ERROR services.py:1329 -- Failed to start the dashboard , return code 1
2031-01-02 10:00:00,100	ERROR services.py:1354 -- Error should be written to 'dashboard.log' or 'dashboard.err'.
2031-01-02 10:00:00,101	ERROR services.py:1398 -- 
The last 20 lines of /tmp/ray/session_x/logs/dashboard.log (it contains the error message from the dashboard): 
Traceback (most recent call last):
  File "/app/ray/dashboard/head.py", line 36, in <module>
    from ray.dashboard.optional_deps import aiohttp
ModuleNotFoundError: No module named 'aiohttp'`,
	}
	for name, log := range logs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, a := range feedSettled("", log) {
				t.Errorf("alarm %q (%s, fatal=%v)", a.Headline, a.Kind, a.Fatal)
			}
		})
	}
}

// TestLoggedTracebackStillAlarms: a traceback logged after an ERROR line
// that no benign signature calls harmless stays a fatal alarm: the benign
// context does not leak to other reports.
func TestLoggedTracebackStillAlarms(t *testing.T) {
	t.Parallel()
	log := `ERROR 01-02 10:00:00 [__init__.py:48] Failed to load plugin acme_ext
INFO 01-02 10:00:01 [core.py:10] Initializing engine
ERROR 01-02 10:00:02 [core.py:700] EngineCore failed to start.
ERROR 01-02 10:00:02 [core.py:700] Traceback (most recent call last):
ERROR 01-02 10:00:02 [core.py:700]   File "/app/v1/engine/core.py", line 690, in run_engine_core
ERROR 01-02 10:00:02 [core.py:700]     engine_core = EngineCoreProc(*args, **kwargs)
ERROR 01-02 10:00:02 [core.py:700] ValueError: No available memory for the cache blocks.`
	live := feedSettled("vllm", log)
	if len(live) != 1 || !live[0].Fatal {
		t.Fatalf("want one fatal alarm, got %+v", live)
	}
}

// TestVLLMRequestHandlerErrorIsRequestLevel: vLLM's serving layer logs one
// request's failure with its traceback and answers it; even when the stream
// ends right after, that is no crash.
func TestVLLMRequestHandlerErrorIsRequestLevel(t *testing.T) {
	t.Parallel()
	log := `INFO:     Application startup complete.
ERROR 01-02 10:00:00 [serving_chat.py:257] Error in preprocessing prompt inputs
ERROR 01-02 10:00:00 [serving_chat.py:257] Traceback (most recent call last):
ERROR 01-02 10:00:00 [serving_chat.py:257]   File "/app/serving_chat.py", line 234, in create_chat_completion
ERROR 01-02 10:00:00 [serving_chat.py:257]     request_prompts = await self._preprocess_chat(
ERROR 01-02 10:00:00 [serving_chat.py:257] jinja2.exceptions.UndefinedError: 'x' is undefined`
	live := feedSettled("vllm", log)
	if len(live) != 1 || live[0].Fatal {
		t.Fatalf("want one request-level (non-fatal) alarm, got %+v", live)
	}
}
