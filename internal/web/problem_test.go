package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestProblems: alarms grouped by fingerprint across launches with their
// counts and trend; a problem's page lists its launches and headlines; a
// decision previews the open alarms and then decides exactly those,
// attributed to the reviewer, leaving confirmed ones and alarms that
// opened after the preview alone.
func TestProblems(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, k := range []string{"p-1", "p-2", "p-3"} {
		b.postText("/api/v1/launches/"+k+"/lines?server=sglang", exportOOM)
		b.settled(k)
	}
	b.postText("/api/v1/launches/probe-9/lines?server=vllm", exportProbe)
	b.settled("probe-9")
	b.postForm("/launches/p-1/alarms/1/decide", url.Values{"verdict": {"confirm"}, "name": {"ada"}, "reason": {"real"}}, false)
	fp := b.alarm("p-1", 1).Fingerprint

	doc := b.page("/problems", http.StatusOK)
	row := testid(doc, "problems").Find(`tr[data-fingerprint="` + fp + `"]`)
	if row.Length() != 1 || text(row.Find(`[data-testid="problem-launches"]`)) != "3" ||
		text(row.Find(`[data-testid="problem-open"]`)) != "2" || !strings.HasSuffix(text(row.Find(`[data-testid="problem-trend"]`)), "new") ||
		!strings.Contains(row.Text(), "torch.OutOfMemoryError: CUDA out of memory") {
		t.Fatalf("problem row: %q", row.Text())
	}
	if n := testid(b.page("/problems?open=1&server=vllm", http.StatusOK), "problem-row").Length(); n != 1 {
		t.Errorf("open vllm problems: %d rows", n)
	}

	doc = b.page("/problems/"+fp, http.StatusOK)
	if n := testid(doc, "problem-alarm").Length(); n != 3 {
		t.Errorf("problem page lists %d alarms", n)
	}
	if h := testid(doc, "problem-headlines").Text(); !strings.Contains(h, "Tried to allocate 7.25 GiB") || !strings.Contains(h, "× 3") {
		t.Errorf("headlines: %q", h)
	}

	// Preview, then a launch with the same OOM arrives, then apply.
	doc = b.page("/problems/"+fp+"?verdict=dismiss&reason=the+OOM+drill&preview=1", http.StatusOK)
	if c := text(testid(doc, "preview-count")); c != "2" {
		t.Fatalf("preview count %q", c)
	}
	form := url.Values{}
	testid(doc, "problem-decide-form").Find("input[type=hidden]").Each(func(_ int, s *goquery.Selection) {
		form.Add(s.AttrOr("name", ""), s.AttrOr("value", ""))
	})
	if got := strings.Join(form["alarm"], ","); got != "p-3/1,p-2/1" && got != "p-2/1,p-3/1" {
		t.Fatalf("previewed refs %q", got)
	}
	b.postText("/api/v1/launches/p-4/lines?server=sglang", exportOOM)
	b.settled("p-4")

	// A viewer may not decide: nothing is decided.
	viewer := &http.Cookie{Name: "lw_session", Value: b.srv.Session(t, "vic", "viewer")}
	if res := b.postForm("/problems/"+fp+"/decide", form, false, viewer); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a viewer deciding: %d", res.StatusCode)
	}
	if b.alarm("p-2", 1).State != "open" {
		t.Fatal("a viewer's decision was stored")
	}
	bob := &http.Cookie{Name: "lw_session", Value: b.srv.Session(t, "bob", "reviewer")}
	res := b.postForm("/problems/"+fp+"/decide", form, false, bob)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("decide: %d %s", res.StatusCode, readBody(t, res))
	}
	for key, want := range map[string]string{"p-1": "confirmed", "p-2": "dismissed", "p-3": "dismissed", "p-4": "open"} {
		a := b.alarm(key, 1)
		if a.State != want {
			t.Errorf("%s: %s, want %s", key, a.State, want)
		}
		if want == "dismissed" && (a.DecidedBy == nil || *a.DecidedBy != "bob" || a.Reason == nil || *a.Reason != "the OOM drill") {
			t.Errorf("%s decided by %v because %v", key, a.DecidedBy, a.Reason)
		}
	}
	audit, err := b.store.AuditFor(t.Context(), "alarm:p-2/1")
	if err != nil || len(audit) != 1 || audit[0].Actor != "bob" || audit[0].Detail["problem"] != fp {
		t.Errorf("audit of p-2/1: %+v %v", audit, err)
	}
	doc = b.page(res.Header.Get("Location"), http.StatusOK)
	if d := text(testid(doc, "problem-done")); d != "2 alarm(s) dismissed." {
		t.Errorf("done: %q", d)
	}

	t.Run("BadInput", func(t *testing.T) {
		if r := b.do("GET", "/problems/"+fp+"?verdict=dismiss&preview=1", "", nil); r.status != http.StatusUnprocessableEntity ||
			!strings.Contains(string(r.body), "say why") {
			t.Errorf("dismiss without a reason: %d", r.status)
		}
		for path, want := range map[string]int{"/problems/NOT-HEX": 400, "/problems/0123456789abcdef": 404,
			"/problems?server=%20%24": 400} {
			if r := b.do("GET", path, "", nil); r.status != want {
				t.Errorf("%s: %d, want %d", path, r.status, want)
			}
		}
	})
}

func text(s *goquery.Selection) string { return strings.TrimSpace(s.Text()) }
