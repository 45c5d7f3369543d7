// Package review applies people's decisions on alarms: each verdict is
// stored with who, when and why, recorded as an audit event and reflected
// in the launch's status, all in one transaction.
package review

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"launchwatch/internal/pipeline"
	"launchwatch/internal/store"
)

// Verdicts a person can give an alarm.
const (
	Confirm = "confirm" // the alarm is a real failure
	Dismiss = "dismiss" // the alarm is a false alarm
)

// Decision is a person's verdict on one alarm, as submitted.
type Decision struct {
	LaunchKey string
	AlarmNo   int
	Verdict   string // Confirm or Dismiss
	Actor     string // the reviewer's name
	Reason    string // why; required to dismiss
	// MayHideConfirmed is set for admins: only they may dismiss an alarm a
	// person confirmed.
	MayHideConfirmed bool
}

// InvalidError lists what is wrong with a decision, per form field.
type InvalidError struct {
	Fields map[string]string
}

func (e *InvalidError) Error() string {
	var parts []string
	for k, v := range e.Fields {
		parts = append(parts, k+": "+v)
	}
	return "review: invalid decision: " + strings.Join(parts, "; ")
}

// Validate trims the decision's text and checks it; the same rules serve
// the HTML form and any future API.
// ForbiddenError is a change the actor's role may not make: answered 403
// with its reason.
type ForbiddenError struct{ Reason string }

func (e *ForbiddenError) Error() string { return "review: forbidden: " + e.Reason }

func (d *Decision) Validate() error {
	d.Actor, d.Reason = strings.TrimSpace(d.Actor), strings.TrimSpace(d.Reason)
	f := map[string]string{}
	switch d.Verdict {
	case Confirm, Dismiss:
	default:
		f["verdict"] = "choose confirm or dismiss"
	}
	switch {
	case d.Actor == "":
		f["name"] = "enter your name: every decision records who made it"
	case utf8.RuneCountInString(d.Actor) > 80 || strings.ContainsAny(d.Actor, "\x00\n\r"):
		f["name"] = "a name is at most 80 characters on one line"
	}
	switch {
	case d.Verdict == Dismiss && d.Reason == "":
		f["reason"] = "say why this is not a real failure"
	case utf8.RuneCountInString(d.Reason) > 1000 || strings.ContainsRune(d.Reason, 0):
		f["reason"] = "a reason is at most 1000 characters"
	}
	if len(f) > 0 {
		return &InvalidError{Fields: f}
	}
	return nil
}

// Subject names an alarm in the audit log.
func Subject(launchKey string, no int) string {
	return pipeline.AlarmSubject(launchKey, no) // a reclassification audits alarms too
}

// SubjectPrefix starts the audit subject of every alarm of a launch.
func SubjectPrefix(launchKey string) string { return "alarm:" + launchKey + "/" }

// Decide stores the decision and returns the launch's new status. The
// launch row is locked first, like ingest does, so a decision and a batch
// of the same launch never compute its status from each other's halves.
func Decide(ctx context.Context, st *store.Store, d Decision) (string, error) {
	if err := d.Validate(); err != nil {
		return "", err
	}
	state := "confirmed"
	if d.Verdict == Dismiss {
		state = "dismissed"
	}
	l, err := st.LaunchByKey(ctx, d.LaunchKey)
	if err != nil {
		return "", err
	}
	var newStatus string
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.LockLaunch(ctx, l.ID); err != nil {
			return err
		}
		prev, err := tx.SetAlarmDecision(ctx, l.ID, d.AlarmNo, state, d.Actor, d.Reason)
		if err != nil {
			return err
		}
		if prev == "confirmed" && state == "dismissed" && !d.MayHideConfirmed {
			// Checked under the launch's lock, so no decision slips between
			// a check and the change; the transaction rolls back.
			return &ForbiddenError{Reason: "this alarm was confirmed by a person: only an admin may dismiss it"}
		}
		err = tx.AddAudit(ctx, store.AuditEvent{Actor: d.Actor, Action: "alarm." + d.Verdict,
			Subject: Subject(d.LaunchKey, d.AlarmNo),
			Detail:  map[string]any{"from": prev, "to": state, "reason": d.Reason}})
		if err != nil {
			return err
		}
		// Its consequences go with it, each recorded in the audit log.
		reason := "with alarm " + strconv.Itoa(d.AlarmNo)
		if d.Reason != "" {
			reason += ": " + d.Reason
		}
		nos, err := tx.DecideConsequences(ctx, l.ID, d.AlarmNo, state, d.Actor, reason)
		if err != nil {
			return err
		}
		for _, no := range nos {
			err = tx.AddAudit(ctx, store.AuditEvent{Actor: d.Actor, Action: "alarm." + d.Verdict,
				Subject: Subject(d.LaunchKey, no), Detail: map[string]any{"from": "open", "to": state, "reason": reason}})
			if err != nil {
				return err
			}
		}
		if newStatus, err = tx.RecomputeStatus(ctx, l.ID); err != nil {
			return err
		}
		return tx.Notify(ctx, d.LaunchKey)
	})
	return newStatus, err
}

// maxBulk bounds how many alarms one bulk decision touches.
const maxBulk = 1000

// DecideGroup applies one verdict to every open alarm with a fingerprint,
// in one transaction, and returns how many it decided. Launches are locked
// in id order so two bulk decisions cannot deadlock.
func DecideGroup(ctx context.Context, st *store.Store, fingerprint string, d Decision) (int, error) {
	if err := d.Validate(); err != nil {
		return 0, err
	}
	refs, err := st.OpenAlarmsWithFingerprint(ctx, fingerprint, maxBulk)
	if err != nil {
		return 0, err
	}
	return decideOpen(ctx, st, refs, d, "bulk", fingerprint)
}

// decideOpen gives d's verdict to the alarms of refs (in launch id order)
// that are still open, in one transaction, locking each launch before its
// first alarm, and returns how many it decided. The list was read before
// the transaction: an alarm someone decided since keeps that decision. Each
// decision is audited with detail[via] = fingerprint; the launches whose
// alarms changed get their status recomputed and their live pages told.
func decideOpen(ctx context.Context, st *store.Store, refs []store.AlarmRef, d Decision, via, fingerprint string) (int, error) {
	state := "confirmed"
	if d.Verdict == Dismiss {
		state = "dismissed"
	}
	n := 0
	err := st.WithTx(ctx, func(tx *store.Tx) error {
		n = 0
		changed := map[int64]string{}
		locked := map[int64]bool{}
		for _, r := range refs {
			if !locked[r.LaunchID] {
				if _, err := tx.LockLaunch(ctx, r.LaunchID); err != nil {
					return err
				}
				locked[r.LaunchID] = true
			}
			decided, err := tx.DecideOpenAlarm(ctx, r.LaunchID, r.No, state, d.Actor, d.Reason)
			if err != nil {
				return err
			}
			if !decided {
				continue
			}
			err = tx.AddAudit(ctx, store.AuditEvent{Actor: d.Actor, Action: "alarm." + d.Verdict,
				Subject: Subject(r.LaunchKey, r.No),
				Detail:  map[string]any{"from": "open", "to": state, "reason": d.Reason, via: fingerprint}})
			if err != nil {
				return err
			}
			changed[r.LaunchID] = r.LaunchKey
			n++
		}
		for id, key := range changed {
			if _, err := tx.RecomputeStatus(ctx, id); err != nil {
				return err
			}
			if err := tx.Notify(ctx, key); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}
