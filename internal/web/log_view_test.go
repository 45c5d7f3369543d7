package web_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// ansiLog is a vLLM-style launch whose every line is coloured, with a
// tqdm bar that redraws itself with \r, a line trying to inject HTML, and
// a coloured traceback that raises an alarm.
func ansiLog(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "\x1b[1;36m(APIServer pid=4394)\x1b[0;0m INFO 11-29 10:%02d:%02d [api_server.py:1] step %d\n", (i/60)%60, i%60, i)
	}
	sb.WriteString("Loading safetensors checkpoint shards:   0% Completed | 0/4\rLoading safetensors checkpoint shards:  50% Completed | 2/4\rLoading safetensors checkpoint shards: 100% Completed | 4/4\r\n")
	sb.WriteString("\x1b[31m<script>alert(1)</script>\x1b[0m \u241b[33mvisible escape\u241b[0m\n")
	sb.WriteString("\x1b[1;31mERROR 11-29 11:00:00 [core.py:2] EngineCore failed to start.\x1b[0m\n")
	sb.WriteString("Traceback (most recent call last):\n")
	sb.WriteString("  File \"/vllm/engine/core.py\", line 12, in run\n")
	sb.WriteString("    raise ValueError(\"bad config\")\n")
	sb.WriteString("\x1b[1;31mValueError: bad config\x1b[0m\n")
	return sb.String()
}

// noEscapes fails when a page holds a raw ESC or its visible symbol U+241B.
func (b *testBundle) noEscapes(path string, wantStatus int) string {
	b.t.Helper()
	r := b.do("GET", path, "", nil)
	if r.status != wantStatus {
		b.t.Fatalf("GET %s: %d, want %d", path, r.status, wantStatus)
	}
	body := string(r.body)
	if i := strings.IndexAny(body, "\x1b\u241b"); i >= 0 {
		b.t.Errorf("GET %s: escape at %d: %q", path, i, body[max(0, i-80):min(len(body), i+80)])
	}
	return body
}

func TestLogViewANSI(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/ansi-good/lines?server=vllm", ansiLog(20))
	b.postText("/api/v1/launches/ansi/lines?server=vllm", ansiLog(1100))
	b.settled("ansi")

	// Every window of the log, forwards and backwards, and every other page
	// that shows its lines or headlines.
	seen := map[string]bool{}
	for next := "/launches/ansi"; next != ""; {
		b.noEscapes(next, 200)
		seen[next] = true
		doc := b.page(next, 200)
		next = strings.TrimSuffix(testid(doc, "log-next").First().AttrOr("href", ""), "#log")
		if seen[next] {
			t.Fatalf("paging loops at %s", next)
		}
	}
	if len(seen) != 3 {
		t.Errorf("paged through %d windows, want 3 of 500 lines for 1107 lines", len(seen))
	}
	for _, path := range []string{
		"/launches/ansi?before=1108", "/launches/ansi?before=600", "/launches/ansi?errors=1",
		"/launches/ansi?q=APIServer", "/launches/ansi?q=" + url.QueryEscape(`ValueError: \w+`) + "&re=1",
		"/launches/ansi/tail?after=1000", "/launches/ansi/alarms/1/context", "/compare?a=ansi-good&b=ansi", "/", "/review", "/rules/new?launch=ansi&alarm=1",
	} {
		b.noEscapes(path, 200)
	}

	doc := b.page("/launches/ansi?before=1108", 200)
	var redraw, script string
	for _, ln := range testid(doc, "log-line").EachIter() {
		text := ln.Find(".text")
		switch {
		case strings.Contains(text.Text(), "checkpoint shards"):
			redraw = text.Text()
		case strings.Contains(text.Text(), "alert(1)"):
			script = text.Text()
			if text.Find("script").Length() != 0 || text.Find("span.term-fg31").Length() != 1 || text.Find("span.term-fg33").Length() != 1 {
				t.Errorf("coloured HTML line renders as %q", must2(text.Html()))
			}
		}
	}
	if redraw != "Loading safetensors checkpoint shards: 100% Completed | 4/4" {
		t.Errorf("a \\r progress line shows %q, want its last state", redraw)
	}
	if script != "<script>alert(1)</script> visible escape" {
		t.Errorf("the HTML line shows %q", script)
	}
	first := b.page("/launches/ansi", 200)
	if s := testid(first, "log-line").First().Find("span.term-fg36.term-fg1"); s.Text() != "(APIServer pid=4394)" {
		t.Errorf("the first line's colour span holds %q", s.Text())
	}
	if h := testid(first, "alarm-headline").First(); h.Length() == 0 || strings.Contains(must2(h.Html()), "[1;31m") {
		t.Errorf("alarm headline %q", must2(h.Html()))
	}
}

func must2(s string, err error) string {
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return s
}

