package web_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"launchwatch/internal/web/webtest"
)

// restartingLog is a synthetic SGLang launch (written for this test) that
// starts n times, two minutes apart: each start initialises, loads weights,
// allocates the KV cache, captures CUDA graphs on ranks DP ranks at once,
// becomes ready, and then dies with a traceback.
func restartingLog(n, ranks int) string {
	t0 := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	var sb strings.Builder
	at := func(s int) string { return t0.Add(time.Duration(s) * time.Second).Format("2006-01-02 15:04:05") }
	for i := range n {
		c := i * 120
		fmt.Fprintf(&sb, "[%s] Init torch distributed begin.\n", at(c))
		fmt.Fprintf(&sb, "[%s] Init torch distributed ends. mem usage=0.00 GB\n", at(c+1))
		fmt.Fprintf(&sb, "[%s] Load weight begin. avail mem=78.50 GB\n", at(c+2))
		fmt.Fprintf(&sb, "[%s] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.20 GB, mem usage=15.30 GB.\n", at(c+20))
		fmt.Fprintf(&sb, "[%s] KV Cache is allocated. #tokens: 20480, K size: 0.94 GB, V size: 0.94 GB\n", at(c+21))
		fmt.Fprintf(&sb, "[%s] Memory pool end. avail mem=53.29 GB\n", at(c+22))
		for r := range ranks {
			fmt.Fprintf(&sb, "[%s DP%d TP%d] Capture cuda graph begin. This can take up to several minutes. avail mem=6.72 GB\n", at(c+23), r, r)
		}
		for r := range ranks {
			fmt.Fprintf(&sb, "[%s DP%d TP%d] Capture cuda graph end. Time elapsed: 7.00 s. mem usage=0.56 GB. avail mem=5.93 GB.\n", at(c+30), r, r)
		}
		fmt.Fprintf(&sb, "[%s] The server is fired up and ready to roll!\n", at(c+32))
		fmt.Fprintf(&sb, "[%s] Scheduler hit an exception: Traceback (most recent call last):\n", at(c+90))
		sb.WriteString("  File \"/sgl/python/sglang/srt/managers/scheduler.py\", line 2311, in run_scheduler_process\n")
		sb.WriteString("    scheduler.event_loop_normal()\n")
		fmt.Fprintf(&sb, "RuntimeError: NCCL error in restart %d: unhandled system error\n", i+1)
	}
	return sb.String()
}

