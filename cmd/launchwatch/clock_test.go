package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/web"
	"launchwatch/internal/web/webtest"
)

// clockTimes is what the clock tests read of a launch.
type clockTimes struct {
	ClockOffset float64 `json:"clock_offset"`
	ClockSource string  `json:"clock_source"`
	Times       struct {
		FirstLine *time.Time `json:"first_line"`
		Ready     *time.Time `json:"ready"`
	} `json:"times"`
}

func getClockTimes(t *testing.T, url, key string) clockTimes {
	t.Helper()
	res, err := http.Get(url + "/api/v1/launches/" + key)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v clockTimes
	if err := json.NewDecoder(res.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestShipOnceKeepsTheLogsTimes uploads older logs with `ship --once`:
// time to ready and every phase's duration are the differences of the
// log's own timestamps, not of when the lines were uploaded.
func TestShipOnceKeepsTheLogsTimes(t *testing.T) {
	t.Parallel()
	// vLLM writes no year: the log is from 40 days ago, so its year is
	// the one it was received in, or the one before.
	day := time.Now().UTC().AddDate(0, 0, -40)
	vday := day.Format("01-02")
	vyear := day.Year()
	tests := []struct {
		name, server string
		log          string
		ready        time.Duration            // from the first line
		phases       map[string]time.Duration // their durations
	}{
		{
			name: "SGLang", server: "sglang",
			log: `[2025-06-07 08:00:00] server_args=ServerArgs(model_path='m', tp_size=1, port=30000)
[2025-06-07 08:00:04 TP0] Init torch distributed begin.
[2025-06-07 08:00:07 TP0] Init torch distributed ends. mem usage=0.10 GB
[2025-06-07 08:00:08 TP0] Load weight begin. avail mem=70.00 GB
Loading safetensors checkpoint shards: 100% Completed | 4/4
[2025-06-07 08:01:57 TP0] Load weight end. type=LlamaForCausalLM, avail mem=40.00 GB
[2025-06-07 08:02:01 TP0] Capture cuda graph begin. This can take up to several minutes.
[2025-06-07 08:03:38 TP0] Capture cuda graph end. Time elapsed: 97.00 s
[2025-06-07 08:03:40] INFO:     Application startup complete.
[2025-06-07 08:03:45] The server is fired up and ready to roll!
`,
			ready:  3*time.Minute + 45*time.Second,
			phases: map[string]time.Duration{"init": 3 * time.Second, "weights": 109 * time.Second, "cuda_graph": 97 * time.Second},
		},
		{
			name: "VLLM", server: "vllm",
			log: `INFO VDAY 11:20:00 [api_server.py:1] vLLM API server version 0.9.9
INFO VDAY 11:20:03 [core.py:1] Initializing a V1 LLM engine (v0.9.9) with config: model='m'
INFO VDAY 11:20:09 [gpu_model_runner.py:1] Starting to load model m...
Loading safetensors checkpoint shards: 100% Completed | 4/4
INFO VDAY 11:22:17 [default_loader.py:1] Loading weights took 128.00 seconds
INFO VDAY 11:22:30 [gpu_worker.py:1] Available KV cache memory: 20.00 GiB
INFO VDAY 11:22:31 [kv_cache_utils.py:1] GPU KV cache size: 100,000 tokens
INFO VDAY 11:22:40 [gpu_model_runner.py:1] Capturing CUDA graph shapes: 100%
INFO VDAY 11:23:19 [gpu_model_runner.py:1] Graph capturing finished in 39 secs, took 0.50 GiB
INFO VDAY 11:23:30 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000
INFO:     Application startup complete.
`,
			ready:  3*time.Minute + 30*time.Second, // the line without a time takes its neighbour's
			phases: map[string]time.Duration{"weights": 128 * time.Second, "kv_cache": time.Second, "cuda_graph": 39 * time.Second},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := webtest.Start(t, web.Config{})
			dir := t.TempDir()
			path := filepath.Join(dir, "server.log")
			if err := os.WriteFile(path, []byte(strings.ReplaceAll(tc.log, "VDAY", vday)), 0o644); err != nil {
				t.Fatal(err)
			}
			key := "old-" + tc.server
			code, out := cli(t, "ship", path, "--launch", key, "--server", tc.server, "--once",
				"--url", srv.URL, "--state-file", filepath.Join(dir, "state"))
			if code != 0 {
				t.Fatalf("ship --once: exit %d\n%s", code, out)
			}
			v := getClockTimes(t, srv.URL, key)
			if v.ClockSource != "" || v.ClockOffset != 0 {
				t.Errorf("clock %v (%q), want none measured for a backfilled log", v.ClockOffset, v.ClockSource)
			}
			if v.Times.FirstLine == nil || v.Times.Ready == nil {
				t.Fatalf("times %+v: want first_line and ready", v.Times)
			}
			if got := v.Times.Ready.Sub(*v.Times.FirstLine); got != tc.ready {
				t.Errorf("time to ready %s, want %s (the log's own times)", got, tc.ready)
			}
			if tc.server == "vllm" && v.Times.FirstLine.Year() != vyear {
				t.Errorf("first line in %d, want %d (vLLM writes no year)", v.Times.FirstLine.Year(), vyear)
			}
			l, err := srv.Store.LaunchByKey(context.Background(), key)
			if err != nil {
				t.Fatal(err)
			}
			phases, err := srv.Store.Phases(context.Background(), l.ID)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]time.Duration{}
			for _, p := range phases {
				if p.End != nil {
					got[p.Name] = p.End.Sub(p.Begin)
				}
			}
			for name, want := range tc.phases {
				if got[name] != want {
					t.Errorf("phase %s took %s, want %s (all: %v)", name, got[name], want, got)
				}
			}
		})
	}
}