func TestLogViewNavigation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var sb strings.Builder
	for i := 1; i <= 1200; i++ {
		level := "INFO"
		if i%100 == 0 {
			level = "WARNING"
		}
		fmt.Fprintf(&sb, "2026-11-29 10:00:00,000 %s line %d\n", level, i)
	}
	b.postText("/api/v1/launches/big/lines", sb.String())
	position := func(path string) (string, map[string]string) {
		t.Helper()
		doc := b.page(path, 200)
		links := map[string]string{}
		for _, id := range []string{"log-first", "log-prev", "log-next", "log-last", "log-jump-end"} {
			if href, ok := testid(doc, id).First().Attr("href"); ok {
				links[id] = href
			}
		}
		return strings.Join(strings.Fields(testid(doc, "log-position").First().Text()), " "), links
	}

	pos, links := position("/launches/big")
	if pos != "lines 1–500 of 1200" {
		t.Errorf("first window: %q", pos)
	}
	if links["log-first"] != "" || links["log-prev"] != "" || links["log-next"] != "/launches/big?after=500#log" ||
		links["log-last"] != "/launches/big?before=1201#log-end" || links["log-jump-end"] != links["log-last"] {
		t.Errorf("first window links %v", links)
	}
	pos, links = position("/launches/big?before=1201")
	if pos != "lines 701–1200 of 1200" || links["log-next"] != "" || links["log-last"] != "" ||
		links["log-prev"] != "/launches/big?before=701#log" || links["log-jump-end"] != "#log-end" {
		t.Errorf("last window %q, links %v", pos, links)
	}
	if pos, _ = position("/launches/big?before=701"); pos != "lines 201–700 of 1200" {
		t.Errorf("previous of the last window: %q", pos)
	}
	pos, links = position("/launches/big?after=500")
	if pos != "lines 501–1000 of 1200" || links["log-prev"] != "/launches/big?before=501#log" || links["log-first"] != "/launches/big?after=0#log" {
		t.Errorf("second window %q, links %v", pos, links)
	}
	if pos, _ = position("/launches/big?before=501"); pos != "lines 1–500 of 1200" {
		t.Errorf("previous of the second window: %q", pos)
	}

	seqs := func(path string) string {
		t.Helper()
		var out []string
		for _, ln := range testid(b.page(path, 200), "log-line").EachIter() {
			out = append(out, ln.AttrOr("data-seq", ""))
		}
		return strings.Join(out, ",")
	}
	for path, want := range map[string]string{
		"/launches/big?q=LINE+115":                                               "115,1150,1151,1152,1153,1154,1155,1156,1157,1158,1159",
		"/launches/big?re=1&q=" + url.QueryEscape(`line 11[0-9]0$`):              "1100,1110,1120,1130,1140,1150,1160,1170,1180,1190",
		"/launches/big?re=1&q=" + url.QueryEscape(`(?i)LINE 7\d\b`):              "70,71,72,73,74,75,76,77,78,79",
		"/launches/big?level=warning&q=line+1":                                   "100,1000,1100,1200",
		"/launches/big?kind=plain&q=line+120":                                    "120",
		"/launches/big?kind=warning&q=line+120":                                  "1200",
		"/launches/big?stream=stderr":                                            "",
		"/launches/big?q=" + url.QueryEscape("%") + "&level=WARNING":             "",
		"/launches/big?re=1&q=" + url.QueryEscape(`line 12\d\d`) + "&after=1100": "1200",
	} {
		if got := seqs(path); got != want {
			t.Errorf("GET %s: seqs %s, want %s", path, got, want)
		}
	}
	// Searching keeps the search in the paging links and says how far it read.
	doc := b.page("/launches/big?q=line&after=1", 200)
	if prev := testid(doc, "log-prev").First().AttrOr("href", ""); prev != "/launches/big?before=2&q=line#log" {
		t.Errorf("search previous link %q", prev)
	}
	if pos := testid(doc, "log-position").First().Text(); !strings.Contains(pos, "searched lines 2–501") {
		t.Errorf("search position %q", pos)
	}

	// A regexp that does not compile is a 400 page with the form and the
	// reason, never a 500.
	doc = b.page("/launches/big?re=1&q="+url.QueryEscape("(unclosed"), 400)
	if msg := testid(doc, "log-error").Text(); !strings.Contains(msg, "not a valid RE2 regular expression") || !strings.Contains(msg, "missing closing )") {
		t.Errorf("bad regexp message %q", msg)
	}
	if testid(doc, "log-filters").Length() != 1 || testid(doc, "log-line").Length() != 0 {
		t.Error("the bad regexp page lacks the form or shows lines")
	}
	if v := testid(doc, "log-search").AttrOr("value", ""); v != "(unclosed" {
		t.Errorf("the search box holds %q", v)
	}
	for _, path := range []string{"/launches/big?kind=bogus", "/launches/big?level=" + url.QueryEscape("<b>"), "/launches/big?before=-1"} {
		b.page(path, 400)
	}
}
