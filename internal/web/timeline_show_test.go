package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/views"
)

func TestTimelineShow(t *testing.T) {
	t.Parallel()

	t.Run("CrashingLaunchShowsFactsPhasesAlarmAndLog", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang&host=gpu-a&label.team=infer", crashingLog)
		b.settled("crash-1")
		doc := b.page("/launches/crash-1", 200)
		if s := testid(doc, "launch-status").Text(); s != "alarm" {
			t.Errorf("status %q, want alarm", s)
		}
		if cfg := testid(doc, "facts").Text(); !strings.Contains(cfg, "mem_fraction_static") || !strings.Contains(cfg, "0.7") || !strings.Contains(cfg, "gpu-a") {
			t.Errorf("facts lack the main configuration or host: %q", cfg)
		}
		var phases []string
		for _, s := range testid(doc, "timeline-phase").EachIter() {
			phases = append(phases, s.AttrOr("data-phase", ""))
		}
		if !strings.Contains(strings.Join(phases, ","), "weights") {
			t.Errorf("timeline phases %q lack weights", phases)
		}
		// Load weight begin 10:00:05 → end 10:00:40.
		if w := doc.Find(`[data-phase="weights"]`).Text(); !strings.Contains(w, "35.0s") {
			t.Errorf("weights phase says %q, want its duration 35.0s", w)
		}
		marks := testid(doc, "timeline-alarm")
		if marks.Length() != 1 || marks.AttrOr("data-state", "") != "open" || marks.AttrOr("href", "") != "/launches/crash-1?after=0#L8" {
			t.Errorf("alarm markers: %d, state %q, href %q", marks.Length(), marks.AttrOr("data-state", ""), marks.AttrOr("href", ""))
		}
		if testid(doc, "timeline-ready").Length() != 0 {
			t.Error("a crashed launch has a ready marker")
		}
		card := testid(doc, "alarm-card")
		if card.Length() != 1 || card.AttrOr("id", "") != "alarm-1" {
			t.Fatalf("%d alarm cards", card.Length())
		}
		if h := card.Find(`[data-testid="alarm-headline"]`).Text(); !strings.Contains(h, "torch.OutOfMemoryError: CUDA out of memory") {
			t.Errorf("headline %q", h)
		}
		// The card loads its context lines when opened; without
		// JavaScript its link shows them in the log view.
		ctx := card.Find(`[data-testid="alarm-context"]`)
		if url := ctx.AttrOr("hx-get", ""); url != "/launches/crash-1/alarms/1/context" || ctx.Find(`[data-testid="log-line"]`).Length() != 0 {
			t.Errorf("alarm context loads from %q, inline lines %d", url, ctx.Find(`[data-testid="log-line"]`).Length())
		}
		if href := ctx.Find(`[data-testid="alarm-context-link"]`).AttrOr("href", ""); href != "/launches/crash-1?after=0#L8" {
			t.Errorf("alarm context fallback link %q", href)
		}
		ctxLines := testid(b.page("/launches/crash-1/alarms/1/context", 200), "log-line")
		if n := ctxLines.Length(); n < 5 || !strings.Contains(ctx.Find("summary").Text(), fmt.Sprintf("(%d lines)", n)) {
			t.Errorf("alarm context holds %d lines, the card says %q", n, ctx.Find("summary").Text())
		}
		if ctxLines.First().AttrOr("id", "") != "" || !strings.HasPrefix(ctxLines.First().Find("a.no").AttrOr("href", ""), "/launches/crash-1?after=") {
			t.Errorf("context line: id %q, permalink %q", ctxLines.First().AttrOr("id", ""), ctxLines.First().Find("a.no").AttrOr("href", ""))
		}
		b.page("/launches/crash-1/alarms/9/context", 404)
		lines := testid(doc, "log").Find(`[data-testid="log-line"]`)
		if lines.Length() != 13 {
			t.Errorf("log shows %d lines, want 13", lines.Length())
		}
		if dump := testid(doc, "log").Find(`[data-testid="config-dump"]`); dump.Length() != 1 || !strings.Contains(dump.Text(), "cuda_graph_max_bs") {
			t.Errorf("config dump not collapsed into key/values: %q", dump.Text())
		}
		// A small configuration is shown whole, with no link.
		if cfg := testid(doc, "config"); cfg.Find("tr").Length() != 5 || cfg.Find(`[data-testid="config-all"]`).Length() != 0 {
			t.Errorf("configuration of 5 keys shows %d, link %d", cfg.Find("tr").Length(), cfg.Find(`[data-testid="config-all"]`).Length())
		}
		last := lines.Last()
		if last.AttrOr("id", "") != "L13" || last.AttrOr("data-seq", "") != "13" || !last.HasClass("k-error") {
			t.Errorf("last line: id %q class %q", last.AttrOr("id", ""), last.AttrOr("class", ""))
		}
		// Relative to the launch page: /launches/crash-1?after=0#L13.
		if href := last.Find("a.no").AttrOr("href", ""); href != "?after=0#L13" {
			t.Errorf("permalink %q", href)
		}
	})

	t.Run("LargeConfigurationShowsItsFirstKeysAndLinksToAll", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		var args []string
		for i := range 60 {
			args = append(args, fmt.Sprintf("key_%02d=%d", i, i))
		}
		b.postText("/api/v1/launches/cfg-1/lines", "2023-09-03 13:06:49 | INFO | controller | args: Namespace("+strings.Join(args, ", ")+")\nINFO done\n")
		b.settled("cfg-1")
		cfg := testid(b.page("/launches/cfg-1", 200), "config")
		all := cfg.Find(`[data-testid="config-all"]`)
		if n := cfg.Find("tr").Length(); n != views.ConfigInline || all.AttrOr("href", "") != "/launches/cfg-1/config" ||
			all.AttrOr("hx-get", "") != "/launches/cfg-1/config" || !strings.Contains(cfg.Find("summary").Text(), "(60 keys)") {
			t.Errorf("configuration shows %d keys inline of %q, links %q", n, cfg.Find("summary").Text(), all.AttrOr("href", ""))
		}
		// Without JavaScript the link is a page of its own; htmx gets the
		// table alone, to swap in.
		full := testid(b.page("/launches/cfg-1/config", 200), "config")
		if n := full.Find("tr").Length(); n != 60 || !strings.Contains(full.Text(), "key_59") {
			t.Errorf("the configuration page shows %d keys", n)
		}
		r := b.do("GET", "/launches/cfg-1/config", "", nil, "HX-Request", "true")
		if body := string(r.body); r.status != 200 || strings.Contains(body, "<html") || strings.Count(body, "<tr>") != 60 {
			t.Errorf("htmx configuration: %d %.200s", r.status, body)
		}
		b.page("/launches/nope/config", 404)
	})

	t.Run("HealthyLaunchShowsReadyMarkerAndTimeToReady", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/ok-1/lines?server=sglang", healthyLog)
		doc := b.page("/launches/ok-1", 200)
		if s := testid(doc, "launch-status").Text(); s != "ready" {
			t.Errorf("status %q", s)
		}
		if s := testid(doc, "time-to-ready").Text(); strings.TrimSpace(s) != "1m20s" {
			t.Errorf("time to ready %q", s)
		}
		if href := testid(doc, "timeline-ready").AttrOr("href", ""); href != "/launches/ok-1?after=0#L7" {
			t.Errorf("ready marker links to %q", href)
		}
		if testid(doc, "no-alarms").Length() != 1 {
			t.Error("no 'no alarm' note")
		}
	})

	t.Run("GapsAreMarked", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/g/lines", "[2026-11-29 10:00:00] a\n[2026-11-29 10:00:05] b\n[2026-11-29 10:20:00] c\n[2026-11-29 10:20:01] d\n")
		doc := b.page("/launches/g", 200)
		gaps := testid(doc, "timeline-gap")
		if gaps.Length() != 1 || !strings.Contains(gaps.Text(), "19m55s") {
			t.Errorf("%d gaps: %q, want one of 19m55s", gaps.Length(), gaps.Text())
		}
		// The gaps are cached per launch until its lines change.
		b.postText("/api/v1/launches/g/lines", "[2026-11-29 11:00:00] e\n")
		doc = b.page("/launches/g", 200)
		if n := testid(doc, "timeline-gap").Length(); n != 2 {
			t.Errorf("%d gaps after a new line 40 minutes later, want 2", n)
		}
	})

	t.Run("CachedGapsFollowAppendedAndFilledLines", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// After each batch the page marks what a count over all lines finds,
		// whether the cached gaps were extended or counted again.
		for _, step := range []struct{ path, body string }{
			{"/api/v1/launches/g/lines", "[2026-11-29 10:00:00] a\n[2026-11-29 10:00:05] b\n[2026-11-29 10:20:00] c\n"},
			{"/api/v1/launches/g/lines", "[2026-11-29 10:20:30] d\n[2026-11-29 10:25:00] e\n"},
			{"/api/v1/launches/g/lines", "[2026-11-29 12:00:00] f\n"}, // the threshold grows past 4m30s
			{"/api/v1/launches/g/lines?seq=100", "[2026-11-29 13:00:00] g\n"},
			{"/api/v1/launches/g/lines?seq=50", "[2026-11-29 12:30:00] h\n"}, // fills the log
			{"/api/v1/launches/g/lines", "[2026-11-29 13:00:10] i\n[2026-11-29 13:40:00] j\n"},
		} {
			b.postText(step.path, step.body)
			doc := b.page("/launches/g", 200)
			var got []string
			for _, g := range testid(doc, "timeline-gap").EachIter() {
				got = append(got, strings.TrimSpace(g.Text()))
			}
			ctx := context.Background()
			l, err := b.store.LaunchByKey(ctx, "g")
			must(t, err)
			first, last, err := b.store.LineSpan(ctx, l.ID)
			must(t, err)
			gaps, err := b.store.Gaps(ctx, l.ID, max(30*time.Second, last.Sub(first)/10), 50)
			must(t, err)
			var want []string
			for _, g := range gaps {
				want = append(want, "no line for "+views.Duration(g.To.Sub(g.From))+" on the launch clock")
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("after %s: gaps %q, want %q", step.path, got, want)
			}
		}
	})

	t.Run("LogIsWindowedAndFiltered", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		var sb strings.Builder
		for i := 1; i <= 1200; i++ {
			fmt.Fprintf(&sb, "line %d\n", i)
		}
		b.postText("/api/v1/launches/big/lines", sb.String())
		b.postText("/api/v1/launches/big/lines", crashingLog)
		doc := b.page("/launches/big", 200)
		lines := testid(doc, "log").Find(`[data-testid="log-line"]`)
		if lines.Length() != 500 || lines.First().AttrOr("data-seq", "") != "1" {
			t.Fatalf("first window: %d lines from %q", lines.Length(), lines.First().AttrOr("data-seq", ""))
		}
		next := testid(doc, "log-next").AttrOr("href", "")
		if next != "/launches/big?after=500#log" {
			t.Fatalf("next window link %q", next)
		}
		doc = b.page(strings.TrimSuffix(next, "#log"), 200)
		lines = testid(doc, "log").Find(`[data-testid="log-line"]`)
		if lines.First().AttrOr("data-seq", "") != "501" || testid(doc, "log-first").Length() == 0 {
			t.Errorf("second window starts at %q", lines.First().AttrOr("data-seq", ""))
		}
		doc = b.page("/launches/big?after=1079", 200) // the permalink window of line 1100
		if doc.Find("#L1100").Length() != 1 {
			t.Error("permalink window lacks #L1100")
		}

		doc = b.page("/launches/big?errors=1", 200)
		for _, s := range testid(doc, "log").Find(`[data-testid="log-line"]`).EachIter() {
			if !s.HasClass("k-error") && !s.HasClass("in-alarm") {
				t.Errorf("errors only shows line %s of class %s", s.AttrOr("data-seq", ""), s.AttrOr("class", ""))
			}
		}
		if n := testid(doc, "log").Find(`[data-testid="log-line"]`).Length(); n < 5 {
			t.Errorf("errors only shows %d lines", n)
		}
		// Showing suppressed alarms is kept when paging, like the filters.
		doc = b.page("/launches/big?suppressed=1", 200)
		if next := testid(doc, "log-next").AttrOr("href", ""); !strings.Contains(next, "suppressed=1") {
			t.Errorf("next window link %q forgets suppressed=1", next)
		}
		doc = b.page("/launches/big?suppressed=1&after=600", 200)
		if first := testid(doc, "log-first").AttrOr("href", ""); !strings.Contains(first, "suppressed=1") {
			t.Errorf("first window link %q forgets suppressed=1", first)
		}
		doc = b.page("/launches/big?hideconfig=1&after=1200", 200)
		if n := testid(doc, "log").Find(`.k-config`).Length(); n != 0 {
			t.Errorf("hide config shows %d config lines", n)
		}
		if n := testid(doc, "log").Find(`[data-testid="log-line"]`).Length(); n != 12 {
			t.Errorf("hide config shows %d lines, want 12", n)
		}
	})

	t.Run("LogTextIsEscaped", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/x/lines", "<script>alert(1)</script> & <b>bold</b>\n")
		r := b.do("GET", "/launches/x", "", nil)
		if strings.Contains(string(r.body), "<script>alert") || strings.Contains(string(r.body), "<b>bold") {
			t.Error("log text is rendered as HTML")
		}
		doc := b.page("/launches/x", 200)
		if got := testid(doc, "log").Find(".text").Text(); got != "<script>alert(1)</script> & <b>bold</b>" {
			t.Errorf("text %q", got)
		}
	})

	t.Run("UnknownLaunchIs404Page", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		doc := b.page("/launches/nope", 404)
		if testid(doc, "error-title").Length() != 1 {
			t.Error("no error page")
		}
	})

	t.Run("TailFragmentForLivePages", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang", crashingLog)
		doc := b.page("/launches/crash-1", 200)
		if live := testid(doc, "log"); live.AttrOr("data-live", "") != "crash-1" || live.AttrOr("data-after", "") != "13" {
			t.Errorf("the last window does not follow the launch: %v", live.Nodes[0].Attr)
		}
		if _, ok := testid(b.page("/launches/crash-1?errors=1", 200), "log").Attr("data-live"); ok {
			t.Error("a filtered log follows the launch")
		}
		r := b.do("GET", "/launches/crash-1/tail?after=10", "", nil)
		body := string(r.body)
		if r.status != 200 || strings.Contains(body, "<html") || strings.Count(body, `data-testid="log-line"`) != 3 ||
			!strings.Contains(body, `id="facts"`) || !strings.Contains(body, `id="timeline" hx-swap-oob="true"`) {
			t.Errorf("tail fragment %d: %s", r.status, body)
		}
	})

	t.Run("LaunchWithoutLinesAndItsExit", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		if r := b.do("POST", "/api/v1/launches/quiet/heartbeat?server=vllm&host=gpu-z", "", nil); r.status != 200 {
			t.Fatalf("heartbeat: %d %s", r.status, r.body)
		}
		doc := b.page("/launches/quiet", 200)
		if s := testid(doc, "launch-status").Text(); s != "starting" {
			t.Errorf("status %q", s)
		}
		if testid(doc, "timeline").Length() != 0 || !strings.Contains(doc.Find("#timeline").Text(), "No line yet") {
			t.Error("a launch without lines draws a timeline")
		}
		b.report("/api/v1/launches/quiet/exit", `{"code": 3}`, "crashed")
		doc = b.page("/launches/quiet", 200)
		if s, code := testid(doc, "launch-status").Text(), testid(doc, "exit-code").Text(); s != "crashed" || code != "3" {
			t.Errorf("after exit 3: status %q, exit code %q", s, code)
		}
		if row := b.page("/", 200).Find(`[data-key="quiet"]`); !strings.Contains(row.Text(), "gpu-z") {
			t.Errorf("list row %q", row.Text())
		}
	})
}
