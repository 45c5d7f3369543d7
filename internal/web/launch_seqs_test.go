package web_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"testing"

	"launchwatch/internal/web"
)

// GET /api/v1/launches/{key}/seqs tells a shipper, with the token it ships
// with, which seqs the launch holds: runs of consecutive seqs, a page at a
// time. Every answer to a signed-in client names the database's history;
// an anonymous one is told nothing of it.
func TestLaunchSeqs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.postText("/api/v1/launches/holes/lines?seq=1", "a\nb\nc\n")
	b.postText("/api/v1/launches/holes/lines?seq=7", "g\nh\n")
	b.postText("/api/v1/launches/holes/lines?seq=12", "l\n")
	token := b.srv.NewToken(t, "ingest")
	type page struct {
		Launch  string     `json:"launch"`
		LastSeq int64      `json:"last_seq"`
		Runs    [][2]int64 `json:"runs"`
		Next    *int64     `json:"next_after"`
	}
	get := func(path string) (page, response) {
		t.Helper()
		r := b.do("GET", path, "", nil, "Authorization", "Bearer "+token)
		var p page
		if r.status == http.StatusOK {
			if err := json.Unmarshal(r.body, &p); err != nil {
				t.Fatalf("%s: %v", r.body, err)
			}
		}
		return p, r
	}
	p, r := get("/api/v1/launches/holes/seqs")
	if r.status != http.StatusOK || p.LastSeq != 12 || !slices.Equal(p.Runs, [][2]int64{{1, 3}, {7, 8}, {12, 12}}) || p.Next != nil {
		t.Fatalf("seqs = %d %+v", r.status, p)
	}
	if h := r.header.Get(web.HistoryHeader); !regexp.MustCompile(`^system=\d+; timeline=\d+; database=\d+$`).MatchString(h) {
		t.Errorf("%s = %q", web.HistoryHeader, h)
	}
	p, _ = get("/api/v1/launches/holes/seqs?after=2&limit=2")
	if !slices.Equal(p.Runs, [][2]int64{{3, 3}, {7, 8}}) || p.Next == nil || *p.Next != 8 {
		t.Fatalf("first page after 2 = %+v", p)
	}
	p, _ = get("/api/v1/launches/holes/seqs?after=8&limit=2")
	if !slices.Equal(p.Runs, [][2]int64{{12, 12}}) || p.Next != nil {
		t.Fatalf("next page = %+v", p)
	}
	if _, r := get("/api/v1/launches/nothing-here/seqs"); r.status != http.StatusNotFound {
		t.Errorf("seqs of a launch that does not exist: %d, want 404", r.status)
	}
	if r := b.do("GET", "/healthz", "", nil, "Authorization", ""); r.header.Get(web.HistoryHeader) != "" {
		t.Errorf("an anonymous answer names the database's history: %q", r.header.Get(web.HistoryHeader))
	}
}
