package store

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"

	"launchwatch/internal/linesearch"
	"launchwatch/internal/templates"
)

// copyLineColumns are the columns a COPY of new lines writes, in the order
// lineCopy.appendRow encodes them.
var copyLineColumns = []string{"launch_id", "seq", "ts", "received_at", "logged_at", "stream", "kind", "level", "rank", "alarm_no", "text"}

// CopyLines bulk-writes new lines of a launch with COPY and adds them to
// the launch's template summary (line_template.go) and search index
// (line_query_index.go). The caller has made sure none of the seqs is
// stored yet.
func (t *Tx) CopyLines(ctx context.Context, launchID int64, lines []Line) error {
	index := NewLineIndex()
	index.Add(lines)
	done := false
	return t.CopyLineStream(ctx, launchID, index, func() ([]Line, error) {
		if done {
			return nil, nil
		}
		done = true
		return lines, nil
	})
}

// CopyLineStream is CopyLines for lines that are not all known when the
// COPY starts: next returns the following lines in seq order (nil at the
// end, or an error that aborts the COPY and the transaction), and is
// called while the COPY already streams the lines before them, from
// another goroutine than the caller's. A caller that classifies lines
// while the database stores the ones before them keeps both cores busy
// instead of one after the other. The caller adds every piece of lines
// to index before next returns it (as it makes them, off the COPY's
// path); the index is written after the COPY.
func (t *Tx) CopyLineStream(ctx context.Context, launchID int64, index *LineIndex, next func() ([]Line, error)) error {
	src := &lineCopy{next: next, launchID: launchID}
	n, err := t.copyFrom(ctx, "lines", copyLineColumns, src)
	if failed := src.failure(); failed != nil {
		err = failed // what stopped the rows, rather than the server's "COPY from stdin failed"
	}
	if err != nil {
		return fmt.Errorf("store: copy lines: %w", err)
	}
	// The COPY succeeded: pgconn's goroutine has read to the end, so rows
	// is final.
	if n != src.rows {
		return fmt.Errorf("store: copy lines: wrote %d of %d", n, src.rows)
	}
	if src.rows == 0 {
		return nil
	}
	if err := t.addLineChunks(ctx, launchID, index.blooms); err != nil {
		return err
	}
	return t.addLineTemplates(ctx, launchID, &index.templates)
}

// copyFrom runs COPY table (columns) FROM STDIN in PostgreSQL's binary
// format with the rows r encodes, and reports it to the connection's
// tracer as pgx's own CopyFrom does. r must encode every column in the
// binary format of its type in the table.
func (t *Tx) copyFrom(ctx context.Context, table string, columns []string, r io.Reader) (int64, error) {
	conn := t.tx.Conn()
	tracer, _ := conn.Config().Tracer.(pgx.CopyFromTracer)
	if tracer != nil {
		ctx = tracer.TraceCopyFromStart(ctx, conn, pgx.TraceCopyFromStartData{TableName: pgx.Identifier{table}, ColumnNames: columns})
	}
	quoted := make([]string, len(columns))
	for i, c := range columns {
		quoted[i] = pgx.Identifier{c}.Sanitize()
	}
	tag, err := conn.PgConn().CopyFrom(ctx, r,
		"COPY "+pgx.Identifier{table}.Sanitize()+" ("+strings.Join(quoted, ", ")+") FROM STDIN (FORMAT binary)")
	if tracer != nil {
		tracer.TraceCopyFromEnd(ctx, conn, pgx.TraceCopyFromEndData{CommandTag: tag, Err: err})
	}
	return tag.RowsAffected(), err
}

// LineIndex is what new lines of a launch add to its search index and its
// template summary, before they are stored (CopyLineStream).
type LineIndex struct {
	blooms    map[int64]linesearch.Bloom
	templates templates.Acc
}

// NewLineIndex returns an empty index.
func NewLineIndex() *LineIndex {
	return &LineIndex{blooms: map[int64]linesearch.Bloom{}}
}

// Add indexes lines, with their final verdicts.
func (x *LineIndex) Add(lines []Line) {
	x.AddSearch(lines)
	x.AddTemplates(lines)
}

// AddSearch adds lines to the search filters alone, and AddTemplates to
// the template summary alone: a run stored by two CopyLineRun calls gives
// each the filters of its own lines, and the summary of all of them to
// the last (a template's count is added to its stored one).
func (x *LineIndex) AddSearch(lines []Line) { bloomsOf(x.blooms, lines) }

// AddTemplates: see AddSearch.
func (x *LineIndex) AddTemplates(lines []Line) {
	for i := range lines {
		l := &lines[i]
		x.templates.Add(l.Seq, l.Text, l.Kind, l.Level, l.AlarmNo != nil)
	}
}
