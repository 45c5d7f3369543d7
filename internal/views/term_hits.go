package views

import (
	"context"
	"html"
	"io"
	"regexp"
	"strings"

	"github.com/a-h/templ"
)

// A search inside a launch marks its hits in the lines it shows: the
// matches of the search in the text as the terminal shows it, each wrapped
// in <mark class="hit">, inside the styled spans (a hit across a colour
// change is marked in pieces, so the HTML stays well nested).

type hitsKey struct{}

// WithHits renders its children with the hits of re marked in every Term
// below it; a nil re marks nothing.
func WithHits(re *regexp.Regexp) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		children := templ.GetChildren(ctx)
		ctx = templ.ClearChildren(ctx)
		if re != nil {
			ctx = context.WithValue(ctx, hitsKey{}, re)
		}
		return children.Render(ctx, w)
	})
}

// HitsPattern is what the log view marks for a search: the RE2 expression
// as given, or the substring, case-insensitively as the search matched it.
func HitsPattern(query string, isRegexp bool) *regexp.Regexp {
	if query == "" {
		return nil
	}
	if !isRegexp {
		return regexp.MustCompile("(?i)" + regexp.QuoteMeta(query))
	}
	re, err := regexp.Compile(query)
	if err != nil {
		return nil
	}
	return re
}

// htmlPiece is a run of rendered HTML: a tag, or text whose plain form is
// plain.
type htmlPiece struct {
	raw   string
	plain string
	tag   bool
}

// splitHTML cuts the renderer's HTML (tags, escaped text, entities) into
// tags and text pieces, each text piece one character or entity.
func splitHTML(s string) []htmlPiece {
	var out []htmlPiece
	for i := 0; i < len(s); {
		switch s[i] {
		case '<':
			j := strings.IndexByte(s[i:], '>')
			if j < 0 {
				j = len(s) - i - 1
			}
			out = append(out, htmlPiece{raw: s[i : i+j+1], tag: true})
			i += j + 1
		case '&':
			j := strings.IndexByte(s[i:], ';')
			if j < 0 || j > 10 {
				out = append(out, htmlPiece{raw: "&amp;", plain: "&"})
				i++
				continue
			}
			ent := s[i : i+j+1]
			out = append(out, htmlPiece{raw: ent, plain: html.UnescapeString(ent)})
			i += j + 1
		default:
			j := i + 1
			for j < len(s) && s[j] != '<' && s[j] != '&' {
				j++
			}
			out = append(out, htmlPiece{raw: s[i:j], plain: s[i:j]})
			i = j
		}
	}
	return out
}

// MarkHits marks re's matches in rendered (escaped) HTML: each match of
// the visible text is wrapped in <mark class="hit">, closed before a tag
// and opened again after it. Empty matches mark nothing.
func MarkHits(rendered string, re *regexp.Regexp) string {
	pieces := splitHTML(rendered)
	var plain strings.Builder
	for _, p := range pieces {
		plain.WriteString(p.plain)
	}
	text := plain.String()
	var in []bool // whether each byte of text is part of a hit
	for _, m := range re.FindAllStringIndex(text, -1) {
		if m[1] <= m[0] {
			continue
		}
		if in == nil {
			in = make([]bool, len(text))
		}
		for k := m[0]; k < m[1]; k++ {
			in[k] = true
		}
	}
	if in == nil {
		return rendered
	}
	var out strings.Builder
	open, at := false, 0
	mark := func(on bool) {
		if on != open {
			if on {
				out.WriteString(`<mark class="hit">`)
			} else {
				out.WriteString(`</mark>`)
			}
			open = on
		}
	}
	for _, p := range pieces {
		if p.tag {
			mark(false)
			out.WriteString(p.raw)
			continue
		}
		if p.raw != p.plain {
			// An entity: marked whole, by its first byte.
			mark(in[at])
			out.WriteString(p.raw)
			at += len(p.plain)
			continue
		}
		for k := 0; k < len(p.raw); k++ {
			mark(in[at+k])
			out.WriteByte(p.raw[k])
		}
		at += len(p.plain)
	}
	mark(false)
	return out.String()
}