// TestTZFlag sends --tz with every batch: the log's local times are put
// on the launch clock with the zone's offset.
func TestTZFlag(t *testing.T) {
	t.Parallel()
	srv := webtest.Start(t, web.Config{})
	dir := t.TempDir()
	path := filepath.Join(dir, "server.log")
	log := `[2025-06-07 10:00:00] server_args=ServerArgs(model_path='m', tp_size=1, port=30000)
[2025-06-07 10:00:30] The server is fired up and ready to roll!
`
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := cli(t, "ship", path, "--launch", "tz", "--server", "sglang", "--once", "--tz", "+02:00",
		"--url", srv.URL, "--state-file", filepath.Join(dir, "state"))
	if code != 0 {
		t.Fatalf("ship --once --tz: exit %d\n%s", code, out)
	}
	v := getClockTimes(t, srv.URL, "tz")
	want := time.Date(2025, 6, 7, 8, 0, 0, 0, time.UTC)
	if v.ClockOffset != -7200 || v.ClockSource != "tz" || v.Times.FirstLine == nil || !v.Times.FirstLine.Equal(want) {
		t.Errorf("clock %v (%q), first_line %v; want -7200 (tz) and %s", v.ClockOffset, v.ClockSource, v.Times.FirstLine, want)
	}
}

// TestShipOnceOfCorpusLogsKeepsTheirTimes: real logs of the shared
// corpus, uploaded with ship --once long after they were written, get a
// time to ready equal to the difference of their own timestamps (the
// first line's and the labeled ready line's), read here from the files.
func TestShipOnceOfCorpusLogsKeepsTheirTimes(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t)
	srv := webtest.Start(t, web.Config{})
	stamp := regexp.MustCompile(`^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)`)
	tested := 0
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		var label struct {
			Server    string `json:"server"`
			Outcome   string `json:"outcome"`
			ReadyLine int    `json:"ready_line"`
		}
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &label); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		logPath := strings.TrimSuffix(name, ".json") + ".log"
		text, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(text), "\n")
		if label.Outcome != "ready" || label.ReadyLine < 2 || label.ReadyLine > len(lines) ||
			!strings.Contains(lines[label.ReadyLine-1], "ready to roll") {
			continue // the logs whose ready line is SGLang's, stamped like their first line
		}
		first, ready := stamp.FindStringSubmatch(lines[0]), stamp.FindStringSubmatch(lines[label.ReadyLine-1])
		if first == nil || ready == nil {
			continue
		}
		t0, err1 := time.Parse(time.DateTime, first[1])
		t1, err2 := time.Parse(time.DateTime, ready[1])
		if err1 != nil || err2 != nil {
			continue
		}
		key := "corpus-" + strings.TrimSuffix(filepath.Base(name), ".json")
		code, out := cli(t, "ship", logPath, "--launch", key, "--server", label.Server, "--once",
			"--url", srv.URL, "--state-file", filepath.Join(t.TempDir(), "state"))
		if code != 0 {
			t.Fatalf("ship --once %s: exit %d\n%s", logPath, code, out)
		}
		v := getClockTimes(t, srv.URL, key)
		if v.Times.FirstLine == nil || v.Times.Ready == nil {
			t.Errorf("%s: times %+v, want first_line and ready", key, v.Times)
			continue
		}
		if got, want := v.Times.Ready.Sub(*v.Times.FirstLine), t1.Sub(t0); got != want {
			t.Errorf("%s: time to ready %s, want %s (the log's own timestamps)", key, got, want)
		}
		tested++
	}
	if tested < 2 {
		t.Fatalf("only %d corpus logs have a stamped first line and SGLang's ready line; want at least 2", tested)
	}
	t.Logf("%d corpus logs shipped with --once keep their own time to ready", tested)
}
