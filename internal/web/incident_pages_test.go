package web_test

import (
	"github.com/PuerkitoBio/goquery"

	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// openIncident opens an incident through the form and returns its page's path.
func (b *testBundle) openIncident(title string, keys ...string) string {
	b.t.Helper()
	res := b.postForm("/incidents", url.Values{"title": {title}, "severity": {"sev2"}, "launch": keys}, false)
	loc := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/incidents/") {
		b.t.Fatalf("opening an incident: %d %s %s", res.StatusCode, loc, readBody(b.t.(*testing.T), res))
	}
	return loc
}

func TestIncidentPages(t *testing.T) {
	t.Parallel()

	t.Run("FromLaunchPageToTimeline", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.crashAndGood()
		doc := b.page("/launches/crash-1", 200)
		href, _ := testid(doc, "open-incident").Attr("href")
		if href != "/incidents/new?launch=crash-1" {
			t.Fatalf("open incident link %q", href)
		}
		form := b.page(href, 200)
		if v, _ := testid(form, "incident-new-launch").Attr("value"); v != "crash-1" {
			t.Errorf("the form does not hold the launch: %q", v)
		}
		path := b.openIncident("OOM in capture", "crash-1", "good-1")
		page := b.page(path, 200)
		lanes := testid(page, "itl-lane")
		if lanes.Length() != 3 {
			t.Fatalf("%d lanes, want the incident's and one per launch", lanes.Length())
		}
		if k, _ := lanes.Eq(1).Attr("data-key"); k != "crash-1" {
			t.Errorf("second lane is %q", k)
		}
		kinds := map[string]int{}
		testid(page, "itl-mark").Each(func(_ int, s *goquery.Selection) {
			k, _ := s.Attr("data-kind")
			kinds[k]++
		})
		if kinds["alarm"] < 1 || kinds["ready"] != 1 || kinds["exit"] != 1 || kinds["status"] != 1 {
			t.Errorf("marks by kind %v, want an alarm, a ready, an exit and the opening status", kinds)
		}
		if n := testid(page, "itl-phase").Length(); n < 3 {
			t.Errorf("%d phase bars", n)
		}
	})

	t.Run("FromSelectedLaunches", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.crashAndGood()
		list := b.page("/", 200)
		form := testid(list, "incident-select")
		if action, _ := form.Attr("action"); action != "/incidents/new" {
			t.Fatalf("selection form posts to %q", action)
		}
		var keys []string
		testid(list, "pick-launch").Each(func(_ int, s *goquery.Selection) {
			if f, _ := s.Attr("form"); f == "incident-select" {
				v, _ := s.Attr("value")
				keys = append(keys, v)
			}
		})
		if len(keys) != 2 {
			t.Fatalf("selectable launches %v", keys)
		}
		doc := b.page("/incidents/new?launch=crash-1&launch=good-1&launch=crash-1", 200)
		if n := testid(doc, "incident-new-launch").Length(); n != 2 {
			t.Errorf("the form holds %d launches, want 2", n)
		}
		if res := b.postForm("/incidents", url.Values{"title": {" "}, "launch": {"crash-1"}}, false); res.StatusCode != 422 ||
			!strings.Contains(readBody(t, res), "title: is required") {
			t.Errorf("an untitled incident: %d", res.StatusCode)
		}
	})

	t.Run("NoteEditHistoryAndActions", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.crashAndGood()
		path := b.openIncident("OOM", "crash-1")
		res := b.postForm(path+"/notes", url.Values{"text": {"first take"}}, false)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("note: %d", res.StatusCode)
		}
		noteID := strings.TrimPrefix(res.Header.Get("Location"), path+"#inote-")
		if res := b.postForm(path+"/notes/"+noteID, url.Values{"text": {"second take"}}, false); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("edit: %d %s", res.StatusCode, readBody(t, res))
		}
		page := b.page(path, 200)
		if body := testid(page, "note-body").First().Text(); body != "second take" {
			t.Errorf("note shows %q", body)
		}
		if rev := testid(page, "note-revision").Text(); !strings.Contains(rev, "first take") {
			t.Errorf("history %q lacks the first text", rev)
		}
		b.postForm(path+"/actions", url.Values{"text": {"cap cuda_graph_max_bs at 32 on 80 GB cards"}}, false)
		page = b.page(path, 200)
		form := testid(page, "action-item").Find("form")
		action, _ := form.Attr("action")
		if res := b.postForm(action, url.Values{"done": {"true"}}, false); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("tick: %d", res.StatusCode)
		}
		if d, _ := testid(b.page(path, 200), "action-item").Attr("data-done"); d != "true" {
			t.Errorf("the item is not ticked")
		}
		for _, tc := range []struct {
			path   string
			form   url.Values
			status int
		}{
			{path + "/notes", url.Values{"text": {" "}}, 422},
			{path + "/notes/99999", url.Values{"text": {"x"}}, 404},
			{path + "/actions/99999", url.Values{"done": {"true"}}, 404},
			{action, url.Values{"done": {"maybe"}}, 422},
			{path, url.Values{"status": {"closed"}}, 422},
			{path + "/launches", url.Values{"add": {"nope"}}, 422},
			{"/incidents/99999/notes", url.Values{"text": {"x"}}, 404},
		} {
			if res := b.postForm(tc.path, tc.form, false); res.StatusCode != tc.status {
				t.Errorf("POST %s %v: %d, want %d", tc.path, tc.form, res.StatusCode, tc.status)
			}
		}
	})

	t.Run("ListFilters", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.crashAndGood()
		one := b.openIncident("capture OOM", "crash-1")
		b.openIncident("slow weights", "good-1")
		b.postForm(one, url.Values{"status": {"resolved"}}, false)
		ids := func(q string) []string {
			var out []string
			testid(b.page("/incidents"+q, 200), "incident-row").Each(func(_ int, s *goquery.Selection) {
				id, _ := s.Attr("data-id")
				out = append(out, id)
			})
			return out
		}
		oneID := strings.TrimPrefix(one, "/incidents/")
		for q, want := range map[string]int{"": 2, "?status=resolved": 1, "?q=OOM": 1, "?launch=good-1": 1, "?severity=sev4": 0} {
			if got := ids(q); len(got) != want {
				t.Errorf("/incidents%s lists %v, want %d", q, got, want)
			}
		}
		if got := ids("?status=resolved"); len(got) != 1 || got[0] != oneID {
			t.Errorf("resolved: %v, want %s", got, oneID)
		}
		doc := b.page("/incidents?severity=high", 400)
		if msg := testid(doc, "error-message").Text(); !strings.Contains(msg, "severity") {
			t.Errorf("bad filter message %q", msg)
		}
	})
}

