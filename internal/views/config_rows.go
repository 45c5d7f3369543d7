package views

import (
	"context"
	"io"
	"strings"

	"github.com/a-h/templ"
)

// configRows is the rows of a configuration dump's table in the log: a
// dump holds hundreds of keys and a window of the log several dumps, so
// each row is written as small as HTML allows — the end tags of cells and
// rows are optional (the parser closes a cell at the next <td> or <tr>,
// the way it reads </td></tr>) and quotes need no escape in text.
func configRows(kvs []KV) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		var b strings.Builder
		for _, kv := range kvs {
			b.WriteString("<tr><td>")
			b.WriteString(EscapeText(Plain(kv.K)))
			b.WriteString("<td>")
			b.WriteString(EscapeText(Plain(kv.V)))
		}
		_, err := io.WriteString(w, b.String())
		return err
	})
}
