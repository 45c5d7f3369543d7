package web_test

import (
	"github.com/PuerkitoBio/goquery"

	"fmt"
	"strings"
	"testing"
)

// The logs below are made up for these tests (a fictional "acme" server in
// vLLM's line format): a good launch and a crashed one whose root cause, a
// ValueError, comes after dozens of progress-bar redraws, caret lines and a
// launcher's consequence traceback.

// goodAcmeLog is a launch that becomes ready.
func goodAcmeLog() string {
	var b strings.Builder
	b.WriteString("INFO 03-14 09:00:01 [launcher.py:41] starting acme-serve for model acme/tiny-7b\n")
	b.WriteString("INFO 03-14 09:00:01 [launcher.py:42] non-default args: {'max_model_len': 4096, 'tensor_parallel_size': 2}\n")
	for i := 0; i <= 4; i++ {
		fmt.Fprintf(&b, "Loading acme shards: %3d%%|%-10s| %d/4 [00:0%d<00:0%d, 1.9it/s]\n", i*25, strings.Repeat("█", i*10/4), i, i, 4-i)
	}
	b.WriteString("INFO 03-14 09:00:05 [engine.py:120] weights loaded in 3.1 s\n")
	b.WriteString("INFO 03-14 09:00:06 [server.py:77] Application startup complete.\n")
	return b.String()
}

// crashedAcmeLog is the next launch with a longer context: it warns, draws
// many more bars, and dies of a ValueError in the engine core.
func crashedAcmeLog() string {
	var b strings.Builder
	b.WriteString("INFO 03-14 10:00:01 [launcher.py:41] starting acme-serve for model acme/tiny-7b\n")
	b.WriteString("INFO 03-14 10:00:01 [launcher.py:42] non-default args: {'max_model_len': 65536, 'tensor_parallel_size': 2}\n")
	b.WriteString("WARNING 03-14 10:00:02 [config.py:95] rope scaling not set; long contexts may degrade\n")
	for i := 0; i <= 40; i++ {
		fmt.Fprintf(&b, "Warming acme kernels: %3d%%|%-20s| %d/40 [00:%02d<00:%02d, 9.7it/s]\n", i*100/40, strings.Repeat("▉", i/2), i, i/3, (40-i)/3)
	}
	for i := 0; i <= 4; i++ {
		fmt.Fprintf(&b, "Loading acme shards: %3d%%|%-10s| %d/4 [00:0%d<00:0%d, 1.9it/s]\n", i*25, strings.Repeat("█", i*10/4), i, i, 4-i)
	}
	b.WriteString(`ERROR 03-14 10:00:09 [core.py:500] EngineCore failed to start.
ERROR 03-14 10:00:09 [core.py:500] Traceback (most recent call last):
ERROR 03-14 10:00:09 [core.py:500]   File "/srv/acme/engine/core.py", line 491, in run_engine_core
ERROR 03-14 10:00:09 [core.py:500]     engine_core = EngineCore(vllm_config)
ERROR 03-14 10:00:09 [core.py:500]                   ^^^^^^^^^^^^^^^^^^^^^^^
ERROR 03-14 10:00:09 [core.py:500]   File "/srv/acme/engine/kv_planner.py", line 33, in plan_kv_cache
ERROR 03-14 10:00:09 [core.py:500]     raise ValueError(msg)
ERROR 03-14 10:00:09 [core.py:500] ValueError: the model needs 65536 tokens of KV cache per sequence but only 9120 fit in 20.50 GiB; lower max_model_len
Traceback (most recent call last):
  File "/srv/acme/launcher.py", line 60, in main
    wait_for_engine(proc)
    ~~~~~~~~~~~~~~~^^^^^^
  File "/srv/acme/launcher.py", line 22, in wait_for_engine
    raise RuntimeError("Engine core initialization failed. See root cause above.")
RuntimeError: Engine core initialization failed. See root cause above.
`)
	return b.String()
}