func TestPostmortem(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.crashAndGood()
	path := b.openIncident("OOM in graph capture", "crash-1")
	b.postForm(path+"/notes", url.Values{"text": {"bumped cuda_graph_max_bs to 64 this morning"}}, false)
	b.postForm(path+"/actions", url.Values{"text": {"add a capture-size check to the launch script"}}, false)
	b.postForm(path, url.Values{"summary": {"Graph capture ran out of memory."}, "status": {"mitigated"}}, false)

	r := b.do("GET", path+"/postmortem.md", "", nil)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/markdown") {
		t.Fatalf("postmortem.md: %d %s", r.status, r.header.Get("Content-Type"))
	}
	md := string(r.body)
	for _, want := range []string{
		"# Post-mortem: OOM in graph capture",
		"## Summary\n\nGraph capture ran out of memory.",
		"## Impact", "1 launch on 1 host", "from start to the end", "exit code 1",
		"[**`torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.94 GiB. GPU 0 has a total capacity of 79.15 GiB`**](" + b.url + "/launches/crash-1?after=0#L13)",
		"```text\n[2026-11-29 10:01:30] Scheduler hit an exception: Traceback (most recent call last):",
		"## Timeline (UTC)", "2026-11-29 10:00:00 [`crash-1`](" + b.url + "/launches/crash-1) first line",
		"alarm 1 (oom, fatal, open): `torch.OutOfMemoryError", "incident opened (investigating)", "incident status mitigated",
		"[`crash-1`](" + b.url + "/launches/crash-1) against [`good-1`](" + b.url + "/launches/good-1)",
		"- `cuda_graph_max_bs`: `32` → `64`", "- `mem_fraction_static`: `0.6` → `0.7`",
		"bumped cuda_graph_max_bs to 64 this morning",
		"- [ ] add a capture-size check to the launch script",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
	doc := b.page(path+"/postmortem", 200)
	for id, want := range map[string]string{"pm-root-cause": "torch.OutOfMemoryError", "pm-configuration": "cuda_graph_max_bs",
		"pm-notes": "bumped cuda_graph_max_bs", "pm-actions": "capture-size check", "pm-timeline": "first line"} {
		if got := testid(doc, id).Text(); !strings.Contains(got, want) {
			t.Errorf("page section %s lacks %q", id, want)
		}
	}
	if r := b.do("GET", "/incidents/"+strconv.Itoa(999)+"/postmortem.md", "", nil); r.status != 404 {
		t.Errorf("post-mortem of no incident: %d", r.status)
	}
}
