package views

import (
	"strings"
	"unicode"
)

// PostmortemDoc is a post-mortem as a document: sections of paragraphs,
// lists, checklists and quoted log text. The same document renders as the
// print-friendly page (Postmortem) and as Markdown (PostmortemMarkdown), so
// the two never say different things.
type PostmortemDoc struct {
	Title    string
	Meta     []DocText // the facts under the title
	Sections []DocSection
	EditURL  string // the incident's page (the page only)
	MdURL    string // the Markdown export (the page only)
}

// DocSection is one titled part of a document.
type DocSection struct {
	ID     string // the page's anchor and test id
	Title  string
	Blocks []DocBlock
}

// DocBlock is a paragraph, a sub-heading, a list, a checklist or a block
// of quoted text; exactly one of its fields is set.
type DocBlock struct {
	Para    []DocText
	Heading []DocText
	List    [][]DocText
	Checks  []DocCheck
	Code    string // quoted log text, shown as is
}

// DocCheck is one item of a checklist.
type DocCheck struct {
	Done bool
	Text []DocText
}

// DocText is a run of text: plain, quoted code, strong, or a link.
type DocText struct {
	Text   string
	Code   bool // log text, keys and values: quoted, never interpreted
	Strong bool
	Href   string
}

// DocPlain, DocCode, DocStrong, DocLink and DocCodeLink build texts.
func DocPlain(s string) DocText          { return DocText{Text: s} }
func DocCode(s string) DocText           { return DocText{Text: s, Code: true} }
func DocStrong(s string) DocText         { return DocText{Text: s, Strong: true} }
func DocLink(s, href string) DocText     { return DocText{Text: s, Href: href} }
func DocCodeLink(s, href string) DocText { return DocText{Text: s, Code: true, Href: href} }

// PostmortemMarkdown renders the document as Markdown (CommonMark with
// GitHub's task lists), as plain text: every text is what a terminal shows
// of it (mdText: colours and other escape sequences gone, a progress bar's
// last redraw), without control characters, so the document pastes into
// any editor. Log text goes into code spans and fences long enough that
// nothing inside can end them.
func PostmortemMarkdown(d PostmortemDoc) string {
	var b strings.Builder
	b.WriteString("# " + oneLine(mdText(d.Title)) + "\n\n")
	if len(d.Meta) > 0 {
		b.WriteString(mdInlines(d.Meta, "") + "\n\n")
	}
	for _, s := range d.Sections {
		b.WriteString("## " + s.Title + "\n\n")
		for _, bl := range s.Blocks {
			mdBlock(&b, bl)
		}
	}
	return b.String()
}

func mdBlock(b *strings.Builder, bl DocBlock) {
	switch {
	case bl.Heading != nil:
		b.WriteString("### " + mdInlines(bl.Heading, "") + "\n\n")
	case bl.Para != nil:
		b.WriteString(mdInlines(bl.Para, "") + "\n\n")
	case bl.List != nil:
		for _, it := range bl.List {
			b.WriteString("- " + mdInlines(it, "  ") + "\n")
		}
		b.WriteString("\n")
	case bl.Checks != nil:
		for _, c := range bl.Checks {
			mark := "[ ]"
			if c.Done {
				mark = "[x]"
			}
			b.WriteString("- " + mark + " " + mdInlines(c.Text, "  ") + "\n")
		}
		b.WriteString("\n")
	default:
		code := mdText(bl.Code)
		fence := strings.Repeat("`", max(3, longestRun(code, '`')+1))
		b.WriteString(fence + "text\n" + strings.TrimRight(code, "\n") + "\n" + fence + "\n\n")
	}
}

// mdText is text as plain text: each line as a terminal shows it (Plain:
// SGR colours, cursor moves, links dropped; "\r" redraws resolved), then
// every control character but the line break and the tab removed (BEL,
// a stray ESC, the C1 controls, DEL).
func mdText(s string) string {
	if strings.ContainsAny(s, termSpecial) {
		lines := strings.Split(s, "\n")
		for i, ln := range lines {
			lines[i] = Plain(ln)
		}
		s = strings.Join(lines, "\n")
	}
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		return -1
	}, s)
}

// mdInlines renders inlines; a line break inside plain text continues
// with indent (a list item's continuation).
func mdInlines(in []DocText, indent string) string {
	var b strings.Builder
	for _, x := range in {
		var s string
		text := mdText(x.Text)
		if x.Code {
			s = codeSpan(oneLine(text))
		} else {
			s = strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n"+indent)
		}
		if x.Strong {
			s = "**" + s + "**"
		}
		if x.Href != "" {
			s = "[" + s + "](" + x.Href + ")"
		}
		b.WriteString(s)
	}
	return b.String()
}

// codeSpan quotes s with enough backticks that none inside ends it.
func codeSpan(s string) string {
	if s == "" {
		return "` `"
	}
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

func longestRun(s string, c byte) int {
	best, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

var lineBreaks = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

// oneLine joins a text's lines with spaces, for titles and code spans.
func oneLine(s string) string {
	return lineBreaks.Replace(s)
}
