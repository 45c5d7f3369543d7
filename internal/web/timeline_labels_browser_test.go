package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// overlappingLabels names the pairs of an SVG's texts whose drawn boxes
// cross, "" when none do.
func overlappingLabels(t *testing.T, tab context.Context, svg string) string {
	t.Helper()
	got, err := chromedp.Run(tab, chromedp.Evaluate[string](`(function () {
		var ts = Array.from(document.querySelectorAll('`+svg+` text')).filter(function (e) { return e.textContent.trim() !== ''; });
		var rs = ts.map(function (e) { return e.getBoundingClientRect(); }), out = [];
		for (var i = 0; i < ts.length; i++) for (var j = i + 1; j < ts.length; j++) {
			var a = rs[i], b = rs[j];
			if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
				out.push(JSON.stringify(ts[i].firstChild.textContent.trim()) + ' × ' + JSON.stringify(ts[j].firstChild.textContent.trim()));
		}
		return ts.length + ' labels' + (out.length ? ': ' + out.join('; ') : '');
	})()`))
	if err != nil {
		t.Fatalf("measuring %s's labels: %v", svg, err)
	}
	if n, _, _ := strings.Cut(got, " "); n == "0" {
		t.Fatalf("%s draws no label", svg)
	}
	if _, pairs, found := strings.Cut(got, ": "); found {
		return pairs
	}
	return ""
}

// svgText reads an SVG element's text (SVG elements have no innerText).
func svgText(t *testing.T, tab context.Context, sel string) string {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[string](
		`(function () { var e = document.querySelector('`+sel+`'); return e ? e.textContent.trim() : "<missing>"; })()`))
	if err != nil {
		t.Fatalf("reading %s: %v", sel, err)
	}
	return v
}

// TestBrowserTimelineLabels: no label of a timeline crosses another, at
// any span or width — an incident whose lanes span three weeks (its axis
// broken where nothing happened, its three status changes in one minute),
// and a launch whose exit line falls where a phase's label ends.
func TestBrowserTimelineLabels(t *testing.T) {
	t.Parallel()
	b := setup(t)
	now := time.Now().UTC().Truncate(time.Second)
	ship := "/lines?server=sglang&name=llama-8b&tz=UTC&host="
	b.postText("/api/v1/launches/good-1"+ship+"gpu-a", sglangLaunch(now.Add(-21*24*time.Hour), 32, "0.80", false))
	b.postText("/api/v1/launches/crash-1"+ship+"gpu-a", sglangLaunch(now.Add(-10*time.Minute), 64, "0.85", true))
	b.report("/api/v1/launches/crash-1/exit", `{"code": 1}`, "crashed")
	b.postText("/api/v1/launches/crash-2"+ship+"gpu-b", sglangLaunch(now.Add(-6*time.Minute), 64, "0.85", true))
	b.report("/api/v1/launches/crash-2/exit", `{"code": 1}`, "crashed")
	inc := b.incidentJSON("POST", "/api/v1/incidents", `{"title": "capture OOM", "severity": "sev2", "launches": ["good-1", "crash-1", "crash-2"]}`, 201)
	path := "/api/v1/incidents/" + itoa(inc.ID)
	b.incidentJSON("PATCH", path, `{"status": "mitigated"}`, 200)
	b.incidentJSON("PATCH", path, `{"status": "resolved"}`, 200)
	// The launch page's timeline: crashingLog's init bar ends where the
	// exit line is.
	b.postText("/api/v1/launches/exit-1/lines?server=sglang", crashingLog)
	b.report("/api/v1/launches/exit-1/exit", `{"code": 1}`, "crashed")
	tab := newBrowser(t)

	for _, width := range []int64{1280, 560} {
		must(t, chromedp.Do(tab, chromedp.EmulateViewport(width, 1000)))
		must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/incidents/"+itoa(inc.ID)), htmxIdle()))
		if pairs := overlappingLabels(t, tab, `svg.incident-timeline`); pairs != "" {
			t.Errorf("at %d px the incident timeline's labels cross: %s", width, pairs)
		}
		brk := svgText(t, tab, `[data-testid="itl-break"] .break-label`)
		if brk != "20 days" && brk != "21 days" {
			t.Errorf("at %d px the three weeks between the launches are drawn as %q, want a break", width, brk)
		}
		ticks, err := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="itl-tick"]').length`))
		if err != nil || ticks < 3 {
			t.Errorf("at %d px the axis has %d ticks (%v), want some on each side of the break", width, ticks, err)
		}
		status, err := chromedp.Run(tab, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('svg.incident-timeline .status-label')).map(function (e) { return e.textContent; }).join(' | ')`))
		if err != nil || !strings.Contains(status, "resolved") {
			t.Errorf("at %d px the status labels read %q (%v), want the last status shown", width, status, err)
		}
		if width == 1280 {
			readmeShot(t, tab, "incident-weeks.png", `svg.incident-timeline`)
		}

		must(t, chromedp.Do(tab, chromedp.Navigate(b.url+"/launches/exit-1"), htmxIdle()))
		if pairs := overlappingLabels(t, tab, `svg.timeline[data-testid="timeline"]`); pairs != "" {
			t.Errorf("at %d px the launch timeline's labels cross: %s", width, pairs)
		}
		if got := svgText(t, tab, `[data-testid="timeline-exit"] text`); got != "exit 1" {
			t.Errorf("at %d px the exit line's label %q, want it drawn", width, got)
		}
	}
}
