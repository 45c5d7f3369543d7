package views_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"launchwatch/internal/views"
)

// TestLogRowText: a log row's text and a configuration dump's cells are
// the line's characters exactly once parsed — markup in them stays text
// — though a row is written small (quotes unescaped in text, the cells'
// optional end tags left out).
func TestLogRowText(t *testing.T) {
	t.Parallel()
	text := `server_args=ServerArgs(model_path='/m/<b>llama</b>', chat="a & b", tp=2) <script>alert(1)</script>`
	kvs := []views.KV{{K: "model_path", V: "'/m/<b>llama</b>'"}, {K: "chat", V: `"a & b"`}, {K: "tp", V: "2"}}
	for _, ln := range []views.LogLine{
		{Seq: 7, Kind: "plain", Text: text, Href: "?after=0#L7"},
		{Seq: 8, Kind: "config", Text: text, Config: kvs, Href: "?after=0#L8"},
	} {
		var buf bytes.Buffer
		if err := views.LogRow(ln, true).Render(context.Background(), &buf); err != nil {
			t.Fatal(err)
		}
		html := buf.String()
		if strings.Contains(html, "<script>") || strings.Contains(html, "<b>") {
			t.Fatalf("row %d holds the line's markup: %s", ln.Seq, html)
		}
		doc := renderDoc(t, views.LogRow(ln, true))
		row := doc.Find(`[data-testid="log-line"]`)
		if row.Length() != 1 || row.AttrOr("data-seq", "") != strconv.FormatInt(ln.Seq, 10) {
			t.Fatalf("row %d: %d rows, data-seq %q", ln.Seq, row.Length(), row.AttrOr("data-seq", ""))
		}
		if ln.Config == nil {
			if got := row.Find(".text").Text(); got != text {
				t.Errorf("row text = %q, want %q", got, text)
			}
			continue
		}
		dump := row.Find(`[data-testid="config-dump"]`)
		if got := dump.Find("div").Text(); got != text {
			t.Errorf("dump text = %q, want %q", got, text)
		}
		trs := dump.Find("tr")
		if trs.Length() != len(kvs) {
			t.Fatalf("dump has %d rows, want %d", trs.Length(), len(kvs))
		}
		for i, kv := range kvs {
			tds := trs.Eq(i).Find("td")
			if tds.Length() != 2 || tds.Eq(0).Text() != kv.K || tds.Eq(1).Text() != kv.V {
				t.Errorf("dump row %d = %d cells %q %q, want %q %q", i, tds.Length(), tds.Eq(0).Text(), tds.Eq(1).Text(), kv.K, kv.V)
			}
		}
	}
}
