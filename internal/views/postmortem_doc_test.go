package views

import (
	"strings"
	"testing"
)

// TestPostmortemMarkdownQuotesLogText: log text with backticks, fences
// and line breaks stays inside its code span or block.
func TestPostmortemMarkdownQuotesLogText(t *testing.T) {
	t.Parallel()
	doc := PostmortemDoc{Title: "a\nb", Sections: []DocSection{{Title: "S", Blocks: []DocBlock{
		{Para: []DocText{DocCode("x `y` ``z``")}},
		{Para: []DocText{DocCode("`edge`")}},
		{Code: "```\n# not a heading\n"},
		{Checks: []DocCheck{{Done: true, Text: []DocText{DocPlain("done\nsecond line")}}}},
	}}}}
	md := PostmortemMarkdown(doc)
	for _, want := range []string{
		"# a b\n",
		"``` x `y` ``z`` ```",
		"`` `edge` ``",
		"````text\n```\n# not a heading\n````\n",
		"- [x] done\n  second line\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestPostmortemMarkdownIsPlainText: terminal escapes and control
// characters never reach the Markdown; a progress bar is its last redraw.
func TestPostmortemMarkdownIsPlainText(t *testing.T) {
	t.Parallel()
	doc := PostmortemDoc{Title: "OOM \x1b[31min\x1b[0m capture\a", Sections: []DocSection{{Title: "S", Blocks: []DocBlock{
		{Para: []DocText{DocCode("\x1b[1;31mRuntimeError\x1b[0m: boom\x7f"), DocPlain(" and \x1b]8;;http://x\x07a link\x1b]8;;\x07\u0085")}},
		{Code: "\x1b[31mERROR\x1b[0m first\n10%|#  |\r100%|###|\n\ttabbed\x1b[K\n"},
	}}}}
	md := PostmortemMarkdown(doc)
	want := "# OOM in capture\n\n## S\n\n`RuntimeError: boom` and a link\n\n```text\nERROR first\n100%|###|\n\ttabbed\n```\n\n"
	if md != want {
		t.Errorf("Markdown:\n%q\nwant\n%q", md, want)
	}
}
