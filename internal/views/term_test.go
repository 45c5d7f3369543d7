package views_test

import (
	"strings"
	"testing"

	"launchwatch/internal/views"
)

func TestTermHTML(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain <b>&": "plain &lt;b&gt;&amp;",
		"\x1b[1;36m(APIServer pid=4394)\x1b[0;0m ok":         `<span class="term-fg36 term-fg1">(APIServer pid=4394)</span> ok`,
		"\u241b[31mred\u241b[0m":                             `<span class="term-fg31">red</span>`,
		"Loading:  10%\rLoading:  55%\rLoading: 100%":        "Loading: 100%",
		"Loading: 100%\r":                                    "Loading: 100%",
		"\x1b[31m<script>alert(1)</script>\x1b[0m":           `<span class="term-fg31">&lt;script&gt;alert(1)&lt;&#47;script&gt;</span>`,
		"\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07": "click",
		"cursor \x1b[?25lhidden\x1b[?25h":                    "cursor hidden",
		"lone \x1b":                                          "lone",
		"\r":                                                 "",
	} {
		got := views.TermHTML(in)
		if got != want {
			t.Errorf("TermHTML(%q) = %q, want %q", in, got, want)
		}
		if strings.ContainsAny(got, "\x1b\u241b\r") || strings.Contains(got, "<script") {
			t.Errorf("TermHTML(%q) = %q keeps an escape or a tag", in, got)
		}
	}
}

func TestPlain(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"no escapes <here>":                   "no escapes <here>",
		"\x1b[1;31mRuntimeError\x1b[0m: boom": "RuntimeError: boom",
		"50%|█████     |\r100%|██████████|":   "100%|██████████|",
	} {
		if got := views.Plain(in); got != want {
			t.Errorf("Plain(%q) = %q, want %q", in, got, want)
		}
	}
}
