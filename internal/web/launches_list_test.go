package web_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

type launchesPage struct {
	Launches []struct {
		Key    string            `json:"key"`
		Status string            `json:"status"`
		Server string            `json:"server"`
		Labels map[string]string `json:"labels"`
		Why    string            `json:"why"`
		Alarms []json.RawMessage `json:"alarms"`
	} `json:"launches"`
	NextAfter string `json:"next_after"`
}

func (b *testBundle) launchesAPI(path string) launchesPage {
	b.t.Helper()
	r := b.do("GET", path, "", nil)
	if r.status != 200 {
		b.t.Fatalf("GET %s: %d %s", path, r.status, r.body)
	}
	var p launchesPage
	if err := json.Unmarshal(r.body, &p); err != nil {
		b.t.Fatalf("GET %s: %v: %s", path, err, r.body)
	}
	return p
}

func (p launchesPage) keys() string {
	var out []string
	for _, l := range p.Launches {
		out = append(out, l.Key)
	}
	return strings.Join(out, ",")
}

func TestLaunchesList(t *testing.T) {
	t.Parallel()

	t.Run("FiltersLikeTheListPage", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/crash-1/lines?server=sglang&label.team=infer", crashingLog)
		b.postText("/api/v1/launches/ok-1/lines?server=vllm&name=llama-8b", "INFO starting\n")
		b.settled("crash-1")
		for path, want := range map[string]string{
			"/api/v1/launches":                      "ok-1,crash-1",
			"/api/v1/launches?status=alarm":         "crash-1",
			"/api/v1/launches?server=vllm":          "ok-1",
			"/api/v1/launches?label=team=infer":     "crash-1",
			"/api/v1/launches?label=team":           "crash-1",
			"/api/v1/launches?q=LLAMA":              "ok-1",
			"/api/v1/launches?label=team=other":     "",
			"/api/v1/launches?server=sglang&q=ok":   "",
			"/api/v1/launches?status=alarm&limit=1": "crash-1",
		} {
			if got := b.launchesAPI(path).keys(); got != want {
				t.Errorf("GET %s: %q, want %q", path, got, want)
			}
		}
		p := b.launchesAPI("/api/v1/launches?label=team=infer")
		if l := p.Launches[0]; l.Status != "alarm" || l.Labels["team"] != "infer" || l.Alarms != nil ||
			!strings.HasPrefix(l.Why, "torch.OutOfMemoryError: CUDA out of memory") {
			t.Errorf("crash-1 in the list: %+v", l)
		}
	})

	t.Run("CursorPaging", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		for i := range 7 {
			b.postText(fmt.Sprintf("/api/v1/launches/l-%d/lines?server=sglang", i), "hello\n")
		}
		var pages []string
		path := "/api/v1/launches?limit=3"
		for {
			p := b.launchesAPI(path)
			pages = append(pages, p.keys())
			if p.NextAfter == "" {
				break
			}
			path = "/api/v1/launches?limit=3&after=" + url.QueryEscape(p.NextAfter)
			// A launch arriving between pages does not shift the next one.
			b.postText("/api/v1/launches/new-"+p.NextAfter+"/lines", "hello\n")
		}
		if got := strings.Join(pages, " | "); got != "l-6,l-5,l-4 | l-3,l-2,l-1 | l-0" {
			t.Errorf("pages %q", got)
		}
	})

	t.Run("BadParametersAre400", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/a/lines", "hello\n")
		for path, want := range map[string]string{
			"/api/v1/launches?label=" + url.QueryEscape("=infer"):    "label filter",
			"/api/v1/launches?label=" + url.QueryEscape("te am=x"):   "label filter",
			"/api/v1/launches?label=" + url.QueryEscape("team=a\nb"): "",
			"/api/v1/launches?status=bogus":                          `status "bogus"`,
			"/api/v1/launches?limit=0":                               "limit",
			"/api/v1/launches?after=nope":                            "names no launch",
			"/api/v1/launches?after=" + url.QueryEscape("bad key!"):  "not a launch key",
		} {
			r := b.do("GET", path, "", nil)
			if r.status != 400 || !strings.Contains(errorMessage(t, r), want) {
				t.Errorf("GET %s: %d %s, want 400 saying %q", path, r.status, r.body, want)
			}
		}
	})

	t.Run("WhyColumn", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/oom/lines?server=sglang", crashingLog)
		b.postText("/api/v1/launches/e1/lines?server=sglang", healthyLog)
		b.report("/api/v1/launches/e1/exit", `{"code": 1}`, "crashed")
		b.postText("/api/v1/launches/k9/lines?server=sglang", healthyLog)
		b.report("/api/v1/launches/k9/exit", `{"signal": "SIGKILL"}`, "crashed")
		b.postText("/api/v1/launches/ok/lines?server=sglang", healthyLog)
		b.settled("oom")
		doc := b.page("/", 200)
		for key, want := range map[string]string{
			"oom": "torch.OutOfMemoryError: CUDA out of memory", "e1": "exit code 1", "k9": "killed by SIGKILL", "ok": "",
		} {
			why := doc.Find(`[data-testid="launch-row"][data-key="` + key + `"] [data-testid="why"]`).Text()
			if !strings.HasPrefix(why, want) || (want == "" && why != "") {
				t.Errorf("%s: why %q, want %q", key, why, want)
			}
		}
	})

	t.Run("MalformedLabelOnTheListPageIsAn400WithTheForm", func(t *testing.T) {
		t.Parallel()
		b := setup(t)
		b.postText("/api/v1/launches/a/lines", "hello\n")
		doc := b.page("/?label="+url.QueryEscape("=infer"), 400)
		if msg := testid(doc, "error-message").Text(); !strings.Contains(msg, `label filter "=infer" is not valid`) {
			t.Errorf("error %q", msg)
		}
		if v := testid(doc, "launch-filters").Find(`input[name="label"]`).AttrOr("value", ""); v != "=infer" {
			t.Errorf("the form holds label %q", v)
		}
	})
}