// timelineSVG is the outer HTML of a page's timeline SVG.
func timelineSVG(t *testing.T, doc *goquery.Document) string {
	t.Helper()
	h, err := goquery.OuterHtml(testid(doc, "timeline"))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func sumCounts(s *goquery.Selection) int {
	n := 0
	for _, m := range s.EachIter() {
		c, _ := strconv.Atoi(m.AttrOr("data-count", "1"))
		n += c
	}
	return n
}

func TestTimelineScale(t *testing.T) {
	t.Parallel()

	t.Run("FiftyRestartsRenderAtMostThirtyRows", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/r50/lines?server=sglang", restartingLog(50, 4))
		doc := b.page("/launches/r50", 200)
		rows := testid(doc, "timeline-row")
		var names []string
		for _, r := range rows.EachIter() {
			names = append(names, r.AttrOr("data-row", ""))
		}
		if rows.Length() > 28 || strings.Join(names, ",") != "init,weights,kv_cache,cuda_graph" {
			t.Errorf("%d phase rows %q, want one per kind", rows.Length(), names)
		}
		if n := strings.Count(timelineSVG(t, doc), "<text x=\"4\""); n > 30 {
			t.Errorf("%d rows in all", n)
		}
		// Repeated instances are numbered segments (the classifier makes
		// one cuda_graph phase of the ranks' captures; views' tests merge
		// instances that overlap).
		if title := doc.Find(`[data-phase="weights"][data-no="3"] title`).Text(); title != "weights #3, 18.0s" {
			t.Errorf("third weights segment %q", title)
		}
		if n := sumCounts(doc.Find(`[data-phase="cuda_graph"]`)); n != 50 {
			t.Errorf("cuda_graph segments stand for %d instances, want 50", n)
		}
		if lbl := rows.First().Find("text").First().Text(); lbl != "init ×50" {
			t.Errorf("row label %q", lbl)
		}
		// Each start after the first is a restart marker on the axis.
		if n := sumCounts(testid(doc, "timeline-restart")); n != 49 {
			t.Errorf("restart markers count %d restarts, want 49", n)
		}
		// Each life became ready: 50 ready markers, merged per column.
		if n := sumCounts(testid(doc, "timeline-ready")); n != 50 || testid(doc, "timeline-alarm").Length() == 0 {
			t.Errorf("ready markers count %d, want 50, or the alarm marks are missing", n)
		}
	})

	t.Run("SVGSizeStaysBoundedWhenEventsGrowTenfold", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/r50/lines?server=sglang", restartingLog(50, 4))
		b.postText("/api/v1/launches/r500/lines?server=sglang", restartingLog(500, 4))
		small := len(timelineSVG(t, b.page("/launches/r50", 200)))
		doc := b.page("/launches/r500", 200)
		big := len(timelineSVG(t, doc))
		// 500 starts take every column of the four phase rows and of the
		// alarm and restart rows: the worst case.
		const bound = 250_000
		if small > bound || big > bound {
			t.Errorf("timeline SVG %d bytes for 50 restarts, %d for 500; want both under %d", small, big, bound)
		}
		if rows := testid(doc, "timeline-row").Length(); rows != 4 {
			t.Errorf("%d rows for 500 restarts", rows)
		}
		if n := sumCounts(doc.Find(`[data-phase="cuda_graph"]`)); n != 500 {
			t.Errorf("cuda_graph segments stand for %d instances, want 500", n)
		}
		t.Logf("timeline SVG: %d bytes for 50 restarts, %d for 500", small, big)
	})

	t.Run("ZoomFiltersTheTimelineAndTheLog", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/z/lines?server=sglang", restartingLog(5, 2))
		doc := b.page("/launches/z", 200)
		first := testid(doc, "zoom-first-minute").AttrOr("href", "")
		if first != "/launches/z?from=0&to=60#timeline" {
			t.Fatalf("first minute link %q", first)
		}
		if alarm := testid(doc, "zoom-alarm").AttrOr("href", ""); alarm != "/launches/z?from=60&to=120#timeline" {
			t.Errorf("around the first alarm link %q", alarm)
		}
		doc = b.page(strings.TrimSuffix(first, "#timeline"), 200)
		if testid(doc, "zoom-first-minute").Is("a") || testid(doc, "zoom-all").AttrOr("href", "") != "/launches/z#timeline" {
			t.Error("the current zoom is a link, or 'all' is not")
		}
		if r := testid(doc, "timeline-range").Text(); !strings.Contains(r, "+0.0s to +1m00s") {
			t.Errorf("zoom range %q", r)
		}
		if n := testid(doc, "timeline-phase").Length(); n != 4 {
			t.Errorf("%d segments in the first minute, want the first start's 4", n)
		}
		if testid(doc, "timeline-restart").Length() != 0 || testid(doc, "timeline-alarm").Length() != 0 {
			t.Error("marks after the first minute are drawn")
		}
		// The log shows the lines of the range: the first start, up to
		// its ready line at +32 s.
		want := 0
		for _, ln := range b.lines("z") {
			if ts, _ := time.Parse(time.RFC3339, ln.TS); ts.Before(time.Date(2026, 11, 29, 10, 1, 0, 1, time.UTC)) {
				want++
			}
		}
		lines := testid(doc, "log").Find(`[data-testid="log-line"]`)
		if lines.Length() != want || lines.First().AttrOr("data-seq", "") != "1" {
			t.Errorf("zoomed log shows %d lines from %s, want %d from 1", lines.Length(), lines.First().AttrOr("data-seq", ""), want)
		}
		if _, live := testid(doc, "log").Attr("data-live"); live {
			t.Error("a zoomed log follows the launch")
		}
		// Around the first alarm: from the traceback (+90 s) on.
		doc = b.page("/launches/z?from=85&to=100", 200)
		lines = testid(doc, "log").Find(`[data-testid="log-line"]`)
		if lines.Length() != 4 || !strings.Contains(lines.First().Text(), "Scheduler hit an exception") {
			t.Errorf("zoom to +85..100 s shows %d lines from %q", lines.Length(), lines.First().Text())
		}
		if testid(doc, "timeline-alarm").Length() != 1 {
			t.Error("the alarm in the range is not drawn")
		}
		// RFC 3339 ends are the same range.
		doc = b.page("/launches/z?from=2026-11-29T10:01:25Z&to=2026-11-29T10:01:40Z", 200)
		if n := testid(doc, "log").Find(`[data-testid="log-line"]`).Length(); n != 4 {
			t.Errorf("RFC 3339 zoom shows %d lines", n)
		}
		// Paging keeps the zoom.
		doc = b.page("/launches/z?from=0&to=600&errors=1", 200)
		for _, id := range []string{"log-next", "log-prev", "log-first", "log-last"} {
			if href := testid(doc, id).AttrOr("href", ""); href != "" && !strings.Contains(href, "from=0") {
				t.Errorf("%s link %q forgets the zoom", id, href)
			}
		}
	})

	t.Run("OpenPhaseShowsElapsedOnTheLaunchClockAndExitIsMarked", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// An old log shipped now keeps its own times: the open phase runs
		// 30 s on its clock, not the months since it was written.
		b.postText("/api/v1/launches/old/lines?server=sglang", "[2026-01-05 10:00:00] Load weight begin. avail mem=78.50 GB\n"+
			"[2026-01-05 10:00:30] Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:10<00:10,  5.0s/it]\n")
		doc := b.page("/launches/old", 200)
		if lbl := doc.Find(`[data-phase="weights"] text`).Text(); !strings.HasPrefix(lbl, "30.") || !strings.HasSuffix(lbl, "…") {
			t.Errorf("open phase label %q, want about 30 s and running", lbl)
		}
		b.report("/api/v1/launches/old/exit", `{"code": 3}`, "crashed")
		doc = b.page("/launches/old", 200)
		if exit := testid(doc, "timeline-exit"); exit.Length() != 1 || !strings.Contains(exit.Text(), "exit 3") {
			t.Errorf("exit marker %q", exit.Text())
		}
		if lbl := doc.Find(`[data-phase="weights"] text`).Text(); lbl != "30.0s, no end line" {
			t.Errorf("phase of an exited launch %q", lbl)
		}
	})

	t.Run("DecisionInPlaceKeepsTheZoom", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/z/lines?server=sglang", restartingLog(5, 1))
		form := url.Values{"verdict": {"dismiss"}, "reason": {"known"}}
		req, err := http.NewRequest("POST", b.url+"/launches/z/alarms/2/decide", strings.NewReader(form.Encode()))
		must(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("HX-Request", "true")
		req.Header.Set("HX-Current-URL", b.url+"/launches/z?from=200&to=260")
		req.AddCookie(&http.Cookie{Name: "lw_session", Value: webtest.AdminSession})
		req.Header.Set("X-CSRF-Token", b.csrfToken(webtest.AdminSession))
		res, err := http.DefaultClient.Do(req)
		must(t, err)
		defer res.Body.Close()
		doc, err := goquery.NewDocumentFromReader(res.Body)
		must(t, err)
		if res.StatusCode != 200 || !strings.Contains(testid(doc, "timeline-range").Text(), "+3m20s to +4m20s") {
			t.Errorf("answer %d: the timeline swapped in lost its zoom: %q", res.StatusCode, testid(doc, "timeline-range").Text())
		}
		if a := testid(doc, "timeline-alarm"); a.Length() != 1 || a.AttrOr("data-state", "") != "dismissed" {
			t.Errorf("%d alarm marks in the zoom", a.Length())
		}
	})

	t.Run("BadRangeIs400", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/z/lines?server=sglang", restartingLog(2, 1))
		for _, q := range []string{"from=abc", "to=-5", "from=NaN", "from=10&to=5", "from=10&to=10", "to=Inf",
			"from=2026-11-29T10:05:00Z&to=2026-11-29T10:00:00Z", "from=1e300", "from=2026-13-01T00:00:00Z"} {
			r := b.do("GET", "/launches/z?"+q, "", nil)
			if r.status != 400 {
				t.Errorf("%s: %d, want 400", q, r.status)
				continue
			}
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.body)))
			must(t, err)
			if msg := testid(doc, "log-error").Text(); !strings.Contains(msg, "from") && !strings.Contains(msg, "to") {
				t.Errorf("%s: message %q", q, msg)
			}
		}
		// A range with no line is no error: an empty log.
		doc := b.page("/launches/z?from=100000&to=100100", 200)
		if n := testid(doc, "log").Find(`[data-testid="log-line"]`).Length(); n != 0 {
			t.Errorf("a range past the end shows %d lines", n)
		}
	})
}
