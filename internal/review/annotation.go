package review

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"launchwatch/internal/store"
)

// Note is an annotation as submitted.
type Note struct {
	LaunchKey string
	Seq       int64 // the line it is about; 0 for the whole launch
	Author    string
	Body      string
}

// Validate trims the note and checks it.
func (n *Note) Validate() error {
	n.Author, n.Body = strings.TrimSpace(n.Author), strings.TrimSpace(n.Body)
	f := map[string]string{}
	if n.Author == "" || utf8.RuneCountInString(n.Author) > 80 || strings.ContainsAny(n.Author, "\x00\n\r") {
		f["name"] = "enter your name (at most 80 characters)"
	}
	if n.Body == "" || utf8.RuneCountInString(n.Body) > 4000 || strings.ContainsRune(n.Body, 0) {
		f["body"] = "write a note of at most 4000 characters"
	}
	if n.Seq < 0 {
		f["seq"] = "a line number is positive"
	}
	if len(f) > 0 {
		return &InvalidError{Fields: f}
	}
	return nil
}

// Annotate stores a note on a launch with its audit event and returns its id.
func Annotate(ctx context.Context, st *store.Store, n Note) (int64, error) {
	if err := n.Validate(); err != nil {
		return 0, err
	}
	l, err := st.LaunchByKey(ctx, n.LaunchKey)
	if err != nil {
		return 0, err
	}
	var seq *int64
	if n.Seq > 0 {
		seq = &n.Seq
	}
	var id int64
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		if id, err = tx.AddAnnotation(ctx, l.ID, seq, n.Author, n.Body); err != nil {
			return err
		}
		if err := tx.AddAudit(ctx, store.AuditEvent{Actor: n.Author, Action: "annotation.create",
			Subject: "launch:" + n.LaunchKey, Detail: map[string]any{"annotation": id, "seq": n.Seq}}); err != nil {
			return err
		}
		return tx.Notify(ctx, n.LaunchKey)
	})
	return id, err
}

// NoteAnchor is the id of a note on its launch page.
func NoteAnchor(id int64) string { return "note-" + strconv.FormatInt(id, 10) }
