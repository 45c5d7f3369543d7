package web_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"launchwatch/internal/corpustest"
	"launchwatch/internal/eval"
)

// TestCorpusThroughIngestMatchesEval posts every corpus log through the
// ingest API, in random batches, as plain text and as NDJSON, and requires
// the stored alarms and readiness to be exactly what `launchwatch eval`
// computes for the same file.
func TestCorpusThroughIngestMatchesEval(t *testing.T) {
	t.Parallel()
	cases, err := eval.LoadDir(corpustest.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	b := setup(t)
	for i, c := range cases {
		want, err := eval.Feed(c.Lines, c.Label.Server, eval.LineByLine, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, format := range []string{"text", "ndjson"} {
			key := fmt.Sprintf("corpus-%d-%s", i, format)
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			for from := 0; from < len(c.Lines); {
				to := min(len(c.Lines), from+1+rng.IntN(40))
				postBatch(t, b, key, c.Label.Server, format, c.Lines, from, to)
				from = to
			}
			got := b.launch(key)
			var stored struct {
				Alarms []struct {
					Kind        string `json:"kind"`
					Fatal       bool   `json:"fatal"`
					Headline    string `json:"headline"`
					HeadlineSeq int64  `json:"headline_seq"`
					FirstSeq    int64  `json:"first_seq"`
					LastSeq     int64  `json:"last_seq"`
				} `json:"alarms"`
			}
			r := b.do("GET", "/api/v1/launches/"+key, "", nil)
			if err := json.Unmarshal(r.body, &stored); err != nil {
				t.Fatal(err)
			}
			var gotRows, wantRows []string
			for _, a := range stored.Alarms {
				gotRows = append(gotRows, fmt.Sprintf("%s fatal=%v %d-%d @%d %q", a.Kind, a.Fatal, a.FirstSeq, a.LastSeq, a.HeadlineSeq, strings.TrimRight(a.Headline, "\r")))
			}
			for _, a := range want.Alarms {
				wantRows = append(wantRows, fmt.Sprintf("%s fatal=%v %d-%d @%d %q", a.Kind, a.Fatal, a.FirstSeq, a.LastSeq, a.HeadlineSeq, strings.TrimRight(a.Headline, "\r")))
			}
			if strings.Join(gotRows, "\n") != strings.Join(wantRows, "\n") {
				t.Errorf("%s (%s): alarms through ingest\n%s\nwant (eval)\n%s", c.Name, format, strings.Join(gotRows, "\n"), strings.Join(wantRows, "\n"))
			}
			switch {
			case want.Ready == nil && got.ReadySeq != nil:
				t.Errorf("%s (%s): ready at %d through ingest, not ready in eval", c.Name, format, *got.ReadySeq)
			case want.Ready != nil && (got.ReadySeq == nil || *got.ReadySeq != want.Ready.Seq):
				t.Errorf("%s (%s): ready at %v through ingest, at %d in eval", c.Name, format, got.ReadySeq, want.Ready.Seq)
			}
		}
	}
}

func postBatch(t *testing.T, b *testBundle, key, server, format string, lines []string, from, to int) {
	t.Helper()
	path := fmt.Sprintf("/api/v1/launches/%s/lines?server=%s", key, server)
	if format == "text" {
		b.postText(fmt.Sprintf("%s&seq=%d", path, from+1), strings.Join(lines[from:to], "\n")+"\n")
		return
	}
	var body strings.Builder
	for i := from; i < to; i++ {
		line, _ := json.Marshal(lines[i])
		fmt.Fprintf(&body, `{"seq": %d, "line": %s}`+"\n", i+1, line)
	}
	b.postNDJSON(path, body.String())
}
