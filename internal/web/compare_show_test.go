package web_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

func TestCompareShow(t *testing.T) {
	t.Parallel()

	t.Run("ConfigPhasesOutcomeAndNewLines", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/ok-1/lines?server=sglang&name=llama&host=gpu-a", healthyLog)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang&name=llama&host=gpu-a", crashingLog)
		b.settled("crash-1")

		doc := b.page("/launches/crash-1", 200)
		href := testid(doc, "compare-previous").AttrOr("href", "")
		if href != "/compare?a=ok-1&b=crash-1" {
			t.Fatalf("link to the previous launch %q", href)
		}
		if testid(b.page("/launches/ok-1", 200), "compare-previous").Length() != 0 {
			t.Error("the first launch links to a previous one")
		}

		doc = b.page(href, 200)
		row := func(key string) (string, string) {
			r := doc.Find(`[data-testid="config-row"][data-key="` + key + `"]`)
			return r.AttrOr("data-changed", ""), r.Text()
		}
		if changed, text := row("mem_fraction_static"); changed != "true" || !strings.Contains(text, "0.6") || !strings.Contains(text, "0.7") {
			t.Errorf("mem_fraction_static: changed=%s %q", changed, text)
		}
		if changed, _ := row("cuda_graph_max_bs"); changed != "true" {
			t.Error("cuda_graph_max_bs 32 -> 64 not marked changed")
		}
		if testid(doc, "config-row").FilterFunction(func(_ int, s *goquery.Selection) bool {
			return s.AttrOr("data-changed", "") != "true"
		}).Length() != 0 {
			t.Error("keys that are the same are listed without ?config=all")
		}
		all := b.page(testid(doc, "config-toggle").AttrOr("href", ""), 200)
		if r := all.Find(`[data-testid="config-row"][data-key="tp_size"]`); r.AttrOr("data-changed", "") != "false" {
			t.Error("with all keys, tp_size (the same in both) is missing or marked changed")
		}
		if first := testid(all, "config-row").First().AttrOr("data-changed", ""); first != "true" {
			t.Error("changed keys are not listed first")
		}
		outcome := testid(doc, "compare-outcome").Text()
		if !strings.Contains(outcome, "ready") || !strings.Contains(outcome, "alarm") || !strings.Contains(outcome, "1m20s") {
			t.Errorf("outcome %q", outcome)
		}
		if w := doc.Find(`[data-testid="phase-row"][data-phase="weights"]`).Text(); !strings.Contains(w, "33.0s") || !strings.Contains(w, "35.0s") {
			t.Errorf("weights durations %q, want 33.0s and 35.0s", w)
		}
		onlyB := testid(doc, "only-b").Text()
		if !strings.Contains(onlyB, "torch.OutOfMemoryError: CUDA out of memory") || strings.Contains(onlyB, "Load weight begin") {
			t.Errorf("lines only in the crash: %q", onlyB)
		}
		if !strings.Contains(testid(doc, "only-a").Text(), "fired up and ready to roll") {
			t.Errorf("lines only in the healthy launch: %q", testid(doc, "only-a").Text())
		}
	})

	t.Run("UnknownOrMissingLaunch", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/ok-1/lines", "x\n")
		b.page("/compare?a=ok-1&b=nope", 404)
		b.page("/compare?a=ok-1", 400)
	})
}

// TestLinksWithPlusInKey: a launch key may contain "+", which a query
// string reads as a space; the links that carry a key in their query
// (compare, suppress similar) must still reach that launch.
func TestLinksWithPlusInKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/run+1/lines?server=sglang&name=llama", falseAlarmLog)
	b.postText("/api/v1/launches/run+2/lines?server=sglang&name=llama", falseAlarmLog)

	doc := b.page("/launches/run+2", 200)
	href := testid(doc, "compare-previous").AttrOr("href", "")
	if href == "" {
		t.Fatal("no link to the previous launch")
	}
	cmp := b.page(href, 200)
	if h := cmp.Find("h1").Text(); !strings.Contains(h, "run+1") || !strings.Contains(h, "run+2") {
		t.Errorf("compare link %s shows %q", href, h)
	}
	href = testid(doc, "suppress-similar").AttrOr("href", "")
	if href == "" {
		t.Fatal("no suppress similar link")
	}
	if p := testid(b.page(href, 200), "rule-pattern").AttrOr("value", ""); p == "" {
		t.Errorf("suppress similar %s: the form is not prefilled from the alarm", href)
	}
	href = b.page("/review", 200).Find(`a[href^="/rules/new"]`).First().AttrOr("href", "")
	if href == "" {
		t.Fatal("no suppress similar link on /review")
	}
	if p := testid(b.page(href, 200), "rule-pattern").AttrOr("value", ""); p == "" {
		t.Errorf("suppress similar %s from /review: the form is not prefilled", href)
	}
}
