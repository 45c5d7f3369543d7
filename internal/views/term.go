package views

import (
	"context"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/a-h/templ"
	terminal "github.com/buildkite/terminal-to-html/v3"
)

// Log text is what a server wrote to its terminal: SGR colours
// ("\x1b[1;36m"; 256-colour and truecolour ones too, see term256.go), and
// progress bars that redraw one line with "\r". Term renders it as the
// terminal showed it, with Buildkite's terminal-to-html: colours become
// <span class="term-fg36"> (styled in static/app.css and static/term256.css),
// a line of "\r" redraws shows its last state, and the text is HTML-escaped
// by the library (it writes every rune through its own escaper). Plain is
// the same text without styles, for attributes, titles and the list.

// termSpecial are the runes that make a text need the terminal renderer;
// any other text is escaped and written as it is.
const termSpecial = "\x1b\r\b\u241b"

// oscOrAPC matches operating-system and application commands (OSC 8 links,
// iTerm inline images, Buildkite timestamps): a log line must not turn into
// a link or an image on our page, so they are dropped before rendering and
// only their visible text is kept.
var oscOrAPC = regexp.MustCompile("\x1b[\\]_][^\x07\x1b]*(?:\x07|\x1b\\\\)?")

// controls are what may remain after rendering: a stray ESC of a sequence
// the renderer did not know, other C0 controls, and U+241B (the visible
// "␛" some shippers write instead of ESC).
var controls = strings.NewReplacer("\x1b", "", "\u241b", "", "\b", "", "\r", "")

// termScreen runs text through a terminal screen wide enough that no line
// wraps, so "\r" returns to the start of the logical line.
func termScreen(text string) *terminal.Screen {
	// Some shippers replace ESC with its visible symbol; read it as ESC.
	text = strings.ReplaceAll(text, "\u241b[", "\x1b[")
	text = oscOrAPC.ReplaceAllString(text, "")
	text = paletteSGR(text)
	cols := max(160, utf8.RuneCountInString(text)+1)
	s, err := terminal.NewScreen(terminal.WithSize(cols, 100))
	if err != nil {
		// WithSize fails only on a non-positive size.
		panic("views: terminal screen: " + err.Error())
	}
	s.Timestamps = false
	_, _ = s.Write([]byte(text))
	return s
}

// TermHTML is text rendered as a terminal shows it, as safe HTML: styled
// spans around escaped text, no escape sequence left.
func TermHTML(text string) string {
	if !strings.ContainsAny(text, termSpecial) {
		return EscapeText(text)
	}
	out := termScreen(text).AsHTMLWithTimestamps(false)
	if out == "&nbsp;" {
		return ""
	}
	return controls.Replace(out)
}

// textEscaper escapes what is markup in an element's text: "&" and "<"
// (and ">", by habit). Quotes need no escape there, and a log line holds
// many: templ.EscapeString's "&#34;" is five bytes for one.
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// EscapeText is text escaped for an element's content, never for an
// attribute's value.
func EscapeText(text string) string { return textEscaper.Replace(text) }

// Plain is text as a terminal shows it, without styles: for titles,
// attributes and one-line summaries.
func Plain(text string) string {
	if !strings.ContainsAny(text, termSpecial) {
		return text
	}
	return controls.Replace(termScreen(text).AsPlainText())
}

// Term writes text as TermHTML, with the hits of the search the context
// carries (WithHits) marked.
func Term(text string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		out := TermHTML(text)
		if re, _ := ctx.Value(hitsKey{}).(*regexp.Regexp); re != nil {
			out = MarkHits(out, re)
		}
		_, err := io.WriteString(w, out)
		return err
	})
}
