package views_test

import (
	"os"
	"regexp"
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

func TestTermHTMLPalette(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"\x1b[38;5;208mwarn\x1b[0m":             `<span class="term-fgx208">warn</span>`,
		"\x1b[38:5:208mwarn\x1b[0m":             `<span class="term-fgx208">warn</span>`,
		"\x1b[48;5;17;38;5;231mx\x1b[0m":        `<span class="term-fgx231 term-bgx17">x</span>`,
		"\x1b[38;2;255;135;0morange\x1b[0m":     `<span class="term-fgx208">orange</span>`,
		"\x1b[38:2::255:135:0morange\x1b[0m":    `<span class="term-fgx208">orange</span>`,
		"\x1b[1;38;2;0;0;0;48;2;255;255;255mbw": `<span class="term-fgx16 term-bgx231 term-fg1">bw</span>`,
		"\x1b[38;2;300;0;0mclamped\x1b[0m":      `<span class="term-fgx196">clamped</span>`,
		"\x1b[38;2;1mcut":                       "cut",
	} {
		if got := views.TermHTML(in); got != want {
			t.Errorf("TermHTML(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTerm256CSSIsCurrent(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../static/term256.css")
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != views.Term256CSS() {
		t.Error("static/term256.css is not what views.Term256CSS writes: run make generate")
	}
	for _, class := range []string{".term-fgx208 { color: #ff8700; }", ".term-bgx17 { background: #00005f; color: #fff; }", ".term-fgx1 { color: #cf222e; }"} {
		if !strings.Contains(string(data), class) {
			t.Errorf("term256.css lacks %q", class)
		}
	}
}

func TestMarkHits(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, pattern, want string }{
		{"CUDA out of memory", "(?i)OUT OF", `CUDA <mark class="hit">out of</mark> memory`},
		{"a < b & c", `<|&`, `a <mark class="hit">&lt;</mark> b <mark class="hit">&amp;</mark> c`},
		{"\x1b[31mERR\x1b[0mOR: x", "ERROR", `<span class="term-fg31"><mark class="hit">ERR</mark></span><mark class="hit">OR</mark>: x`},
		{"path /a/b", "/a", `path <mark class="hit">/a</mark>/b`},
		{"\x1b[1mpath /a/b", "/a", `<span class="term-fg1">path <mark class="hit">&#47;a</mark>&#47;b</span>`},
		{"no hit", "zzz", "no hit"},
		{"empty matches", "x*", "empty matches"},
		{"<script>", "script", `&lt;<mark class="hit">script</mark>&gt;`},
	} {
		got := views.MarkHits(views.TermHTML(tt.in), regexp.MustCompile(tt.pattern))
		if got != tt.want {
			t.Errorf("MarkHits(%q, %q) = %q, want %q", tt.in, tt.pattern, got, tt.want)
		}
	}
}
