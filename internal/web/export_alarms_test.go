package web_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"launchwatch/internal/export"
)

// exportLogs are made-up launches: an OOM while loading (with lines
// before and after it), a request error after readiness, a probe's OOM.
const (
	exportOOM = "[2026-11-30 10:00:01] Load weight begin. avail mem=71.50 GB\n" +
		"[2026-11-30 10:00:02] Loading safetensors checkpoint shards: 3/8\n" +
		"[2026-11-30 10:00:03] Loading safetensors checkpoint shards: 4/8\n" +
		"[2026-11-30 10:00:04] Loading safetensors checkpoint shards: 5/8\n" +
		"Traceback (most recent call last):\n" +
		"  File \"/opt/acme/loader.py\", line 310, in load\n" +
		"    buf = torch.empty(n, device=dev)\n" +
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 7.25 GiB. GPU 3 has a total capacity of 79.10 GiB\n" +
		"[2026-11-30 10:00:05] Received sigquit from a child process. It usually means the child failed.\n" +
		"[2026-11-30 10:00:06] launcher: removed /dev/shm/acme-7 on the way out\n"
	exportProbe = "[2026-11-30 10:05:01] Load weight begin. avail mem=71.50 GB\n" +
		"Traceback (most recent call last):\n" +
		"  File \"/opt/acme/probe.py\", line 4, in <module>\n" +
		"    torch.empty(1 << 41, device=\"cuda\")\n" +
		"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2048.00 GiB (sizing probe)\n"
)

// exportAll reads every page of the export with q (limit per page),
// following X-Next-Cursor, and checks the Link header agrees.
func (b *testBundle) exportAll(q url.Values) ([]export.Record, int) {
	b.t.Helper()
	var out []export.Record
	pages := 0
	for {
		r := b.do("GET", "/api/v1/export/alarms.jsonl?"+q.Encode(), "", nil)
		if r.status != http.StatusOK {
			b.t.Fatalf("export %s: %d %s", q.Encode(), r.status, r.body)
		}
		if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/x-ndjson") {
			b.t.Errorf("Content-Type %q", ct)
		}
		pages++
		sc := bufio.NewScanner(bytes.NewReader(r.body))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var rec export.Record
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				b.t.Fatalf("line %q: %v", sc.Text(), err)
			}
			out = append(out, rec)
		}
		next := r.header.Get("X-Next-Cursor")
		if next == "" {
			if r.header.Get("Link") != "" {
				b.t.Errorf("last page has a Link: %s", r.header.Get("Link"))
			}
			return out, pages
		}
		if link := r.header.Get("Link"); !strings.Contains(link, "cursor="+url.QueryEscape(next)) || !strings.HasSuffix(link, `rel="next"`) {
			b.t.Errorf("Link %q does not lead to cursor %s", link, next)
		}
		q.Set("cursor", next)
	}
}

func TestExportAlarmsJSONL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seedDecisions(t, b)

	t.Run("EveryDecidedAlarmOnePerPage", func(t *testing.T) {
		recs, pages := b.exportAll(url.Values{"limit": {"1"}})
		if len(recs) != 3 || pages != 3 {
			t.Fatalf("%d records in %d pages: %+v", len(recs), pages, recs)
		}
		byKey := map[string]export.Record{}
		for _, r := range recs {
			byKey[r.Launch] = r
		}
		c := byKey["oom-1"]
		if c.State != "confirmed" || c.DecidedBy != "ada" || c.Reason != "tp=8 needs more memory" || c.DecidedAt.IsZero() ||
			c.Kind != "oom" || !c.Fatal || c.Server != "sglang" || c.Labels["team"] != "infra" || c.Rule != nil ||
			!strings.HasPrefix(c.Headline, "torch.OutOfMemoryError: CUDA out of memory") || c.Template == "" || c.Fingerprint == "" {
			t.Errorf("confirmed record = %+v", c)
		}
		if len(c.Lines) < 4 || c.Lines[0].Text != "Traceback (most recent call last):" || c.Lines[0].Seq != 5 {
			t.Errorf("own lines = %+v", c.Lines)
		}
		if len(c.Before) != 3 || c.Before[0].Seq != 2 || c.Before[2].Seq != 4 || !strings.Contains(c.Before[2].Text, "5/8") {
			t.Errorf("context before = %+v", c.Before)
		}
		if len(c.After) != 1 || c.After[0].Seq != c.LastSeq+1 || !strings.Contains(c.After[0].Text, "/dev/shm/acme-7") {
			t.Errorf("context after = %+v (last line %d)", c.After, c.LastSeq)
		}
		if d := byKey["oom-2"]; d.State != "dismissed" || d.DecidedBy != "bob" || d.Reason != "a test of the OOM path" {
			t.Errorf("dismissed record = %+v", d)
		}
		s := byKey["probe-1"]
		if s.State != "suppressed" || s.Rule == nil || s.Rule.Pattern != "(sizing probe)" || s.Rule.Author != "cy" ||
			s.DecidedBy != "cy" || s.Reason != "the sizing probe runs out of memory on purpose" || s.DecidedAt.IsZero() {
			t.Errorf("suppressed record = %+v (rule %+v)", s, s.Rule)
		}
		if _, ok := byKey["open-1"]; ok {
			t.Error("an open alarm was exported")
		}
	})

	t.Run("Filters", func(t *testing.T) {
		for q, want := range map[string][]string{
			"state=dismissed":               {"oom-2"},
			"server=vllm":                   {"probe-1"},
			"server=sglang&state=confirmed": {"oom-1"},
			"since=2h":                      {"oom-1", "oom-2", "probe-1"},
			"since=2999-01-01":              nil,
		} {
			v, _ := url.ParseQuery(q)
			recs, _ := b.exportAll(v)
			var got []string
			for _, r := range recs {
				got = append(got, r.Launch)
			}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s: got %v, want %v", q, got, want)
			}
		}
	})

	t.Run("BadParametersAre400", func(t *testing.T) {
		for _, q := range []string{"since=yesterday", "state=open", "server=Not%20A%20Server", "cursor=zzz",
			"cursor=a1.bm90LWEtY3Vyc29y", "limit=0", "limit=99999"} {
			r := b.do("GET", "/api/v1/export/alarms.jsonl?"+q, "", nil)
			if r.status != http.StatusBadRequest || errorMessage(t, r) == "" {
				t.Errorf("%s: %d %s", q, r.status, r.body)
			}
		}
	})
}
