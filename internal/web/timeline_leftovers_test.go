package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"launchwatch/internal/store"
)

func TestTimelineLeftovers(t *testing.T) {
	t.Parallel()

	t.Run("EveryReadyIsMarked", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		// Ready at +32 s, a crash, then ready again at +152 s and +272 s.
		b.postText("/api/v1/launches/rr/lines?server=sglang", restartingLog(3, 1))
		doc := b.page("/launches/rr", 200)
		marks := testid(doc, "timeline-ready")
		if marks.Length() != 3 {
			t.Fatalf("%d ready markers, want 3", marks.Length())
		}
		var titles, xs []string
		for _, m := range marks.EachIter() {
			titles = append(titles, strings.TrimSpace(m.Find("title").Text()))
			xs = append(xs, m.Find("line").AttrOr("x1", ""))
		}
		if strings.Join(titles, "|") != "ready|ready again|ready again" {
			t.Errorf("ready titles %q", titles)
		}
		if xs[0] == xs[1] || xs[1] == xs[2] {
			t.Errorf("ready markers at %q, want three places", xs)
		}
		// Zoomed to the second life, only its ready marker is drawn.
		doc = b.page("/launches/rr?from=120&to=200", 200)
		if n := testid(doc, "timeline-ready").Length(); n != 1 {
			t.Errorf("%d ready markers in +120–200 s, want 1", n)
		}
	})

	t.Run("CachedGapsFollowTheClock", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/gc/lines", "[2026-11-29 10:00:00] a\n[2026-11-29 10:00:05] b\n[2026-11-29 10:20:00] c\n[2026-11-29 10:20:01] d\n")
		gap := func() (x, w string) {
			g := testid(b.page("/launches/gc", 200), "timeline-gap")
			if g.Length() != 1 {
				t.Fatalf("%d gaps, want 1", g.Length())
			}
			return g.AttrOr("x", ""), g.AttrOr("width", "")
		}
		x0, w0 := gap()
		// The launch clock is corrected (a new offset moves every line):
		// gaps cached on the old clock would now lie before the first line.
		ctx := context.Background()
		l, err := b.store.LaunchByKey(ctx, "gc")
		must(t, err)
		must(t, b.store.WithTx(ctx, func(tx *store.Tx) error { return tx.ShiftClock(ctx, l.ID, 2*time.Hour) }))
		if x, w := gap(); x != x0 || w != w0 {
			t.Errorf("after the clock moved the gap is at x=%s width %s, want x=%s width %s", x, w, x0, w0)
		}
	})

	t.Run("BadZoomIsShownAtTheZoom", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/z/lines?server=sglang", restartingLog(2, 1))
		for q, want := range map[string]string{
			"from=abc":      `from="abc" is not a time`,
			"from=10&to=5":  "to=5 must be after from=10",
			"to=-5":         "to=-5 is out of range",
			"from=tomorrow": "RFC 3339",
		} {
			doc := b.page("/launches/z?"+q, 400)
			msg := testid(doc, "timeline-zoom-error").Text()
			if !strings.Contains(msg, want) || !strings.Contains(msg, "whole launch is shown") {
				t.Errorf("%s: zoom message %q, want %q", q, msg, want)
			}
			if testid(doc, "timeline").Length() != 1 || testid(doc, "zoom-all").Length() != 1 {
				t.Errorf("%s: no timeline or zoom links beside the message", q)
			}
		}
		// A bad log parameter is the log's error, not the zoom's.
		doc := b.page("/launches/z?level=%3Cx%3E", 400)
		if testid(doc, "timeline-zoom-error").Length() != 0 || testid(doc, "log-error").Length() != 1 {
			t.Error("a bad level is shown at the zoom")
		}
	})
}
