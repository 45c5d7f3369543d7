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
