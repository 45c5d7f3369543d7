package incident

import (
	"context"

	"launchwatch/internal/store"
)

// AddNote stores a note on incident id by actor and returns its id.
// ErrNotFound when there is no incident.
func AddNote(ctx context.Context, st *store.Store, id int64, text, actor string) (int64, error) {
	v := invalid{}
	v.text("text", &text, MaxNote, true)
	if err := v.err(); err != nil {
		return 0, err
	}
	var noteID int64
	err := st.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.LockIncident(ctx, id); err != nil {
			return err
		}
		var err error
		if noteID, err = tx.AddIncidentNote(ctx, id, actor, text); err != nil {
			return err
		}
		return tx.AddAudit(ctx, store.AuditEvent{Actor: actor, Action: "incident.note", Subject: Subject(id),
			Detail: map[string]any{"note": noteID}})
	})
	return noteID, err
}

// EditNote replaces the text of a note, keeping the old text in its
// history. ErrNotFound when the incident has no such note.
func EditNote(ctx context.Context, st *store.Store, id, noteID int64, text, actor string) error {
	v := invalid{}
	v.text("text", &text, MaxNote, true)
	if err := v.err(); err != nil {
		return err
	}
	return st.WithTx(ctx, func(tx *store.Tx) error {
		changed, err := tx.EditIncidentNote(ctx, id, noteID, text, actor)
		if err != nil || !changed {
			return err
		}
		return tx.AddAudit(ctx, store.AuditEvent{Actor: actor, Action: "incident.note_edit", Subject: Subject(id),
			Detail: map[string]any{"note": noteID}})
	})
}

// AddAction adds an item to incident id's checklist.
func AddAction(ctx context.Context, st *store.Store, id int64, text, actor string) (int64, error) {
	v := invalid{}
	v.line("text", &text, MaxAction, true)
	if err := v.err(); err != nil {
		return 0, err
	}
	var itemID int64
	err := st.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.LockIncident(ctx, id); err != nil {
			return err
		}
		var err error
		if itemID, err = tx.AddActionItem(ctx, id, text, actor); err != nil {
			return err
		}
		return tx.AddAudit(ctx, store.AuditEvent{Actor: actor, Action: "incident.action_add", Subject: Subject(id),
			Detail: map[string]any{"item": itemID, "text": text}})
	})
	return itemID, err
}

// ActionChange is an edit of a checklist item: nil fields stay; Delete
// removes the item.
type ActionChange struct {
	Text   *string
	Done   *bool
	Delete bool
}

// UpdateAction edits, ticks, unticks or removes an item of the checklist.
// ErrNotFound when the incident has no such item.
func UpdateAction(ctx context.Context, st *store.Store, id, itemID int64, c ActionChange, actor string) error {
	v := invalid{}
	if c.Text != nil {
		v.line("text", c.Text, MaxAction, true)
	}
	if err := v.err(); err != nil {
		return err
	}
	return st.WithTx(ctx, func(tx *store.Tx) error {
		detail := map[string]any{"item": itemID}
		action := "incident.action_delete"
		var err error
		if c.Delete {
			err = tx.DeleteActionItem(ctx, id, itemID)
		} else {
			action = "incident.action_update"
			if c.Text != nil {
				detail["text"] = *c.Text
			}
			if c.Done != nil {
				detail["done"] = *c.Done
			}
			err = tx.UpdateActionItem(ctx, id, itemID, c.Text, c.Done, actor)
		}
		if err != nil {
			return err
		}
		return tx.AddAudit(ctx, store.AuditEvent{Actor: actor, Action: action, Subject: Subject(id), Detail: detail})
	})
}