func TestCompareRanking(t *testing.T) {
	t.Parallel()

	t.Run("RootCauseFirstNoiseCollapsed", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/acme-1/lines?server=vllm", goodAcmeLog())
		b.postText("/api/v1/launches/acme-2/lines?server=vllm", crashedAcmeLog())
		b.report("/api/v1/launches/acme-2/exit", `{"code": 1}`, "crashed")

		doc := b.page("/compare?a=acme-1&b=acme-2", 200)
		entries := testid(doc, "only-b").Find(`[data-testid="template"]`)
		var got []string
		entries.Each(func(_ int, s *goquery.Selection) {
			got = append(got, s.AttrOr("data-tier", "")+": "+strings.TrimSpace(s.Find(".text").Text()))
		})
		t.Logf("lines new in acme-2:\n%s", strings.Join(got, "\n"))
		if len(got) == 0 {
			t.Fatal("no lines new in acme-2")
		}
		if !strings.Contains(got[0], "ValueError: the model needs 65536 tokens") || !strings.HasPrefix(got[0], "root cause") {
			t.Errorf("first entry %q, want the ValueError as root cause", got[0])
		}
		if href := entries.First().Find("a").AttrOr("href", ""); !strings.HasPrefix(href, "/launches/acme-2?") || !strings.Contains(href, "#L") {
			t.Errorf("the first entry links to %q, not to its line in acme-2", href)
		}
		noise := testid(doc, "noise")
		if noise.Length() != 1 {
			t.Fatalf("%d noise entries, want 1", noise.Length())
		}
		if !strings.HasPrefix(strings.TrimSpace(noise.Text()), "43 noise lines") {
			// 41 "Warming acme kernels" bars and two caret lines; the
			// shard bars are in both launches.
			t.Errorf("noise entry %q, want 43 noise lines", noise.Text())
		}
		if last := entries.Last(); last.AttrOr("data-tier", "") != "noise" {
			t.Errorf("the noise entry is not last: %q", last.Text())
		}
		for i, s := range got {
			if strings.Contains(s, "^^^") || strings.Contains(s, "~~~") || strings.Contains(s, "Warming acme kernels") && !strings.HasPrefix(s, "noise") {
				t.Errorf("entry %d is noise shown on its own: %q", i, s)
			}
		}
		// One entry per event: the root cause's traceback (its frames, its
		// first line) is the root cause's entry, opened to show them; the
		// launcher's consequence is the next, before the warning.
		warn := slicesIndex(got, "rope scaling not set")
		if i := slicesIndex(got, "Engine core initialization failed"); i != 1 || warn < i {
			t.Errorf("the consequence is entry %d (the warning %d), want 1, before the warning", i, warn)
		}
		for i, s := range got {
			if strings.Contains(s, `File "`) || strings.Contains(s, "EngineCore failed to start") {
				t.Errorf("entry %d is a line of an event listed on its own: %q", i, s)
			}
		}
		root := testid(doc, "only-b").Find(`[data-testid="event"]`).First()
		var members []string
		root.Find(`[data-testid="event-line"] .text`).Each(func(_ int, s *goquery.Selection) { members = append(members, strings.TrimSpace(s.Text())) })
		if root.AttrOr("data-alarm", "") != "1" || len(members) != 6 || !strings.Contains(members[0], "EngineCore failed to start") ||
			!strings.Contains(members[2], `File "/srv/acme/engine/core.py", line 491`) {
			t.Errorf("the root cause's event (alarm %s) holds %q", root.AttrOr("data-alarm", ""), members)
		}
	})

	t.Run("NoDifferences", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/same-1/lines?server=vllm", goodAcmeLog())
		b.postText("/api/v1/launches/same-2/lines?server=vllm", goodAcmeLog())
		doc := b.page("/compare?a=same-1&b=same-2", 200)
		if testid(doc, "only-b-none").Length() != 1 || testid(doc, "only-b").Length() != 0 {
			t.Errorf("identical launches: lines new in B %q", testid(doc, "only-b").Text())
		}
		if !strings.Contains(testid(doc, "only-b-none").Text(), "No differences") {
			t.Errorf("no %q in %q", "No differences", testid(doc, "only-b-none").Text())
		}
		if testid(doc, "config-same").Length() != 1 || testid(doc, "config-row").Length() != 0 {
			t.Errorf("identical configurations: %q", testid(doc, "config-summary").Text())
		}
	})
}

func slicesIndex(entries []string, sub string) int {
	for i, e := range entries {
		if strings.Contains(e, sub) {
			return i
		}
	}
	return -1
}
